import Foundation
import Geofence

/// Typed access to the members a scan located, with errors that name the member.
struct JSONFields {
    let bytes: UnsafeBufferPointer<UInt8>
    let tokens: UnsafeMutableBufferPointer<JSONToken>
    let context: LineContext

    func token(_ key: JSONKey) -> JSONToken { tokens[key.rawValue] }

    /// Whether the member is there with a value other than null.
    func has(_ key: JSONKey) -> Bool {
        let kind = tokens[key.rawValue].kind
        return kind != .absent && kind != .null
    }

    /// The first of `keys` that has a value: aliases are listed with the preferred name first.
    func first(_ preferred: JSONKey, _ alias: JSONKey) -> JSONKey? {
        has(preferred) ? preferred : has(alias) ? alias : nil
    }

    /// The value as written in the line, shortened, for messages.
    func quoted(_ token: JSONToken) -> String {
        let start = token.kind == .string ? token.start - 1 : token.start
        let end = token.kind == .string ? token.end + 1 : token.end
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        return text.count > 40 ? String(text.prefix(37)) + "..." : text
    }

    private func kindName(_ token: JSONToken) -> String {
        switch token.kind {
        case .absent, .null: "null"
        case .string: "the string \(quoted(token))"
        case .number: "the number \(quoted(token))"
        case .bool: "\(token.bool)"
        case .object: "an object"
        case .array: "an array"
        }
    }

    func missing(_ key: JSONKey, _ what: String) -> RecordError {
        context.error(field: key.name, "missing (\(what))", kind: .missingField)
    }

    /// The number in `key`, or `nil` when absent or null. With `lenient`, a string holding a
    /// number is accepted too (some OwnTracks clients and bridges quote their numbers).
    ///
    /// A number the scan has valued, and an absent member, are answered here, inline; anything
    /// else takes ``otherNumber(_:lenient:)``, out of line, so that the common case costs a few
    /// instructions rather than the frame of a function that can build an error message.
    @inline(__always)
    func number(_ key: JSONKey, lenient: Bool = false) throws(RecordError) -> Double? {
        let token = tokens[key.rawValue]
        if token.kind == .number, !token.value.isNaN { return token.value }
        if token.kind == .absent { return nil }
        return try otherNumber(key, lenient: lenient)
    }

    @inline(never)
    private func otherNumber(_ key: JSONKey, lenient: Bool) throws(RecordError) -> Double? {
        let token = tokens[key.rawValue]
        switch token.kind {
        case .absent, .null:
            return nil
        case .number:
            if !token.value.isNaN { return token.value }
            if let value = NumberText.parse(bytes, token.start, token.end) { return value }
        case .string where lenient && !token.hasEscapes:
            var start = token.start
            var end = token.end
            while start < end, bytes[start] == UInt8(ascii: " ") { start += 1 }
            while end > start, bytes[end - 1] == UInt8(ascii: " ") { end -= 1 }
            if let value = NumberText.parse(bytes, start, end) { return value }
        default:
            break
        }
        throw context.error(
            field: key.name, "expected a number, found \(kindName(token))", kind: .invalidField)
    }

    /// A number that must be finite if given (NaN and infinities only reach here through
    /// lenient strings).
    @inline(__always)
    func finiteNumber(_ key: JSONKey, lenient: Bool = false) throws(RecordError) -> Double? {
        guard let value = try number(key, lenient: lenient) else { return nil }
        guard value.isFinite else { throw notFinite(key) }
        return value
    }

    @inline(never)
    private func notFinite(_ key: JSONKey) -> RecordError {
        context.error(field: key.name, "\(quoted(token(key))) is not a finite number", kind: .invalidField)
    }

    /// The string in `key`, or `nil` when absent or null.
    func string(_ key: JSONKey) throws(RecordError) -> String? {
        let token = tokens[key.rawValue]
        switch token.kind {
        case .absent, .null:
            return nil
        case .string:
            return token.hasEscapes
                ? JSONStrings.decode(bytes, token.start, token.end)
                : String(
                    decoding: UnsafeBufferPointer(rebasing: bytes[token.start..<token.end]), as: UTF8.self)
        default:
            throw context.error(
                field: key.name, "expected a string, found \(kindName(token))", kind: .invalidField)
        }
    }

