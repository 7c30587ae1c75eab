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
        var reuse = EventLineReuse()
        try appendLine(type, event, to: &bytes, reusing: &reuse)
    }

    /// ``appendLine(_:_:to:)`` for the events of one output in turn: the text of a coordinate the
    /// line before wrote is written again from `reuse` (a fleet's first determinations are twenty
    /// events of one fix, and writing a latitude's shortest digits costs about 500 instructions).
    public static func appendLine(
        _ type: String, _ event: PlaceEvent, to bytes: inout [UInt8], reusing reuse: inout EventLineReuse
    ) throws {
        if EventLineWriter.append(type, event, to: &bytes, reusing: &reuse) { return }
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
/// A line is written into memory of its own, sized for the longest the line can be, and then
/// appended to the output in one copy: a fleet's first determinations are an event per place per
/// device, and appending each key, quote and digit to an array, every append checking the array's
/// room and uniqueness, was most of what writing one cost.
enum EventLineWriter {
    /// The line, or `nil` when a text needs escaping or a number is not finite (the encoder then
    /// writes, or refuses, it).
    static func line(_ type: String, _ event: PlaceEvent) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(320)
        var reuse = EventLineReuse()
        guard append(type, event, to: &out, reusing: &reuse) else { return nil }
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the line (without a newline) to `out`, writing a value from `reuse` when the line
    /// before wrote the same; `false`, with `out` as it was, when a text needs escaping, a number
    /// is not finite or a time is outside the years the direct form holds.
    static func append(
        _ type: String, _ event: PlaceEvent, to out: inout [UInt8], reusing reuse: inout EventLineReuse
    ) -> Bool {
        // The texts as they are (one that needs escaping is not written here), and the rest at
        // its longest. Were it too short, the line would be left to the encoder, not cut.
        let engineTransition =
            transitionMember(event.transition) == nil ? event.transition.rawValue.utf8.count : 0
        let capacity =
            fixedCapacity + type.utf8.count + event.device.utf8.count
            + (event.assignedID?.utf8.count ?? StableID.textLength)
            + event.place.utf8.count + engineTransition
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var line = LineBuffer(buffer)
            guard write(type, event, into: &line, reusing: &reuse) else { return false }
            out.append(contentsOf: line.written)
            return true
        }
    }

    /// The bytes of a line besides its texts: keys, quotes, commas and braces (counted from the
    /// keys written below, with room to spare), the state's and the transition's members (at most
    /// 23 and 38 bytes), four numbers and two times at their longest.
    private static let fixedCapacity =
        160 + 64 + 4 * LineBuffer.numberCapacity + 2 * (ISO8601Writer.utcMillisecondsLength + 2)

    private static func write(
        _ type: String, _ event: PlaceEvent, into line: inout LineBuffer, reusing reuse: inout EventLineReuse
    ) -> Bool {
        guard line.member("{\"type\":", text: type),
            line.member(",\"accuracy\":", number: event.accuracy, reusing: &reuse.accuracy),
            line.member(",\"confirmedAt\":", time: event.confirmedAt, reusing: &reuse.confirmedAt),
            line.member(",\"date\":", time: event.date, reusing: &reuse.date),
            line.member(",\"device\":", text: event.device),
            line.member(",\"distance\":", number: event.distance),
            line.member(",\"id\":", id: event),
            line.member(",\"latitude\":", number: event.latitude, reusing: &reuse.latitude),
            line.member(",\"longitude\":", number: event.longitude, reusing: &reuse.longitude),
            line.member(",\"place\":", text: event.place)
        else { return false }
        // The state and the transition are written as constants (a raw value is a text made and
        // checked for escapes each time).
        line.put(stateMember(event.state))
        if let transition = transitionMember(event.transition) {
            line.put(transition)
        } else if !line.member(",\"transition\":", text: event.transition.rawValue) {
            return false
        }
        line.put("}")
        return !line.overflowed
    }

    /// The state's member: its key and its raw value.
    private static func stateMember(_ state: ConditionState) -> StaticString {
        switch state {
        case .unknown: ",\"state\":\"unknown\""
        case .satisfied: ",\"state\":\"satisfied\""
        case .unsatisfied: ",\"state\":\"unsatisfied\""
        case .unmonitored: ",\"state\":\"unmonitored\""
        }
    }

    /// The transition's member, its key and its raw value; `nil` for an engine's event, whose raw
    /// value is made from its kind.
    private static func transitionMember(_ transition: Transition) -> StaticString? {
        switch transition {
        case .enter: ",\"transition\":\"enter\""
        case .exit: ",\"transition\":\"exit\""
        case .determined: ",\"transition\":\"determined\""
        case .dwell: ",\"transition\":\"dwell\""
        case .conditionLimitExceeded: ",\"transition\":\"conditionLimitExceeded\""
        case .visitStart: ",\"transition\":\"visit-start\""
        case .visitEnd: ",\"transition\":\"visit-end\""
        case .commute: ",\"transition\":\"commute\""
        case .commuteAbandoned: ",\"transition\":\"commute-abandoned\""
        case .engine: nil
        }
    }
}

