import Foundation
import Geofence

/// The members of one JSON object in a record, looked up by name, with typed readers whose
/// errors name the member (`properties.timestamp`) and the line it is on.
///
/// The record's text is checked against JSON's grammar once, by ``FlatJSONScanner``, before any
/// object in it is made, so the walk here trusts the syntax. Nested objects (a GeoJSON
/// Feature's `geometry` and `properties`) are read with ``object(_:)``.
struct JSONObject {
    /// The record's text; valid for as long as the object is used.
    let bytes: UnsafeBufferPointer<UInt8>
    /// Where the record is, for errors.
    let source: String
    /// The line the record's first byte is on.
    let firstLine: Int
    /// The zone for times written without one.
    let zone: LocalZone
    /// The member path to this object (`properties.`), put before member names in errors.
    let path: String
    private var members: [(nameStart: Int, nameEnd: Int, value: JSONToken)] = []

    /// Checks a whole record's syntax and returns its top-level object. `tokens` (one slot per
    /// ``JSONKey``) receives the members the line readers know, so an OwnTracks or NDJSON
    /// record found inside a document is built by the same code as a line.
    static func record(
        _ bytes: UnsafeBufferPointer<UInt8>, tokens: UnsafeMutableBufferPointer<JSONToken>, source: String,
        line: Int, zone: LocalZone
    ) -> Result<JSONObject, RecordError> {
        do throws(JSONSyntaxError) {
            try FlatJSONScanner.scan(bytes, start: 0, end: bytes.count, into: tokens)
        } catch {
            let place = Self.position(of: error.offset, in: bytes, firstLine: line)
            // A column on the record's first line would count from the record, not the line.
            return .failure(
                RecordError(
                    source: source, line: place.line, column: place.line == line ? nil : place.column,
                    message: error.message, kind: .malformed))
        }
        return .success(JSONObject(bytes: bytes, start: 0, source: source, line: line, zone: zone, path: ""))
    }

    /// The top-level object of text already known to be valid JSON, for looking at its members.
    static func walk(_ bytes: UnsafeBufferPointer<UInt8>) -> JSONObject {
        JSONObject(bytes: bytes, start: 0, source: "", line: 1, zone: LocalZone(.gmt), path: "")
    }

    private init(
        bytes: UnsafeBufferPointer<UInt8>, start: Int, source: String, line: Int, zone: LocalZone,
        path: String
    ) {
        self.bytes = bytes
        self.source = source
        self.firstLine = line
        self.zone = zone
        self.path = path
        var i = start
        skipSpace(&i)
        i += 1  // {
        while true {
            skipSpace(&i)
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { break }
            let nameStart = i + 1
            i = stringEnd(from: nameStart)
            let nameEnd = i
            i += 1
            skipSpace(&i)
            i += 1  // :
            skipSpace(&i)
            let value = valueToken(at: &i)
            members.append((nameStart, nameEnd, value))
            skipSpace(&i)
            guard i < bytes.count, bytes[i] == UInt8(ascii: ",") else { break }
            i += 1
        }
    }

    private func skipSpace(_ i: inout Int) {
        while i < bytes.count, LineBytes.isSpace(bytes[i]) { i += 1 }
    }

    /// The index of the closing quote of a string whose text starts at `start`.
    private func stringEnd(from start: Int) -> Int {
        var i = start
        while i < bytes.count, bytes[i] != UInt8(ascii: "\"") {
            i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1
        }
        return i
    }

    private func valueToken(at i: inout Int) -> JSONToken {
        let start = i
        let first = bytes[i]
        if first == UInt8(ascii: "\"") {
            let end = stringEnd(from: i + 1)
            let escaped = bytes[(i + 1)..<end].contains(UInt8(ascii: "\\"))
            i = end + 1
            return JSONToken(kind: .string, start: start + 1, end: end, hasEscapes: escaped, bool: false)
        }
        var finder = JSONValueEnd()
        _ = finder.begin(first)
        i += 1
        while i < bytes.count {
            let step = finder.next(bytes[i])
            if step == .endedBefore { break }
            i += 1
            if step == .ended { break }
        }
        let kind: JSONToken.Kind =
            switch first {
            case UInt8(ascii: "{"): .object
            case UInt8(ascii: "["): .array
            case UInt8(ascii: "t"), UInt8(ascii: "f"): .bool
            case UInt8(ascii: "n"): .null
            default: .number
            }
        return JSONToken(
            kind: kind, start: start, end: i, hasEscapes: false, bool: first == UInt8(ascii: "t"))
    }

