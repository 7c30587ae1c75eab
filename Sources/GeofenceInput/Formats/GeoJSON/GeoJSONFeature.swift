import Foundation
import Geofence

/// Builds fixes and visits from GeoJSON point Features: Overland's batches, GPSLogger's and
/// trackintel's FeatureCollections, and any collection of timed points.
///
/// The geometry must be a `Point` (`[longitude, latitude]` or `[longitude, latitude, altitude]`,
/// as RFC 7946 orders them). The properties are read under the names these trackers use:
///
/// | field | properties looked at, first present wins |
/// | --- | --- |
/// | time | `timestamp` (Overland), `time` (GPSLogger), `tracked_at` (trackintel), `datetime`, `date`, `time_long` |
/// | accuracy | `horizontal_accuracy` (Overland), `accuracy` (GPSLogger), `acc`, `hacc` |
/// | altitude | `altitude`, `ele`, `elevation`, `alt` (else the third coordinate) |
/// | speed, m/s | `speed` (a negative value is unknown, as Core Location writes it) |
/// | course | `course`, `bearing`, `heading` (negative is unknown) |
/// | device | `device_id` (Overland, when not empty), `user_id` (trackintel), `deviceId`, `tid` |
///
/// Overland's visits (`"action": "visit"` with `arrival_date` and `departure_date`, `null` when
/// unknown) become visits. Its trip summaries (`"type": "trip"`) and app events (other
/// `action`s, with or without a position) are recognised and skipped: they are not fixes.
enum GeoJSONFeature {
    /// Whether a record is a GeoJSON Feature.
    static func looksLikeOne(_ object: JSONObject) -> Bool {
        object.stringEquals("type", "Feature")
    }

    /// Builds the record of one Feature.
    static func make(_ feature: JSONObject, defaultDeviceId: String?) throws(RecordError) -> InputRecord {
        let properties = try feature.object("properties")
        if let properties {
            if properties.stringEquals("type", "trip") {
                return .ignored(kind: "trip", reason: "an Overland trip summary, not a position")
            }
            if properties.has("action"), !properties.stringEquals("action", "visit") {
                let action = (try? properties.string("action")) ?? "?"
                return .ignored(kind: "action", reason: "an Overland app event (\(action)), not a position")
            }
        }
        guard let geometry = try feature.object("geometry") else {
            throw feature.error(
                "geometry", "missing (a Feature that is a fix has a Point geometry)", .missingField)
        }
        guard geometry.stringEquals("type", "Point") else {
            let type = (try? geometry.string("type")) ?? nil
            throw geometry.error("type", message(forGeometry: type), .unrecognized)
        }
        guard let coordinates = try geometry.numbers("coordinates"), coordinates.count >= 2 else {
            throw geometry.error(
                "coordinates", "a Point needs [longitude, latitude]",
                geometry.has("coordinates") ? .invalidField : .missingField)
        }
        let coordinate = try geometry.coordinate(
            latitude: coordinates[1], "coordinates", longitude: coordinates[0], "coordinates")
        guard let properties else {
            throw feature.error("properties", "missing (a fix needs its time in properties)", .missingField)
        }
        if properties.stringEquals("action", "visit") {
            return .visit(try visit(properties, at: coordinate))
        }
        guard
            let timeName = properties.first(
                "timestamp", "time", "tracked_at", "datetime", "date", "time_long"),
            let timestamp = try properties.time(timeName)
        else {
            throw properties.error(
                "timestamp", "missing (looked for timestamp, time, tracked_at, datetime, date and time_long)",
                .missingField)
        }
        let accuracy = try properties.first("horizontal_accuracy", "accuracy", "acc", "hacc").map {
            name throws(RecordError) in try properties.finiteNumber(name, lenient: true)
        }
        var altitude = try properties.first("altitude", "ele", "elevation", "alt").map {
            name throws(RecordError) in try properties.finiteNumber(name, lenient: true)
        }
        if altitude == nil, coordinates.count >= 3 { altitude = coordinates[2] }
        let course = try properties.first("course", "bearing", "heading").map {
            name throws(RecordError) in try properties.finiteNumber(name, lenient: true)
        }
        let device = try properties.first("device_id", "user_id", "deviceId", "tid").map {
            name throws(RecordError) in try properties.string(name, lenient: true)
        }
        return .fix(
            Fix(
                timestamp: timestamp,
                coordinate: coordinate,
                horizontalAccuracy: Units.accuracy(accuracy ?? nil),
                altitude: altitude ?? nil,
                verticalAccuracy: Units.accuracy(
                    try properties.finiteNumber("vertical_accuracy", lenient: true)),
                speed: try properties.finiteNumber("speed", lenient: true).flatMap { $0 >= 0 ? $0 : nil },
                course: (course ?? nil).flatMap { $0 >= 0 ? $0 : nil },
                deviceId: (device ?? nil) ?? defaultDeviceId))
    }

    /// Overland writes a visit's unknown ends as `null` (it drops Core Location's distantPast
    /// and distantFuture sentinels itself).
    private static func visit(_ properties: JSONObject, at coordinate: Coordinate) throws(RecordError) -> Visit
    {
        guard let accuracy = Units.accuracy(try properties.finiteNumber("horizontal_accuracy", lenient: true))
        else {
            throw properties.error(
                "horizontal_accuracy", "missing (a visit needs its accuracy)", .missingField)
        }
        return Visit(
            coordinate: coordinate, horizontalAccuracy: accuracy,
            arrival: try properties.time("arrival_date"), departure: try properties.time("departure_date"))
    }

    /// What a Feature of another geometry is, in words.
    static func message(forGeometry type: String?) -> String {
        switch type {
        case "LineString", "MultiLineString":
            "a GeoJSON \(type ?? "") is a drawn track with no time per point; only Point features are fixes"
        case "Polygon", "MultiPolygon":
            "a GeoJSON \(type ?? "") is an area (a place for the rules file), not a fix"
        case nil:
            "a geometry without a type; only Point features are fixes"
        default:
            "a GeoJSON \(type ?? "") geometry; only Point features are fixes"
        }
    }
}