/// The texts of the values the last event line wrote that the next line of the same output
/// usually repeats (``EngineJSON/appendLine(_:_:to:reusing:)``): the deciding fix's coordinate
/// and accuracy, and the two times (a fleet's first determinations are twenty events of one fix,
/// dated and confirmed alike).
public struct EventLineReuse: Sendable {
    var latitude = Written()
    var longitude = Written()
    var accuracy = Written()
    var date = Written()
    var confirmedAt = Written()

    /// Nothing written yet.
    public init() {}

    /// A value (its bits) and the text written for it.
    struct Written: Sendable {
        var bits: UInt64 = 0
        /// Empty until a value is written.
        var text: [UInt8] = []
    }
}

/// A line written into memory that the caller owns for the writing (a temporary allocation).
/// Whatever does not fit is not written and marks the line ``overflowed``: the line is then
/// thrown away, never cut short.
///
/// It is a text stream too: `Double.write(to:)` hands it the digits of a number's shortest
/// round-trip form (`description`'s text) through `_writeASCII`, the standard library's hook for
/// ASCII output, so no string is made for them; were the hook to go, `write(_:)` would still be
/// called with the same text.
struct LineBuffer: TextOutputStream {
    /// Room for a number: `-2.2250738585072014e-308`, the longest `description`, has 24 bytes.
    static let numberCapacity = 32