    /// The strings of the array in `key` (OwnTracks `inregions`), or `nil` when absent or null.
    /// The scanner has checked the array's syntax, so only its elements' kinds are judged here.
    func strings(_ key: JSONKey) throws(RecordError) -> [String]? {
        let token = tokens[key.rawValue]
        switch token.kind {
        case .absent, .null:
            return nil
        case .array:
            var result: [String] = []
            var i = token.start + 1
            let end = token.end - 1
            while i < end {
                let byte = bytes[i]
                if byte == UInt8(ascii: " ") || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\t")
                    || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
                {
                    i += 1
                    continue
                }
                guard byte == UInt8(ascii: "\"") else {
                    throw context.error(
                        field: key.name, "expected a list of strings, found \(quoted(token))",
                        kind: .invalidField)
                }
                let start = i + 1
                i = start
                var escaped = false
                while i < end, bytes[i] != UInt8(ascii: "\"") {
                    if bytes[i] == UInt8(ascii: "\\") {
                        escaped = true
                        i += 1
                    }
                    i += 1
                }
                result.append(
                    escaped
                        ? JSONStrings.decode(bytes, start, i)
                        : String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self))
                i += 1
            }
            return result
        default:
            throw context.error(
                field: key.name, "expected a list of strings, found \(kindName(token))", kind: .invalidField)
        }
    }

    /// Whether `key` holds exactly this ASCII string, compared without making a `String`.
    func stringEquals(_ key: JSONKey, _ expected: StaticString) -> Bool {
        let token = tokens[key.rawValue]
        guard token.kind == .string, !token.hasEscapes, token.end - token.start == expected.utf8CodeUnitCount
        else {
            return false
        }
        return expected.withUTF8Buffer { text in
            (0..<text.count).allSatisfy { bytes[token.start + $0] == text[$0] }
        }
    }

    /// The coordinate from two members, both required.
    func coordinate(
        _ latitudeKey: JSONKey, _ longitudeKey: JSONKey, lenient: Bool, what: String
    ) throws(RecordError) -> Coordinate {
        guard let latitude = try number(latitudeKey, lenient: lenient) else {
            throw missing(latitudeKey, what)
        }
        guard let longitude = try number(longitudeKey, lenient: lenient) else {
            throw missing(longitudeKey, what)
        }
        return try context.coordinate(
            latitude: latitude, latitudeText: quoted(token(latitudeKey)), latitudeField: latitudeKey.name,
            longitude: longitude, longitudeText: quoted(token(longitudeKey)),
            longitudeField: longitudeKey.name)
    }

    /// A time given as Unix milliseconds (a number) or ISO 8601 (a string), inside
    /// ``TimeBounds``. `sentinel` is a date that stands for "unknown" (a serialised CLVisit's
    /// `distantPast` arrival or `distantFuture` departure): a time within a year of it is returned
    /// as the sentinel itself instead of being refused.
    @inline(__always)
    func time(_ key: JSONKey, sentinel: Date? = nil) throws(RecordError) -> Date? {
        // Unix milliseconds in range, the usual case, inline; everything else (strings, the
        // sentinels, every error) out of line.
        let token = tokens[key.rawValue]
        if sentinel == nil, token.kind == .number, abs(token.value) >= Units.smallestPlausibleMilliseconds,
            TimeBounds.contains(token.value / 1000)
        {
            return Date(timeIntervalSince1970: token.value / 1000)
        }
        return try anyTime(key, sentinel: sentinel)
    }

    @inline(never)
    private func anyTime(_ key: JSONKey, sentinel: Date?) throws(RecordError) -> Date? {
        let token = tokens[key.rawValue]
        switch token.kind {
        case .absent, .null:
            return nil
        case .number:
            guard let milliseconds = try number(key) else { return nil }
            guard abs(milliseconds) >= Units.smallestPlausibleMilliseconds else {
                throw context.error(
                    field: key.name,
                    "\(quoted(token)) looks like Unix seconds; numbers here are Unix milliseconds",
                    kind: .invalidField)
            }
            return try context.date(
                seconds: milliseconds / 1000, text: quoted(token), field: key.name, sentinel: sentinel)
        case .string:
            if !token.hasEscapes,
                let seconds = TimeText.parse(bytes, token.start, token.end, zone: context.zone)
            {
                return try context.date(
                    seconds: seconds, text: quoted(token), field: key.name, sentinel: sentinel)
            }
            throw context.error(
                field: key.name, "\(quoted(token)) is not an ISO 8601 time", kind: .invalidField)
        default:
            throw context.error(
                field: key.name, "expected Unix milliseconds or an ISO 8601 string, found \(kindName(token))",
                kind: .invalidField)
        }
    }

    /// A time given as Unix seconds (OwnTracks `tst`, `wtst`).
    func unixSeconds(_ key: JSONKey) throws(RecordError) -> Date? {
        guard let seconds = try finiteNumber(key, lenient: true) else { return nil }
        return try context.date(seconds: seconds, text: quoted(token(key)), field: key.name)
    }

    /// A whole number (a floor); `2.0` is accepted, `2.5` is not.
    func integer(_ key: JSONKey) throws(RecordError) -> Int? {
        guard let value = try number(key) else { return nil }
        guard value.rounded() == value, abs(value) < 1e15 else {
            throw context.error(
                field: key.name, "\(quoted(token(key))) is not a whole number", kind: .invalidField)
        }
        return Int(value)
    }
}
