/// Where one member's value sits in the line, and what kind of JSON value it is.
struct JSONToken {
    /// The kind of a JSON value; `absent` when the member was not in the object.
    enum Kind: UInt8 { case absent, string, number, bool, null, object, array }

    var kind: Kind
    /// For a string, the first byte after the opening quote; otherwise the value's first byte.
    var start: Int
    /// For a string, the closing quote; otherwise one past the value's last byte.
    var end: Int
    /// Whether a string contains backslash escapes (and so cannot be used byte for byte).
    var hasEscapes: Bool
    /// For a boolean, its value.
    var bool: Bool
    /// For a number the scanner read, its value (computed as its digits were checked, so that they
    /// are looked at once); NaN where the value was not computed, which no JSON number is.
    var value: Double = .nan

    static let absent = JSONToken(kind: .absent, start: 0, end: 0, hasEscapes: false, bool: false)
}

/// A syntax error found while scanning, at a byte offset in the line.
struct JSONSyntaxError: Error {
    var offset: Int
    var message: String
}

/// Scans one JSON object over UTF-8 bytes, recording where the members in ``JSONKey`` are.
///
/// The whole line is checked against the JSON grammar (nested objects and arrays included, up
/// to a depth of 64), so a line accepted here is one `JSONDecoder` would accept too; only the
/// values of known members are located for reading, and nothing is allocated on the way.
/// A member given twice counts with its last value.
struct FlatJSONScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var i: Int
    private let end: Int
    /// The slots this scan filled, a bit for each (see ``scan(_:start:end:into:filled:)``).
    private var filled: UInt64 = 0

    private init(bytes: UnsafeBufferPointer<UInt8>, start: Int, end: Int) {
        self.bytes = bytes
        self.i = start
        self.end = end
    }

    /// Scans `bytes[start..<end]`, which must hold exactly one object, into `tokens` (one slot
    /// per ``JSONKey``, reset to absent first).
    static func scan(
        _ bytes: UnsafeBufferPointer<UInt8>, start: Int, end: Int,
        into tokens: UnsafeMutableBufferPointer<JSONToken>
    ) throws(JSONSyntaxError) {
        var filled = UInt64.max
        try scan(bytes, start: start, end: end, into: tokens, filled: &filled)
    }

    /// ``scan(_:start:end:into:)`` for tokens reused from line to line: `filled` has a bit set for
    /// each slot (by ``JSONKey`` raw value) that may hold a token, and only those are reset;
    /// afterwards it has the bits of the slots this scan filled. A line names four or five of the
    /// thirty-odd keys, so resetting every slot would cost more than most of the scan.
    static func scan(
        _ bytes: UnsafeBufferPointer<UInt8>, start: Int, end: Int,
        into tokens: UnsafeMutableBufferPointer<JSONToken>, filled: inout UInt64
    ) throws(JSONSyntaxError) {
        try scanInFull(bytes, start: start, end: end, into: tokens, filled: &filled, spans: nil)
    }

    /// The full scan both entry points make: resets the slots `filled` names, scans, and leaves in
    /// `filled` the slots this scan filled, whatever it stops at; with `spans`, records where each
    /// member's value is.
    private static func scanInFull(
        _ bytes: UnsafeBufferPointer<UInt8>, start: Int, end: Int,
        into tokens: UnsafeMutableBufferPointer<JSONToken>, filled: inout UInt64,
        spans: UnsafeMutablePointer<[JSONShape.Span]>?
    ) throws(JSONSyntaxError) {
        reset(tokens, filled: filled)
        filled = 0
        var scanner = FlatJSONScanner(bytes: bytes, start: start, end: end)
        defer { filled = scanner.filled }
        try scanner.scanObject(into: tokens, spans: spans)
    }

    /// ``scan(_:start:end:into:filled:)`` for lines that usually share one layout: a line laid
    /// out as the last one `shape` learnt is read through it (its values scanned, the bytes between
    /// them compared), any other is scanned in full and its layout learnt. The tokens, and what is
    /// accepted or refused, are those of a full scan (see ``JSONShape``).
    static func scan(
        _ bytes: UnsafeBufferPointer<UInt8>, start: Int, end: Int,
        into tokens: UnsafeMutableBufferPointer<JSONToken>, filled: inout UInt64, shape: inout JSONShape
    ) throws(JSONSyntaxError) {
        if shape.isLearnt {
            var scanner = FlatJSONScanner(bytes: bytes, start: start, end: end)
            reset(tokens, filled: filled)
            let read = shape.literals.withUnsafeBufferPointer { literals in
                shape.members.withUnsafeBufferPointer { members in
                    scanner.scanShaped(
                        into: tokens, literals: literals, members: members, tailStart: shape.tailStart,
                        tailCount: shape.tailCount)
                }
            }
            filled = scanner.filled
            if read { return }
        }
        shape.beginFullScan()
        try withUnsafeMutablePointer(to: &shape.spans) { (spans) throws(JSONSyntaxError) in
            try scanInFull(bytes, start: start, end: end, into: tokens, filled: &filled, spans: spans)
        }
        shape.learn(bytes, start: start, end: end)
    }

    /// Sets the slots whose bits are set in `filled` back to absent.
    @inline(__always)
    private static func reset(_ tokens: UnsafeMutableBufferPointer<JSONToken>, filled: UInt64) {
        var stale = filled
        while stale != 0 {
            let index = stale.trailingZeroBitCount
            if index < tokens.count { tokens[index] = .absent }
            stale &= stale &- 1
        }
    }

    /// Reads the line through a learnt layout; `false` as soon as it differs from it or a value
    /// is not valid JSON (the caller then scans it in full, which says what is wrong).
    private mutating func scanShaped(
        into tokens: UnsafeMutableBufferPointer<JSONToken>, literals: UnsafeBufferPointer<UInt8>,
        members: UnsafeBufferPointer<JSONShape.Member>, tailStart: Int, tailCount: Int
    ) -> Bool {
        guard let literalBase = literals.baseAddress else { return false }
        for member in members {
            guard
                JSONShape.matches(
                    bytes, at: i, end: end, literalBase + member.literalStart, count: member.literalCount)
            else { return false }
            i += member.literalCount
            let token: JSONToken
            do throws(JSONSyntaxError) {
                token = try scanShapedValue()
            } catch {
                return false
            }
            if member.slot >= 0 {
                tokens[member.slot] = token
                filled |= 1 << UInt64(member.slot)
            }
        }
        return i + tailCount == end
            && JSONShape.matches(bytes, at: i, end: end, literalBase + tailStart, count: tailCount)
    }

    /// ``scanValue(depth:)`` for a member read through a learnt layout, with a number (most of a
    /// fix's values) read here. `scanValue` hands its token back through memory it wrote field by
    /// field, and the wider loads that then copied it into its slot waited for those writes to
    /// drain (`perf annotate` put a quarter of `LineDecoder.outcome`'s own time on them); a
    /// number's value comes back in a register, and its token is built where it is stored.
    @inline(__always)
    private mutating func scanShapedValue() throws(JSONSyntaxError) -> JSONToken {
        let start = i
        guard i < end, bytes[i] == UInt8(ascii: "-") || isDigit(bytes[i]) else {
            return try scanValue(depth: 0)
        }
        let value = try scanNumber()
        return JSONToken(kind: .number, start: start, end: i, hasEscapes: false, bool: false, value: value)
    }

    /// Scans the object at `i`; with `spans`, appends where each member's value is and its key's
    /// slot (for ``JSONShape/learn(_:start:end:)``).
    private mutating func scanObject(
        into tokens: UnsafeMutableBufferPointer<JSONToken>, spans: UnsafeMutablePointer<[JSONShape.Span]>?
    ) throws(JSONSyntaxError) {
        skipWhitespace()
        guard i < end, bytes[i] == UInt8(ascii: "{") else { throw fail("expected a JSON object") }
        i += 1
        skipWhitespace()
        if i < end, bytes[i] == UInt8(ascii: "}") {
            i += 1
        } else {
            while true {
                guard i < end, bytes[i] == UInt8(ascii: "\"") else {
                    throw fail("expected a member name in quotes")
                }
                let keyStart = i + 1
                let keyEscaped = try scanString()
                let keyEnd = i - 1
                skipWhitespace()
                guard i < end, bytes[i] == UInt8(ascii: ":") else {
                    throw fail("expected ':' after a member name")
                }
                i += 1
                skipWhitespace()
                let valueStart = i
                let token = try scanValue(depth: 0)
                let key: JSONKey? =
                    keyEscaped
                    ? JSONKey.lookUp(name: JSONStrings.decode(bytes, keyStart, keyEnd))
                    : JSONKey.lookUp(bytes, keyStart, keyEnd)
                if let key {
                    tokens[key.rawValue] = token
                    filled |= 1 << UInt64(key.rawValue)
                }
                spans?.pointee.append(
                    JSONShape.Span(valueStart: valueStart, valueEnd: i, slot: key?.rawValue ?? -1))
                skipWhitespace()
                guard i < end else { throw fail("unexpected end of line inside the object") }
                if bytes[i] == UInt8(ascii: ",") {
                    i += 1
                    skipWhitespace()
                    continue
                }
                guard bytes[i] == UInt8(ascii: "}") else { throw fail("expected ',' or '}' after a value") }
                i += 1
                break
            }
        }
        skipWhitespace()
        guard i == end else { throw fail("unexpected text after the object") }
    }

    /// Scans one value at `i` and returns where it is.
    private mutating func scanValue(depth: Int) throws(JSONSyntaxError) -> JSONToken {
        guard i < end else { throw fail("expected a value") }
        let start = i
        switch bytes[i] {
        case UInt8(ascii: "\""):
            let escaped = try scanString()
            return JSONToken(kind: .string, start: start + 1, end: i - 1, hasEscapes: escaped, bool: false)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let value = try scanNumber()
            return JSONToken(
                kind: .number, start: start, end: i, hasEscapes: false, bool: false, value: value)
        case UInt8(ascii: "t"):
            try scanLiteral("true")
            return JSONToken(kind: .bool, start: start, end: i, hasEscapes: false, bool: true)
        case UInt8(ascii: "f"):
            try scanLiteral("false")
            return JSONToken(kind: .bool, start: start, end: i, hasEscapes: false, bool: false)
        case UInt8(ascii: "n"):
            try scanLiteral("null")
            return JSONToken(kind: .null, start: start, end: i, hasEscapes: false, bool: false)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard depth < 64 else { throw fail("nested more than 64 deep") }
            let isObject = bytes[i] == UInt8(ascii: "{")
            try skipContainer(depth: depth)
            return JSONToken(
                kind: isObject ? .object : .array, start: start, end: i, hasEscapes: false, bool: false)
        default:
            throw fail("expected a value")
        }
    }

    /// Checks a nested object or array; its contents are not recorded.
    private mutating func skipContainer(depth: Int) throws(JSONSyntaxError) {
        let isObject = bytes[i] == UInt8(ascii: "{")
        let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
        i += 1
        skipWhitespace()
        if i < end, bytes[i] == close {
            i += 1
            return
        }
        while true {
            if isObject {
                guard i < end, bytes[i] == UInt8(ascii: "\"") else {
                    throw fail("expected a member name in quotes")
                }
                _ = try scanString()
                skipWhitespace()
                guard i < end, bytes[i] == UInt8(ascii: ":") else {
                    throw fail("expected ':' after a member name")
                }
                i += 1
                skipWhitespace()
            }
            _ = try scanValue(depth: depth + 1)
            skipWhitespace()
            guard i < end else {
                throw fail("unexpected end of line inside \(isObject ? "an object" : "an array")")
            }
            if bytes[i] == UInt8(ascii: ",") {
                i += 1
                skipWhitespace()
                continue
            }
            guard bytes[i] == close else {
                throw fail(
                    isObject ? "expected ',' or '}' after a value" : "expected ',' or ']' after a value")
            }
            i += 1
            return
        }
    }

    /// Moves past a string starting at the quote at `i`; returns whether it had escapes.
    private mutating func scanString() throws(JSONSyntaxError) -> Bool {
        i += 1
        var escaped = false
        skipPlainStringBytes()
        while i < end {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                i += 1
                return escaped
            }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                guard i + 1 < end else { break }
                switch bytes[i + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                    UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    i += 2
                case UInt8(ascii: "u"):
                    guard i + 6 <= end, (i + 2..<i + 6).allSatisfy({ JSONStrings.hexValue(bytes[$0]) != nil })
                    else {
                        throw fail("bad \\u escape in a string")
                    }
                    i += 6
                default:
                    throw fail("bad escape in a string")
                }
                continue
            }
            guard byte >= 0x20 else { throw fail("control character in a string") }
            i += 1
        }
        throw fail("unterminated string")
    }

    /// Moves past bytes that need no look of their own inside a string (neither a quote, a
    /// backslash nor a control character), eight at a time: most strings are names and
    /// timestamps with none of those until their closing quote.
    private mutating func skipPlainStringBytes() {
        guard let base = bytes.baseAddress else { return }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while i + 8 <= end {
            let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            // A byte of the word is zero after the XOR exactly where it was a quote (or a
            // backslash); a byte below 0x20 borrows when 0x20 is taken from it. The tests may also
            // flag a byte next to a real hit, which only ends the fast path early.
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let hits =
                ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
                | ((word &- ones &* 0x20) & ~word)
            if hits & highs != 0 { return }
            i += 8
        }
    }

    /// Moves past a number at `i`, checking it against JSON's grammar, and returns its value: the
    /// digits are gathered as they are checked (eight at a time where they can be), and the value
    /// composed from them (``NumberText/compose(_:exponent:negative:significantDigits:)``), the
    /// text parsed exactly only where that cannot say.
    private mutating func scanNumber() throws(JSONSyntaxError) -> Double {
        // The position is kept in a local while the digits are read, and stored once.
        var j = i
        defer { i = j }
        let start = j
        let negative = bytes[j] == UInt8(ascii: "-")
        if negative { j += 1 }
        guard j < end, isDigit(bytes[j]) else { throw fail(at: j, "expected a digit") }
        var mantissa: UInt64 = 0
        // JSON allows no leading zero but the single one before a fraction ("0.00012"), whose
        // fraction's own leading zeros carry no digit of the value either.
        var leadingZeros = 0
        var digits = 0
        if bytes[j] == UInt8(ascii: "0") {
            j += 1
            leadingZeros = 1
            digits = 1
        } else {
            let integerStart = j
            NumberText.accumulateDigits(bytes, &j, end, into: &mantissa)
            digits = j - integerStart
        }
        var exponent = 0
        if j < end, bytes[j] == UInt8(ascii: ".") {
            j += 1
            let fractionStart = j
            NumberText.accumulateDigits(bytes, &j, end, into: &mantissa)
            let fractionDigits = j - fractionStart
            guard fractionDigits > 0 else { throw fail(at: j, "expected a digit after '.'") }
            if leadingZeros == 1 {
                while leadingZeros <= fractionDigits,
                    bytes[fractionStart + leadingZeros - 1] == UInt8(ascii: "0")
                {
                    leadingZeros += 1
                }
            }
            digits += fractionDigits
            exponent = -fractionDigits
        }
        if j < end, bytes[j] == UInt8(ascii: "e") || bytes[j] == UInt8(ascii: "E") {
            j += 1
            guard let written = NumberText.accumulateExponent(bytes, &j, end) else {
                throw fail(at: j, "expected a digit in the exponent")
            }
            exponent += written
        }
        return NumberText.compose(
            mantissa, exponent: exponent, negative: negative, significantDigits: digits - leadingZeros)
            ?? NumberText.slowParse(bytes, start, j) ?? .nan
    }

    private mutating func scanLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
        let count = literal.utf8CodeUnitCount
        guard end - i >= count else { throw fail("expected a value") }
        let matches = literal.withUTF8Buffer { text in
            (0..<count).allSatisfy { bytes[i + $0] == text[$0] }
        }
        guard matches else { throw fail("expected a value") }
        i += count
    }

    private mutating func skipWhitespace() {
        while i < end {
            switch bytes[i] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): i += 1
            default: return
            }
        }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private func fail(_ message: String) -> JSONSyntaxError { JSONSyntaxError(offset: i, message: message) }

    private func fail(at offset: Int, _ message: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: offset, message: message)
    }
}

