public import Foundation
import Geofence

/// The one JSON form of everything the engine writes (replay output, the event log, the outbox,
/// hook standard input): ISO 8601 dates with milliseconds, keys in a fixed order.
public enum EngineJSON {
    /// An encoder for the engine's records.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(timestamp(date))
        }
        return encoder
    }

    /// An encoder for saved state: dates as exact numbers, so that a state saved and loaded again
    /// is bit for bit the state that was saved (ISO 8601 with milliseconds would round them, and a
    /// restarted engine would then date a crossing a fraction of a millisecond differently).
    public static func stateEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    /// A decoder matching ``stateEncoder()``.
    public static func stateDecoder() -> JSONDecoder { JSONDecoder() }

    /// A decoder matching ``encoder()``.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = parse(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "not an ISO 8601 time: \(text)")
            }
            return date
        }
        return decoder
    }

    /// `value` as one line of JSON with `"type": type` first.
    public static func line<Value: Encodable>(_ type: String, _ value: Value) throws -> String {
        let body = String(decoding: try encoder().encode(value), as: UTF8.self)
        let rest = body.dropFirst()
        return "{\"type\":\"\(type)\"" + (rest.first == "}" ? "" : ",") + rest
    }

    /// An instant as `2026-03-03T08:00:42.000Z`.
    public static func timestamp(_ date: Date) -> String { ISO8601Writer.utcMilliseconds(date) }

    /// An instant as people read it: `2026-03-03 08:00:43` in `timeZone`.
    public static func localClock(_ date: Date, in timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let p = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(
            format: "%04d-%02d-%02d %02d:%02d:%02d", p.year ?? 0, p.month ?? 0, p.day ?? 0, p.hour ?? 0,
            p.minute ?? 0, p.second ?? 0)
    }

    static func parse(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
    }
}