    /// The names of the members, in order (for messages that say what an object looked like).
    var names: [String] {
        members.map {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[$0.nameStart..<$0.nameEnd]), as: UTF8.self)
        }
    }

    /// The value of the member `name` (the last one, if given twice), or an absent token.
    func token(_ name: StaticString) -> JSONToken {
        name.withUTF8Buffer { wanted in
            for member in members.reversed() where member.nameEnd - member.nameStart == wanted.count {
                if (0..<wanted.count).allSatisfy({ bytes[member.nameStart + $0] == wanted[$0] }) {
                    return member.value
                }
            }
            return .absent
        }
    }

    /// The value of the member named by a run-time string.
    func token(name: String) -> JSONToken {
        let wanted = Array(name.utf8)
        for member in members.reversed() where member.nameEnd - member.nameStart == wanted.count {
            if (0..<wanted.count).allSatisfy({ bytes[member.nameStart + $0] == wanted[$0] }) {
                return member.value
            }
        }
        return .absent
    }

    /// Whether the member is there with a value other than null.
    func has(_ name: StaticString) -> Bool {
        let kind = token(name).kind
        return kind != .absent && kind != .null
    }

    /// The first of several names that has a value other than null, for fields that trackers
    /// spell in different ways.
    func first(_ names: StaticString...) -> StaticString? {
        names.first { has($0) }
    }

    /// The nested object in `name`, or `nil` when absent or null.
    func object(_ name: StaticString) throws(RecordError) -> JSONObject? {
        let value = token(name)
        switch value.kind {
        case .absent, .null: return nil
        case .object:
            return JSONObject(
                bytes: bytes, start: value.start, source: source, line: firstLine, zone: zone,
                path: path + "\(name).")
        default:
            throw error(name, at: value, "expected an object, found \(describe(value))", .invalidField)
        }
    }

    /// The numbers of an array member such as GeoJSON `coordinates`; `nil` when absent or null.
    func numbers(_ name: StaticString) throws(RecordError) -> [Double]? {
        let value = token(name)
        switch value.kind {
        case .absent, .null: return nil
        case .array:
            var result: [Double] = []
            var i = value.start + 1
            while i < value.end {
                skipSpace(&i)
                if bytes[i] == UInt8(ascii: "]") { break }
                let element = valueToken(at: &i)
                guard element.kind == .number,
                    let number = NumberText.parse(bytes, element.start, element.end)
                else {
                    throw error(
                        name, at: element, "expected numbers, found \(describe(element))", .invalidField)
                }
                result.append(number)
                skipSpace(&i)
                if i < value.end, bytes[i] == UInt8(ascii: ",") { i += 1 }
            }
            return result
        default:
            throw error(
                name, at: value, "expected an array of numbers, found \(describe(value))", .invalidField)
        }
    }

    /// The number in `name`; with `lenient`, a string holding a number is accepted too (Takeout
    /// writes `timestampMs` as a string, some trackers quote every number).
    func number(_ name: StaticString, lenient: Bool = false) throws(RecordError) -> Double? {
        let value = token(name)
        switch value.kind {
        case .absent, .null:
            return nil
        case .number:
            if let number = NumberText.parse(bytes, value.start, value.end) { return number }
        case .string where lenient && !value.hasEscapes:
            if value.start == value.end { return nil }
            if let number = NumberText.parse(bytes, value.start, value.end) { return number }
        default:
            break
        }
        throw error(name, at: value, "expected a number, found \(describe(value))", .invalidField)
    }

    /// A number that must be finite when given.
    func finiteNumber(_ name: StaticString, lenient: Bool = false) throws(RecordError) -> Double? {
        guard let number = try number(name, lenient: lenient) else { return nil }
        guard number.isFinite else {
            throw error(name, at: token(name), "\(quoted(token(name))) is not a finite number", .invalidField)
        }
        return number
    }

    /// The string in `name`, or `nil` when absent, null or empty. With `lenient`, a number is
    /// given as it was written (trackintel's `user_id` is a number, a device name elsewhere).
    func string(_ name: StaticString, lenient: Bool = false) throws(RecordError) -> String? {
        let value = token(name)
        switch value.kind {
        case .absent, .null:
            return nil
        case .string:
            if value.start == value.end { return nil }
            return value.hasEscapes
                ? JSONStrings.decode(bytes, value.start, value.end)
                : String(
                    decoding: UnsafeBufferPointer(rebasing: bytes[value.start..<value.end]), as: UTF8.self)
        case .number where lenient:
            return String(
                decoding: UnsafeBufferPointer(rebasing: bytes[value.start..<value.end]), as: UTF8.self)
        default:
            throw error(name, at: value, "expected a string, found \(describe(value))", .invalidField)
        }
    }

    /// Whether `name` holds exactly this string.
    func stringEquals(_ name: StaticString, _ expected: StaticString) -> Bool {
        let value = token(name)
        guard value.kind == .string, !value.hasEscapes, value.end - value.start == expected.utf8CodeUnitCount
        else { return false }
        return expected.withUTF8Buffer { text in
            (0..<text.count).allSatisfy { bytes[value.start + $0] == text[$0] }
        }
    }

    /// A time written as ISO 8601 text, or as a number of Unix milliseconds (from 10^11 up) or
    /// seconds (below); a string of digits counts as that number. Times outside ``TimeBounds``
    /// are refused where they are read, as in every reader.
    func time(_ name: StaticString) throws(RecordError) -> Date? {
        let value = token(name)
        var seconds: Double?
        switch value.kind {
        case .absent, .null:
            return nil
        case .string where !value.hasEscapes:
            seconds = TimeText.parse(bytes, value.start, value.end, zone: zone)
            if seconds == nil, let number = NumberText.parse(bytes, value.start, value.end), number.isFinite {
                seconds = Self.unixSeconds(number)
            }
        case .number:
            if let number = NumberText.parse(bytes, value.start, value.end), number.isFinite {
                seconds = Self.unixSeconds(number)
            }
        default:
            break
        }
        guard let seconds else {
            throw error(
                name, at: value, "\(quoted(value)) is not an ISO 8601 time or a Unix time", .invalidField)
        }
        return try context(at: value).date(seconds: seconds, text: quoted(value), field: path + "\(name)")
    }

    /// Unix seconds from a number of seconds below 10^11 (the year 5138), milliseconds from there up.
    static func unixSeconds(_ number: Double) -> Double {
        abs(number) >= Units.smallestPlausibleMilliseconds ? number / 1000 : number
    }

    /// The coordinate from two numbers already read, with range errors naming the members.
    func coordinate(
        latitude: Double, _ latitudeName: StaticString, longitude: Double, _ longitudeName: StaticString
    ) throws(RecordError) -> Coordinate {
        try context(at: token(latitudeName)).coordinate(
            latitude: latitude, latitudeText: String(latitude), latitudeField: path + "\(latitudeName)",
            longitude: longitude, longitudeText: String(longitude), longitudeField: path + "\(longitudeName)")
    }

    /// An error about the member `name`, on the line where its value is.
    func error(_ name: StaticString, at value: JSONToken? = nil, _ message: String, _ kind: RecordError.Kind)
        -> RecordError
    {
        let token = value ?? token(name)
        let line =
            token.kind == .absent
            ? firstLine : Self.position(of: token.start, in: bytes, firstLine: firstLine).line
        return RecordError(source: source, line: line, field: path + "\(name)", message: message, kind: kind)
    }

    /// An error about the object as a whole, on its first line.
    func error(_ message: String, _ kind: RecordError.Kind) -> RecordError {
        RecordError(source: source, line: firstLine, message: message, kind: kind)
    }

    /// A line context for the line a value is on, for the shared coordinate checks.
    func context(at value: JSONToken) -> LineContext {
        let line =
            value.kind == .absent
            ? firstLine : Self.position(of: value.start, in: bytes, firstLine: firstLine).line
        return LineContext(source: source, line: line, zone: zone, defaultDeviceId: nil)
    }

    /// The value as written, shortened, for messages.
    func quoted(_ value: JSONToken) -> String {
        guard value.kind != .absent else { return "nothing" }
        let start = value.kind == .string ? value.start - 1 : value.start
        let end = value.kind == .string ? value.end + 1 : value.end
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        return text.count > 40 ? String(text.prefix(37)) + "..." : text
    }

    private func describe(_ value: JSONToken) -> String {
        switch value.kind {
        case .absent, .null: "null"
        case .string: "the string \(quoted(value))"
        case .number: "the number \(quoted(value))"
        case .bool: "\(value.bool)"
        case .object: "an object"
        case .array: "an array"
        }
    }

    /// Line and column (1-based, in characters) of a byte offset in a record.
    static func position(of offset: Int, in bytes: UnsafeBufferPointer<UInt8>, firstLine: Int) -> (
        line: Int, column: Int
    ) {
        var line = firstLine
        var lineStart = 0
        for index in 0..<min(offset, bytes.count) where bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        var column = 1
        for index in lineStart..<min(offset, bytes.count) where bytes[index] & 0xC0 != 0x80 { column += 1 }
        return (line, column)
    }
}