    private let buffer: UnsafeMutableBufferPointer<UInt8>
    private(set) var count = 0
    /// Whether something did not fit.
    private(set) var overflowed = false

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    /// The bytes written.
    var written: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: buffer[..<count]) }

    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, let base = buffer.baseAddress else { return }
        guard bytes.count <= buffer.count - count else {
            overflowed = true
            return
        }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    @inline(__always)
    mutating func put(_ text: StaticString) {
        // A literal of several characters (every key) is its bytes where they lie; asking for
        // them through `withUTF8Buffer` cost a closure's call and checks, a dozen times a line.
        guard text.hasPointerRepresentation else { return text.withUTF8Buffer { put($0) } }
        let length = text.utf8CodeUnitCount
        guard length <= buffer.count - count else {
            overflowed = true
            return
        }
        guard let base = buffer.baseAddress else { return }
        (base + count).update(from: text.utf8Start, count: length)
        count += length
    }

    private mutating func put(byte: UInt8) {
        guard count < buffer.count else {
            overflowed = true
            return
        }
        buffer[count] = byte
        count += 1
    }

    /// Writes a member, `key` being its comma (or brace), name and colon; `false` when its text
    /// cannot be written here (see ``text(_:)``).
    mutating func member(_ key: StaticString, text value: String) -> Bool {
        put(key)
        return text(value)
    }

    /// Writes the member of an event's id: the one set as the text it is (``text(_:)``), else the
    /// hexadecimal digits of its hash, written here rather than made into a text first.
    mutating func member(_ key: StaticString, id event: PlaceEvent) -> Bool {
        if let assigned = event.assignedID { return member(key, text: assigned) }
        put(key)
        let length = StableID.textLength + 2
        guard length <= buffer.count - count, let base = buffer.baseAddress else {
            overflowed = true
            return true
        }
        base[count] = UInt8(ascii: "\"")
        let digits = UnsafeMutableBufferPointer(start: base + count + 1, count: StableID.textLength)
        event.stableID.write(into: digits)
        base[count + length - 1] = UInt8(ascii: "\"")
        count += length
        return true
    }

    /// Writes a member, or nothing for an absent number (the encoder leaves it out); `false` for
    /// a number that is not finite.
    mutating func member(_ key: StaticString, number value: Double?) -> Bool {
        guard let value else { return true }
        put(key)
        return number(value)
    }

    /// ``member(_:number:)``, writing again the text `reuse` holds when it is of the same number
    /// (bit for bit), and keeping the text written otherwise.
    mutating func member(
        _ key: StaticString, number value: Double?, reusing reuse: inout EventLineReuse.Written
    )
        -> Bool
    {
        guard let value else { return true }
        put(key)
        return reusing(&reuse, bits: value.bitPattern) { $0.number(value) }
    }

    /// Writes a member whose value is a time; `false` for a time written some other way.
    mutating func member(_ key: StaticString, time value: Date) -> Bool {
        put(key)
        return time(value)
    }

    /// ``member(_:time:)``, writing again the text `reuse` holds when it is of the same time (bit
    /// for bit), and keeping the text written otherwise.
    mutating func member(_ key: StaticString, time value: Date, reusing reuse: inout EventLineReuse.Written)
        -> Bool
    {
        put(key)
        return reusing(&reuse, bits: value.timeIntervalSinceReferenceDate.bitPattern) { $0.time(value) }
    }

    /// Writes the text `reuse` holds when it was written for a value of `bits`; otherwise writes
    /// with `write` and keeps what it wrote, with `bits`, in `reuse`. `false` when `write` fails.
    @inline(__always)
    private mutating func reusing(
        _ reuse: inout EventLineReuse.Written, bits: UInt64, _ write: (inout LineBuffer) -> Bool
    ) -> Bool {
        if !reuse.text.isEmpty, reuse.bits == bits {
            reuse.text.withUnsafeBufferPointer { put($0) }
            return true
        }
        let start = count
        guard write(&self) else { return false }
        if !overflowed {
            reuse.bits = bits
            reuse.text.removeAll(keepingCapacity: true)
            reuse.text.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<count]))
        }
        return true
    }

    /// Writes `"text"`; `false` when the text has a byte the encoder would escape (a quote, a
    /// backslash, a control character) or that is not ASCII.
    mutating func text(_ value: String) -> Bool {
        var value = value
        return value.withUTF8 { bytes in
            guard LineBuffer.isPlain(bytes) else { return false }
            put(byte: UInt8(ascii: "\""))
            put(bytes)
            put(byte: UInt8(ascii: "\""))
            return true
        }
    }

    /// Whether no byte needs escaping or is not ASCII: none is a quote, a backslash, below 0x20 or
    /// above 0x7E. Eight bytes at a time (a byte at a time cost about twenty instructions a byte,
    /// most of an event's line).
    static func isPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var index = 0
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while index + 8 <= count {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            // With no byte at or above 0x80, a byte is zero after the XOR exactly where it was a
            // quote (or a backslash), and borrows when 0x20 is taken from it exactly where it was
            // below 0x20; adding 1 to a byte of 0x7F sets its top bit. No byte carries or borrows
            // into the next unless one of them hit.
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let hits =
                word | (word &+ ones) | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
                | ((word &- ones &* 0x20) & ~word)
            if hits & highs != 0 { return false }
            index += 8
        }
        while index < count {
            let byte = base[index]
            if byte < 0x20 || byte >= 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                return false
            }
            index += 1
        }
        return true
    }

    /// Writes a number as the encoder does; `false` for one that is not finite.
    mutating func number(_ value: Double) -> Bool {
        guard value.isFinite else { return false }
        if let tenths = Self.tenths(value) {
            put(tenths: tenths)
            return true
        }
        let start = count
        value.write(to: &self)
        // The encoder leaves out a whole number's ".0".
        if count - start >= 2, buffer[count - 2] == UInt8(ascii: "."), buffer[count - 1] == UInt8(ascii: "0")
        {
            count -= 2
        }
        return true
    }

    /// `value` as a whole number of tenths, when it is the double nearest one, between 0.1 and
    /// 10^14 in size; `nil` otherwise. An event's distance is rounded to tenths and most
    /// accuracies are whole metres: such a number has at most 15 significant digits, and no two
    /// decimals of 15 digits or fewer give the same double, so its tenths are the shortest digits
    /// that give it back, the digits `description` writes (with no exponent in that range).
    static func tenths(_ value: Double) -> Int64? {
        let scaled = value * 10
        guard scaled.magnitude >= 1, scaled.magnitude < 1e15, scaled == scaled.rounded(.towardZero) else {
            return nil
        }
        let tenths = Int64(scaled)
        return Double(tenths) / 10 == value ? tenths : nil
    }

    /// Writes a number of tenths as `description` writes it, without a whole number's ".0".
    private mutating func put(tenths: Int64) {
        // At most 15 digits, a sign and a point.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = tenths.magnitude
            var index = digits.count
            let fraction = rest % 10
            rest /= 10
            if fraction != 0 {
                index -= 1
                digits[index] = UInt8(ascii: "0") + UInt8(fraction)
                index -= 1
                digits[index] = UInt8(ascii: ".")
            }
            repeat {
                index -= 1
                digits[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            if tenths < 0 {
                index -= 1
                digits[index] = UInt8(ascii: "-")
            }
            put(UnsafeBufferPointer(rebasing: digits[index...]))
        }
    }

    /// Writes `"time"` as ``EngineJSON/timestamp(_:)`` writes it; `false` for a time it writes
    /// some other way.
    mutating func time(_ date: Date) -> Bool {
        put(byte: UInt8(ascii: "\""))
        guard !overflowed,
            ISO8601Writer.writeUTCMilliseconds(
                date, into: UnsafeMutableBufferPointer(rebasing: buffer[count...]))
        else { return false }
        count += ISO8601Writer.utcMillisecondsLength
        put(byte: UInt8(ascii: "\""))
        return true
    }

    mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { put($0) }
    }

    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
        put(buffer)
    }
}
