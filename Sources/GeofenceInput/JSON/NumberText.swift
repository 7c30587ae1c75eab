/// Reads a decimal number from UTF-8 bytes without making a `String` first.
///
/// Most coordinates have at most 16 significant digits and a small decimal exponent; for those
/// the value is computed exactly (Clinger's fast path: an integer below 2^53 times or divided by
/// an exact power of ten is rounded once, correctly). Anything else goes through the standard
/// library's parser, which is correct for every input but needs a `String`.
enum NumberText {
    /// Powers of ten that a `Double` holds exactly.
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// The number written in `bytes[start..<end]`, or `nil` if it is not one.
    ///
    /// Accepts an optional sign, digits with an optional fraction and exponent, and (through the
    /// standard library) `nan` and `inf`, so that such values reach the range checks and are
    /// reported as what they are rather than as "not a number".
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        var i = start
        guard i < end else { return nil }
        var negative = false
        if bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
            negative = bytes[i] == UInt8(ascii: "-")
            i += 1
        }
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var exponent = 0
        var sawDigit = false
        while i < end, let digit = digitValue(bytes[i]) {
            sawDigit = true
            if mantissa != 0 || digit != 0 { significantDigits += 1 }
            mantissa = mantissa &* 10 &+ UInt64(digit)
            i += 1
        }
        if i < end, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < end, let digit = digitValue(bytes[i]) {
                sawDigit = true
                if mantissa != 0 || digit != 0 { significantDigits += 1 }
                mantissa = mantissa &* 10 &+ UInt64(digit)
                exponent -= 1
                i += 1
            }
        }
        guard sawDigit else { return slowParse(bytes, start, end) }
        if i < end, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            var exponentNegative = false
            if i < end, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
                exponentNegative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            var written = 0
            var sawExponentDigit = false
            while i < end, let digit = digitValue(bytes[i]) {
                sawExponentDigit = true
                if written < 10_000 { written = written * 10 + digit }
                i += 1
            }
            guard sawExponentDigit else { return nil }
            exponent += exponentNegative ? -written : written
        }
        guard i == end else { return slowParse(bytes, start, end) }
        // 19 digits always fit in UInt64; past that the wrapping arithmetic above lost digits.
        guard significantDigits <= 19, mantissa <= 1 << 53, (-22...22).contains(exponent) else {
            return slowParse(bytes, start, end)
        }
        var value = Double(mantissa)
        if exponent < 0 {
            value /= exactPowersOfTen[-exponent]
        } else {
            value *= exactPowersOfTen[exponent]
        }
        return negative ? -value : value
    }

    private static func digitValue(_ byte: UInt8) -> Int? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte &- UInt8(ascii: "0")) : nil
    }

    private static func slowParse(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
    }
}
