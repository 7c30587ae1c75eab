import Foundation
import Geofence

/// Builds fixes from the records of Google Takeout's Location History `Records.json`.
///
/// Each record of the `locations` array has `latitudeE7` and `longitudeE7` (degrees times 10^7,
/// as integers) and its time as `timestampMs` (Unix milliseconds written as a string, the layout
/// until about 2022) or `timestamp` (ISO 8601, the layout since); `accuracy`, `altitude` and
/// `verticalAccuracy` in metres, `velocity` in m/s and `heading` in degrees when known, and
/// `deviceTag`, a number naming the phone. Nested `activity` guesses are not positions and are
/// skipped.
///
/// Two quirks of real exports are handled: some records carry E7 values that overflowed a signed
/// 32-bit integer (a latitude of 4,200,000,000 for -9.49...), which are wrapped back (2^32
/// subtracted) when that lands in range; and records of several phones are interleaved, so each
/// `deviceTag` is its own device unless the reader was given one.
enum TakeoutLocation {
    /// Whether a record is shaped like a Takeout location.
    static func looksLikeOne(_ object: JSONObject) -> Bool {
        object.has("latitudeE7") || object.has("longitudeE7")
    }

    /// Builds the fix of one record.
    static func make(_ object: JSONObject, defaultDeviceId: String?) throws(RecordError) -> InputRecord {
        guard let latitudeE7 = try object.finiteNumber("latitudeE7", lenient: true) else {
            throw object.error(
                "latitudeE7", "missing (a Takeout location needs latitudeE7 and longitudeE7)", .missingField)
        }
        guard let longitudeE7 = try object.finiteNumber("longitudeE7", lenient: true) else {
            throw object.error(
                "longitudeE7", "missing (a Takeout location needs latitudeE7 and longitudeE7)", .missingField)
        }
        let coordinate = try object.coordinate(
            latitude: unwrapped(latitudeE7, limit: 90) / 1e7, "latitudeE7",
            longitude: unwrapped(longitudeE7, limit: 180) / 1e7, "longitudeE7")
        guard let timestamp = try time(object) else {
            throw object.error(
                "timestamp", "missing (a Takeout location needs timestamp or timestampMs)", .missingField)
        }
        let device = try object.string("deviceTag", lenient: true)
        return .fix(
            Fix(
                timestamp: timestamp,
                coordinate: coordinate,
                horizontalAccuracy: Units.accuracy(try object.finiteNumber("accuracy", lenient: true)),
                altitude: try object.finiteNumber("altitude", lenient: true),
                verticalAccuracy: Units.accuracy(try object.finiteNumber("verticalAccuracy", lenient: true)),
                speed: try object.finiteNumber("velocity", lenient: true).flatMap { $0 >= 0 ? $0 : nil },
                course: try object.finiteNumber("heading", lenient: true).flatMap { $0 >= 0 ? $0 : nil },
                deviceId: defaultDeviceId ?? device))
    }

    /// `timestamp` (ISO 8601) in the newer layout, `timestampMs` (milliseconds as a string) in
    /// the older; both are read wherever they appear.
    private static func time(_ object: JSONObject) throws(RecordError) -> Date? {
        if object.has("timestamp") { return try object.time("timestamp") }
        guard let milliseconds = try object.finiteNumber("timestampMs", lenient: true) else { return nil }
        let token = object.token("timestampMs")
        return try object.context(at: token).date(
            seconds: milliseconds / 1000, text: object.quoted(token), field: "timestampMs")
    }

    /// An E7 value that overflowed a signed 32-bit integer, brought back when that puts it in
    /// range; anything else is left for the range check to report.
    static func unwrapped(_ e7: Double, limit: Double) -> Double {
        let bound = limit * 1e7
        if e7 > bound, e7 - 4_294_967_296 >= -bound { return e7 - 4_294_967_296 }
        if e7 < -bound, e7 + 4_294_967_296 <= bound { return e7 + 4_294_967_296 }
        return e7
    }
}
