import Foundation
import Geofence

/// Builds a fix or a visit from the project's own NDJSON fields.
enum NDJSONRecord {
    static func make(_ fields: JSONFields) throws(RecordError) -> InputRecord {
        if fields.has(.type) {
            if fields.stringEquals(.type, "visit") { return .visit(try visit(fields)) }
            if !fields.stringEquals(.type, "fix") {
                let written = try fields.string(.type) ?? ""
                throw fields.context.error(
                    field: "type", "\"\(written)\" is neither \"fix\" nor \"visit\"", kind: .invalidField)
            }
        }
        return .fix(try fix(fields))
    }

    /// Inlined into ``make(_:)``, so that the fix is returned once, into the record: returned
    /// from a function of its own it was moved once more (about 40 instructions a line).
    @inline(__always)
    private static func fix(_ fields: JSONFields) throws(RecordError) -> Fix {
        let coordinate = try fields.coordinate(
            .latitude, .longitude, lenient: false, what: "a fix needs latitude and longitude")
        let timeKey = fields.first(.timestamp, .time)
        guard let timeKey, let timestamp = try fields.time(timeKey) else {
            throw fields.context.error(
                field: "timestamp",
                "missing (a fix needs \"timestamp\" in Unix milliseconds or \"time\" in ISO 8601)",
                kind: .missingField)
        }
        let accuracyKey = fields.first(.horizontalAccuracy, .accuracy)
        let courseKey = fields.first(.course, .bearing)
        let deviceKey = fields.first(.deviceId, .deviceIdSnake)
        return Fix(
            timestamp: timestamp,
            coordinate: coordinate,
            horizontalAccuracy: Units.accuracy(
                try accuracyKey.flatMap { (key) throws(RecordError) in try fields.finiteNumber(key) }),
            altitude: try fields.finiteNumber(.altitude),
            verticalAccuracy: Units.accuracy(try fields.finiteNumber(.verticalAccuracy)),
            speed: try fields.finiteNumber(.speed),
            course: try courseKey.flatMap { (key) throws(RecordError) in try fields.finiteNumber(key) },
            floor: try fields.integer(.floor),
            deviceId: try deviceKey.flatMap { (key) throws(RecordError) in try fields.string(key) }
                ?? fields.context.defaultDeviceId,
            label: try fields.string(.label))
    }

    private static func visit(_ fields: JSONFields) throws(RecordError) -> Visit {
        let coordinate = try fields.coordinate(
            .latitude, .longitude, lenient: false, what: "a visit needs latitude and longitude")
        guard let accuracyKey = fields.first(.horizontalAccuracy, .accuracy),
            let accuracy = try fields.finiteNumber(accuracyKey)
        else {
            throw fields.missing(.horizontalAccuracy, "a visit needs the radius of its uncertainty circle")
        }
        guard accuracy >= 0 else {
            throw fields.context.error(
                field: accuracyKey.name, "\(fields.quoted(fields.token(accuracyKey))) is negative",
                kind: .invalidField)
        }
        // Raw sentinels (a serialised CLVisit's distantPast / distantFuture) mean "unknown"
        // exactly as null does; Visit's raw initialiser converts them.
        return Visit(
            coordinate: coordinate, horizontalAccuracy: accuracy,
            rawArrival: try fields.time(.arrival, sentinel: .distantPast) ?? .distantPast,
            rawDeparture: try fields.time(.departure, sentinel: .distantFuture) ?? .distantFuture)
    }
}
