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
        try encodedLine(type, value)
    }

    /// An event as one line of JSON, exactly as the encoder writes it (the same keys in the same
    /// order, the same numbers and times), written directly: replaying many devices writes an
    /// event for each of their places, and the encoder spent ~75,000 instructions on each. An event
    /// with a text that would need escaping, or a number JSON cannot hold, takes the encoder.
    public static func line(_ type: String, _ event: PlaceEvent) throws -> String {
        if let line = EventLineWriter.line(type, event) { return line }
        return try encodedLine(type, event)
    }

    /// Appends ``line(_:_:)-(_,PlaceEvent)`` to `bytes` (without a newline), writing directly into
    /// them when it can: a record with many events is rendered into one buffer.
    public static func appendLine(_ type: String, _ event: PlaceEvent, to bytes: inout [UInt8]) throws {
        if EventLineWriter.append(type, event, to: &bytes) { return }
        bytes.append(contentsOf: try encodedLine(type, event).utf8)
    }

    private static func encodedLine<Value: Encodable>(_ type: String, _ value: Value) throws -> String {
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

/// Writes a ``PlaceEvent`` as `EngineJSON.encoder()` would: keys sorted, absent values left out,
/// numbers as `Double.description` without a trailing `.0` (what the encoder writes), times as
/// ``EngineJSON/timestamp(_:)``. Checked against the encoder in `EventLineWriterTests`.
///
/// It writes bytes, not strings: a fleet's first determinations are an event per place per
/// device, and making a string for every time and number was most of what writing one cost.
enum EventLineWriter {
    /// The line, or `nil` when a text needs escaping or a number is not finite (the encoder then
    /// writes, or refuses, it).
    static func line(_ type: String, _ event: PlaceEvent) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(320)
        guard append(type, event, to: &out) else { return nil }
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the line (without a newline) to `out`; `false`, with `out` as it was, when a text
    /// needs escaping, a number is not finite or a time is outside the years the direct form holds.
    static func append(_ type: String, _ event: PlaceEvent, to out: inout [UInt8]) -> Bool {
        let start = out.count
        if write(type, event, to: &out) { return true }
        out.removeSubrange(start...)
        return false
    }

    private static func write(_ type: String, _ event: PlaceEvent, to out: inout [UInt8]) -> Bool {
        guard string("type", type, into: &out, first: true) else { return false }
        if let accuracy = event.accuracy, !number("accuracy", accuracy, into: &out) { return false }
        guard time("confirmedAt", event.confirmedAt, into: &out),
            time("date", event.date, into: &out),
            string("device", event.device, into: &out)
        else { return false }
        if let distance = event.distance, !number("distance", distance, into: &out) { return false }
        guard string("id", event.id, into: &out) else { return false }
        if let latitude = event.latitude, !number("latitude", latitude, into: &out) { return false }
        if let longitude = event.longitude, !number("longitude", longitude, into: &out) { return false }
        guard string("place", event.place, into: &out),
            string("state", event.state.rawValue, into: &out),
            string("transition", event.transition.rawValue, into: &out)
        else { return false }
        out.append(UInt8(ascii: "}"))
        return true
    }

    private static func key(_ name: StaticString, into out: inout [UInt8], first: Bool) {
        out.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
        out.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { out.append(contentsOf: $0) }
        out.append(UInt8(ascii: "\""))
        out.append(UInt8(ascii: ":"))
    }

    /// Appends `"name":"value"`; `false` when the value has a byte the encoder would escape (a
    /// quote, a backslash, a control character) or that is not ASCII.
    private static func string(
        _ name: StaticString, _ value: String, into out: inout [UInt8], first: Bool = false
    ) -> Bool {
        var value = value
        return value.withUTF8 { bytes in
            for byte in bytes
            where byte < 0x20 || byte >= 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                return false
            }
            key(name, into: &out, first: first)
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: bytes)
            out.append(UInt8(ascii: "\""))
            return true
        }
    }

    /// Appends `"name":"time"` as ``EngineJSON/timestamp(_:)`` writes it; `false` for a time it
    /// writes some other way.
    private static func time(_ name: StaticString, _ date: Date, into out: inout [UInt8]) -> Bool {
        key(name, into: &out, first: false)
        out.append(UInt8(ascii: "\""))
        guard ISO8601Writer.appendUTCMilliseconds(date, to: &out) else { return false }
        out.append(UInt8(ascii: "\""))
        return true
    }

    /// Appends `"name":number`; `false` for a number that is not finite.
    private static func number(_ name: StaticString, _ value: Double, into out: inout [UInt8]) -> Bool {
        guard value.isFinite else { return false }
        key(name, into: &out, first: false)
        // `Double.write(to:)` hands its shortest round-trip digits, `description`'s text, to
        // the stream as bytes; the sink takes over `out` for the call.
        var sink = ByteSink()
        swap(&sink.bytes, &out)
        value.write(to: &sink)
        swap(&sink.bytes, &out)
        // The encoder leaves out a whole number's ".0".
        let count = out.count
        if count >= 2, out[count - 2] == UInt8(ascii: "."), out[count - 1] == UInt8(ascii: "0") {
            out.removeLast(2)
        }
        return true
    }
}

/// A text stream that appends what it is given to bytes. Numbers write their digits through
/// `_writeASCII` (the standard library's hook for ASCII output), so no string is made for them;
/// were the hook to go, `write(_:)` would still be called with the same text.
private struct ByteSink: TextOutputStream {
    var bytes: [UInt8] = []

    mutating func write(_ string: String) {
        bytes.append(contentsOf: string.utf8)
    }

    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: buffer)
    }
}
