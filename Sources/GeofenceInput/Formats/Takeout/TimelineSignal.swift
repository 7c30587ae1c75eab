import Foundation
import Geofence

/// Builds fixes from the `rawSignals` of Google's on-phone Timeline export (`Timeline.json`,
/// Settings → Location → Timeline → Export on Android, the only export since Google moved
/// Timeline to the phone).
///
/// A raw signal is one of `{"position": {...}}`, `{"wifiScan": {...}}` or
/// `{"activityRecord": {...}}`; only positions are fixes: `LatLng` (text: `"48.833657°, 2.256223°"`),
/// `accuracyMeters`, `altitudeMeters`, `speedMetersPerSecond`, `timestamp` (ISO 8601). The file's
/// `semanticSegments` (visits and paths Google inferred) are not fixes and are skipped.
enum TimelineSignal {
    /// Builds the record of one raw signal.
    static func make(_ signal: JSONObject, defaultDeviceId: String?) throws(RecordError) -> InputRecord {
        guard let position = try signal.object("position") else {
            let kind = signal.names.first ?? "signal"
            return .ignored(kind: kind, reason: "a Timeline raw signal that is not a position (\(kind))")
        }
        guard let text = try position.string("LatLng") else {
            throw position.error("LatLng", "missing (a position needs LatLng)", .missingField)
        }
        let parts = text.replacingOccurrences(of: "°", with: "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]) else {
            throw position.error("LatLng", "\"\(text)\" is not \"latitude°, longitude°\"", .invalidCoordinate)
        }
        let coordinate = try position.coordinate(latitude: latitude, "LatLng", longitude: longitude, "LatLng")
        guard let timestamp = try position.time("timestamp") else {
            throw position.error("timestamp", "missing (a position needs its time)", .missingField)
        }
        return .fix(
            Fix(
                timestamp: timestamp, coordinate: coordinate,
                horizontalAccuracy: Units.accuracy(
                    try position.finiteNumber("accuracyMeters", lenient: true)),
                altitude: try position.finiteNumber("altitudeMeters", lenient: true),
                speed: try position.finiteNumber("speedMetersPerSecond", lenient: true).flatMap {
                    $0 >= 0 ? $0 : nil
                },
                deviceId: defaultDeviceId))
    }
}
