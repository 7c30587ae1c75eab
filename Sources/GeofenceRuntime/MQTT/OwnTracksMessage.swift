import Foundation

/// The OwnTracks JSON geofence reads from and writes to MQTT
/// (https://owntracks.org/booklet/tech/json/).
enum OwnTracksMessage {
    /// The line the ``LineDecoder`` reads for a message received on `topic`: the payload with a
    /// `"topic"` member added as its last member, so that the device is `USER/DEVICE` from
    /// `owntracks/USER/DEVICE` (a member given twice counts with its last value, so this one
    /// overrides any the payload carries). A payload that is not a JSON object is handed on as it
    /// is, for the decoder to report.
    static func line(payload: [UInt8], topic: String) -> String {
        var end = payload.endIndex
        while end > payload.startIndex, isSpace(payload[end - 1]) { end -= 1 }
        var start = payload.startIndex
        while start < end, isSpace(payload[start]) { start += 1 }
        guard end - start >= 2, payload[start] == UInt8(ascii: "{"), payload[end - 1] == UInt8(ascii: "}")
        else {
            return String(decoding: payload, as: UTF8.self)
        }
        var inner = end - 1
        while inner > start + 1, isSpace(payload[inner - 1]) { inner -= 1 }
        let isEmptyObject = inner == start + 1
        var bytes = Array(payload[start..<(end - 1)])
        bytes.append(contentsOf: Array((isEmptyObject ? "" : ",").utf8))
        bytes.append(contentsOf: Array("\"topic\":\(quoted(topic))}".utf8))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `text` as a JSON string literal, quotes included.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (0x2028...0x2029).contains(scalar.value) {
                    result += String(format: "\\u%04x", scalar.value)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// `USER/DEVICE` from a location topic `owntracks/USER/DEVICE` (any first level), or `nil`.
    static func device(topic: String) -> String? {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard levels.count == 3, !levels[1].isEmpty, !levels[2].isEmpty else { return nil }
        return "\(levels[1])/\(levels[2])"
    }

    /// The topic a device's transitions go to, as the OwnTracks apps publish theirs:
    /// `owntracks/USER/DEVICE/event` for the device `USER/DEVICE`.
    static func eventTopic(device: String) -> String { "owntracks/\(device)/event" }
}

/// An OwnTracks `_type: transition` message for one enter or exit.
struct OwnTracksTransitionMessage: Encodable, Equatable {
    /// Always `transition`.
    var type = "transition"
    /// `enter` or `leave`.
    var event: String
    /// The place's name.
    var desc: String
    /// When the crossing happened (the event's estimated date), Unix seconds.
    var tst: Int64
    /// The region's identity: a stable hash-derived time per place (``OwnTracksWaypoints/wtst(for:)``).
    var wtst: Int64
    /// The deciding position, if the event came from a fix or visit.
    var lat: Double?
    /// The deciding position, if the event came from a fix or visit.
    var lon: Double?
    /// The deciding position's accuracy in whole metres; 0 when the tracker gave none (OwnTracks
    /// readers expect the member).
    var acc: Int
    /// The trigger: `c`, a circular region, the only kind OwnTracks knows besides beacons (`b`);
    /// polygons are reported as `c` too.
    var t = "c"
    /// The tracker id of the fix that decided, when the tracker sent one.
    var tid: String?

    enum CodingKeys: String, CodingKey {
        case type = "_type"
        case event, desc, tst, wtst, lat, lon, acc, t, tid
    }

    /// The JSON text, keys sorted.
    func json() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(self))
    }
}