/// Turns the bytes of a JSON string (between its quotes) into a `String`.
enum JSONStrings {
    /// The string written in `bytes[start..<end]`, escapes resolved; the scanner has already
    /// checked the escapes, so anything odd left (a lone surrogate) becomes U+FFFD.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(end - start)
        var i = start
        while i < end {
            let byte = bytes[i]
            guard byte == UInt8(ascii: "\\"), i + 1 < end else {
                out.append(byte)
                i += 1
                continue
            }
            let escape = bytes[i + 1]
            i += 2
            switch escape {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(bytes, i, end) ?? 0xFFFD
                i += 4
                if (0xD800..<0xDC00).contains(scalar) {
                    // A high surrogate: pair it with the low one that should follow.
                    if i + 6 <= end, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u"),
                        let low = hex4(bytes, i + 2, end), (0xDC00..<0xE000).contains(low)
                    {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                    } else {
                        scalar = 0xFFFD
                    }
                } else if (0xDC00..<0xE000).contains(scalar) {
                    scalar = 0xFFFD
                }
                let character = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                out.append(contentsOf: String(character).utf8)
            default: out.append(escape)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The value of a hexadecimal digit.
    static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private static func hex4(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> UInt32? {
        guard start + 4 <= end else { return nil }
        var value: UInt32 = 0
        for index in start..<start + 4 {
            guard let digit = hexValue(bytes[index]) else { return nil }
            value = value << 4 | digit
        }
        return value
    }
}
