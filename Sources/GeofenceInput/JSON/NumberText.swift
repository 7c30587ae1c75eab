/// Reads a decimal number from UTF-8 bytes without making a `String` first.
///
/// Coordinates and times have at most 19 significant digits and a small decimal exponent. With at
/// most 15-16 digits the value is computed exactly (Clinger's fast path: an integer below 2^53
/// times or divided by an exact power of ten is rounded once, correctly). With 17 to 19 digits (what
/// `Double.description` and most JSON writers print for a coordinate) it is computed with the
/// Eisel-Lemire method: the 64-bit digits times a 128-bit approximation of the power of five give
/// the correctly rounded double, or say that they cannot decide. Anything else (more digits, large
/// exponents, the undecidable cases, `nan`, `inf`) goes through the standard library's parser,
/// which is correct for every input but needs a `String`.
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
        var exponent = 0
        let integerStart = i
        accumulateDigits(bytes, &i, end, into: &mantissa)
        let integerDigits = i - integerStart
        var fractionStart = i
        var fractionDigits = 0
        if i < end, bytes[i] == UInt8(ascii: ".") {
            i += 1
            fractionStart = i
            accumulateDigits(bytes, &i, end, into: &mantissa)
            fractionDigits = i - fractionStart
            exponent = -fractionDigits
        }
        let sawDigit = integerDigits + fractionDigits > 0
        // Leading zeros (of "0.00012", say) carry no digit of the value.
        var leadingZeros = 0
        while leadingZeros < integerDigits, bytes[integerStart + leadingZeros] == UInt8(ascii: "0") {
            leadingZeros += 1
        }
        if leadingZeros == integerDigits {
            var index = fractionStart
            while index < fractionStart + fractionDigits, bytes[index] == UInt8(ascii: "0") {
                leadingZeros += 1
                index += 1
            }
        }
        let significantDigits = integerDigits + fractionDigits - leadingZeros
        guard sawDigit else { return slowParse(bytes, start, end) }
        if i < end, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            guard let written = accumulateExponent(bytes, &i, end) else { return nil }
            exponent += written
        }
        guard i == end else { return slowParse(bytes, start, end) }
        return compose(mantissa, exponent: exponent, negative: negative, significantDigits: significantDigits)
            ?? slowParse(bytes, start, end)
    }

    /// The value of `mantissa` x 10^`exponent` (negated if `negative`), correctly rounded, from
    /// the digits a scan gathered; `nil` when the fast methods cannot say (more than 19
    /// significant digits, which the wrapping mantissa lost, or a case Eisel-Lemire leaves open),
    /// and the caller parses the text exactly.
    static func compose(_ mantissa: UInt64, exponent: Int, negative: Bool, significantDigits: Int) -> Double?
    {
        // 19 digits always fit in UInt64; past that the wrapping arithmetic lost digits.
        guard significantDigits <= 19 else { return nil }
        if mantissa == 0 { return negative ? -0.0 : 0.0 }
        guard mantissa <= 1 << 53, (-22...22).contains(exponent) else {
            guard let value = eiselLemire(mantissa, exponent) else { return nil }
            return negative ? -value : value
        }
        var value = Double(mantissa)
        if exponent < 0 {
            value /= exactPowersOfTen[-exponent]
        } else {
            value *= exactPowersOfTen[exponent]
        }
        return negative ? -value : value
    }

    /// Reads an exponent's optional sign and digits at `i` (just after the `e`); `nil` when no
    /// digit follows. Exponents are capped near 10,000, far past any that gives a finite non-zero
    /// double, so a long run of digits cannot overflow.
    static func accumulateExponent(_ bytes: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ end: Int) -> Int? {
        var negative = false
        if i < end, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
            negative = bytes[i] == UInt8(ascii: "-")
            i += 1
        }
        var written = 0
        var sawDigit = false
        while i < end, let digit = digitValue(bytes[i]) {
            sawDigit = true
            if written < 10_000 { written = written * 10 + digit }
            i += 1
        }
        guard sawDigit else { return nil }
        return negative ? -written : written
    }

    /// `digits` x 10^`exponent` correctly rounded, or `nil` when the exponent is outside the table
    /// or the product cannot tell which way to round (then the caller parses the text exactly).
    ///
    /// The method (Lemire, "Number Parsing at a Gigabyte per Second", 2021): normalise the digits
    /// so their top bit is set, multiply by the 128-bit power of five (a second 64-bit product only
    /// when the first leaves the rounding bits in doubt), take the top 54 bits and round to nearest
    /// even; the binary exponent comes from log2(10) x q in fixed point.
    static func eiselLemire(_ digits: UInt64, _ exponent: Int) -> Double? {
        let index = exponent + powersOfFiveBias
        guard digits != 0, index >= 0, index < powersOfFive.count else { return nil }
        let power = powersOfFive[index]
        let leadingZeros = digits.leadingZeroBitCount
        let normalised = digits << UInt64(leadingZeros)
        var (high, low) = normalised.multipliedFullWidth(by: power.high)
        // 52 stored bits + the implicit one + a rounding bit + one bit of slack: the bits below
        // those decide nothing unless they are all ones, where a carry from the low half could
        // still arrive.
        let precisionMask: UInt64 = .max >> 55
        if high & precisionMask == precisionMask {
            let (carryHigh, _) = normalised.multipliedFullWidth(by: power.low)
            let (sum, overflow) = low.addingReportingOverflow(carryHigh)
            low = sum
            if overflow { high &+= 1 }
        }
        // Outside the range where the 128-bit product is known to be exact enough, an all-ones
        // low half is the one case the product cannot settle.
        if low == .max, exponent < -27 || exponent > 55 { return nil }
        let upperBit = Int(high >> 63)
        let shift = UInt64(upperBit + 64 - 52 - 3)
        var significand = high >> shift
        var binaryExponent = (((152_170 + 65_536) * exponent) >> 16) + 63 + upperBit - leadingZeros + 1023
        // Subnormal results never reach here from the table's range; let the exact parser say.
        guard binaryExponent > 0 else { return nil }
        // Exactly halfway between two doubles (possible only for small exponents): round to even.
        if low <= 1, (-4...23).contains(exponent), significand & 3 == 1, significand << shift == high {
            significand &= ~1
        }
        significand += significand & 1
        significand >>= 1
        if significand >= 2 << 52 {
            significand = 1 << 52
            binaryExponent += 1
        }
        significand &= ~(1 << 52)
        guard binaryExponent < 0x7FF else { return nil }
        return Double(bitPattern: significand | UInt64(binaryExponent) << 52)
    }

    private static let powersOfFiveBias = 40

    /// 128-bit approximations of 5^q for q in -40...40, normalised so the top bit is set
    /// (generated with Python's integers, the same construction as the fast_float tables:
    /// 5^q truncated for q >= 0; 2^b / 5^-q plus one for q < 0).
    private static let powersOfFive: [(high: UInt64, low: UInt64)] = [
        (0x8b61313bbabce2c6, 0x2323ac4b3b3da015),  // -40
        (0xae397d8aa96c1b77, 0xabec975e0a0d081a),  // -39
        (0xd9c7dced53c72255, 0x96e7bd358c904a21),  // -38
        (0x881cea14545c7575, 0x7e50d64177da2e54),  // -37
        (0xaa242499697392d2, 0xdde50bd1d5d0b9e9),  // -36
        (0xd4ad2dbfc3d07787, 0x955e4ec64b44e864),  // -35
        (0x84ec3c97da624ab4, 0xbd5af13bef0b113e),  // -34
        (0xa6274bbdd0fadd61, 0xecb1ad8aeacdd58e),  // -33
        (0xcfb11ead453994ba, 0x67de18eda5814af2),  // -32
        (0x81ceb32c4b43fcf4, 0x80eacf948770ced7),  // -31
        (0xa2425ff75e14fc31, 0xa1258379a94d028d),  // -30
        (0xcad2f7f5359a3b3e, 0x096ee45813a04330),  // -29
        (0xfd87b5f28300ca0d, 0x8bca9d6e188853fc),  // -28
        (0x9e74d1b791e07e48, 0x775ea264cf55347e),  // -27
        (0xc612062576589dda, 0x95364afe032a819e),  // -26
        (0xf79687aed3eec551, 0x3a83ddbd83f52205),  // -25
        (0x9abe14cd44753b52, 0xc4926a9672793543),  // -24
        (0xc16d9a0095928a27, 0x75b7053c0f178294),  // -23
        (0xf1c90080baf72cb1, 0x5324c68b12dd6339),  // -22
        (0x971da05074da7bee, 0xd3f6fc16ebca5e04),  // -21
        (0xbce5086492111aea, 0x88f4bb1ca6bcf585),  // -20
        (0xec1e4a7db69561a5, 0x2b31e9e3d06c32e6),  // -19
        (0x9392ee8e921d5d07, 0x3aff322e62439fd0),  // -18
        (0xb877aa3236a4b449, 0x09befeb9fad487c3),  // -17
        (0xe69594bec44de15b, 0x4c2ebe687989a9b4),  // -16
        (0x901d7cf73ab0acd9, 0x0f9d37014bf60a11),  // -15
        (0xb424dc35095cd80f, 0x538484c19ef38c95),  // -14
        (0xe12e13424bb40e13, 0x2865a5f206b06fba),  // -13
        (0x8cbccc096f5088cb, 0xf93f87b7442e45d4),  // -12
        (0xafebff0bcb24aafe, 0xf78f69a51539d749),  // -11
        (0xdbe6fecebdedd5be, 0xb573440e5a884d1c),  // -10
        (0x89705f4136b4a597, 0x31680a88f8953031),  // -9
        (0xabcc77118461cefc, 0xfdc20d2b36ba7c3e),  // -8
        (0xd6bf94d5e57a42bc, 0x3d32907604691b4d),  // -7
        (0x8637bd05af6c69b5, 0xa63f9a49c2c1b110),  // -6
        (0xa7c5ac471b478423, 0x0fcf80dc33721d54),  // -5
        (0xd1b71758e219652b, 0xd3c36113404ea4a9),  // -4
        (0x83126e978d4fdf3b, 0x645a1cac083126ea),  // -3
        (0xa3d70a3d70a3d70a, 0x3d70a3d70a3d70a4),  // -2
        (0xcccccccccccccccc, 0xcccccccccccccccd),  // -1
        (0x8000000000000000, 0x0000000000000000),  // 0
        (0xa000000000000000, 0x0000000000000000),  // 1
        (0xc800000000000000, 0x0000000000000000),  // 2
        (0xfa00000000000000, 0x0000000000000000),  // 3
        (0x9c40000000000000, 0x0000000000000000),  // 4
        (0xc350000000000000, 0x0000000000000000),  // 5
        (0xf424000000000000, 0x0000000000000000),  // 6
        (0x9896800000000000, 0x0000000000000000),  // 7
        (0xbebc200000000000, 0x0000000000000000),  // 8
        (0xee6b280000000000, 0x0000000000000000),  // 9
        (0x9502f90000000000, 0x0000000000000000),  // 10
        (0xba43b74000000000, 0x0000000000000000),  // 11
        (0xe8d4a51000000000, 0x0000000000000000),  // 12
        (0x9184e72a00000000, 0x0000000000000000),  // 13
        (0xb5e620f480000000, 0x0000000000000000),  // 14
        (0xe35fa931a0000000, 0x0000000000000000),  // 15
        (0x8e1bc9bf04000000, 0x0000000000000000),  // 16
        (0xb1a2bc2ec5000000, 0x0000000000000000),  // 17
        (0xde0b6b3a76400000, 0x0000000000000000),  // 18
        (0x8ac7230489e80000, 0x0000000000000000),  // 19
        (0xad78ebc5ac620000, 0x0000000000000000),  // 20
        (0xd8d726b7177a8000, 0x0000000000000000),  // 21
        (0x878678326eac9000, 0x0000000000000000),  // 22
        (0xa968163f0a57b400, 0x0000000000000000),  // 23
        (0xd3c21bcecceda100, 0x0000000000000000),  // 24
        (0x84595161401484a0, 0x0000000000000000),  // 25
        (0xa56fa5b99019a5c8, 0x0000000000000000),  // 26
        (0xcecb8f27f4200f3a, 0x0000000000000000),  // 27
        (0x813f3978f8940984, 0x4000000000000000),  // 28
        (0xa18f07d736b90be5, 0x5000000000000000),  // 29
        (0xc9f2c9cd04674ede, 0xa400000000000000),  // 30
        (0xfc6f7c4045812296, 0x4d00000000000000),  // 31
        (0x9dc5ada82b70b59d, 0xf020000000000000),  // 32
        (0xc5371912364ce305, 0x6c28000000000000),  // 33
        (0xf684df56c3e01bc6, 0xc732000000000000),  // 34
        (0x9a130b963a6c115c, 0x3c7f400000000000),  // 35
        (0xc097ce7bc90715b3, 0x4b9f100000000000),  // 36
        (0xf0bdc21abb48db20, 0x1e86d40000000000),  // 37
        (0x96769950b50d88f4, 0x1314448000000000),  // 38
        (0xbc143fa4e250eb31, 0x17d955a000000000),  // 39
        (0xeb194f8e1ae525fd, 0x5dcfab0800000000),  // 40
    ]

    /// Reads the decimal digits at `i` onto `mantissa` (which wraps past 19 digits: the caller
    /// counts the digits and takes the exact path then), eight bytes at a time where the buffer
    /// has eight left: a word's leading run of digits, whole or not, is valued in one step.
    @inline(__always)
    static func accumulateDigits(
        _ bytes: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ end: Int, into mantissa: inout UInt64
    ) {
        var j = i
        defer { i = j }
        if let base = bytes.baseAddress {
            while j + 8 <= end {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + j).loadUnaligned(as: UInt64.self))
                let count = leadingDigits(word)
                if count == 8 {
                    mantissa = mantissa &* 100_000_000 &+ eightDigitsValue(word)
                    j += 8
                    continue
                }
                if count > 0 {
                    // The run moved to the top bytes, '0's shifted in below it: the same number.
                    let shift = UInt64(8 * (8 - count))
                    let padded = word << shift | zeros >> UInt64(8 * count)
                    mantissa = mantissa &* powersOfTenInteger[count] &+ eightDigitsValue(padded)
                    j += count
                }
                return
            }
        }
        while j < end {
            let digit = bytes[j] &- UInt8(ascii: "0")
            guard digit < 10 else { return }
            mantissa = mantissa &* 10 &+ UInt64(digit)
            j += 1
        }
    }

    private static let zeros: UInt64 = 0x3030_3030_3030_3030
    private static let powersOfTenInteger: [UInt64] = [
        1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000,
    ]

    /// How many of the eight bytes of `word` (the first byte in the lowest), from the first, are
    /// ASCII digits.
    ///
    /// A byte is a digit when its high nibble is 3 and adding 6 to it does not carry out of its low
    /// nibble. The addition can carry into the byte above one that is not a digit, which only
    /// concerns bytes after the first that is not.
    @inline(__always)
    static func leadingDigits(_ word: UInt64) -> Int {
        let highNibbles: UInt64 = 0xF0F0_F0F0_F0F0_F0F0
        let notDigits =
            ((word & highNibbles) ^ zeros) | (((word &+ 0x0606_0606_0606_0606) & highNibbles) ^ zeros)
        return notDigits.trailingZeroBitCount / 8
    }

    /// The value of eight ASCII digits in `word` (the first digit in the lowest byte), combined in
    /// three steps of pairs (tens, hundreds of pairs, ten-thousands of quads).
    @inline(__always)
    private static func eightDigitsValue(_ word: UInt64) -> UInt64 {
        let values = word &- zeros
        // Pairs: byte k holds 10 * d(k) + d(k+1) for even k.
        let pairs = (values &* 10 &+ (values >> 8)) & 0x00FF_00FF_00FF_00FF
        // Quads: 100 * pair + next pair.
        let quads = (pairs &* 100 &+ (pairs >> 16)) & 0x0000_FFFF_0000_FFFF
        // The whole: 10,000 * quad + next quad.
        return (quads &* 10_000 &+ (quads >> 32)) & 0xFFFF_FFFF
    }

    private static func digitValue(_ byte: UInt8) -> Int? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte &- UInt8(ascii: "0")) : nil
    }

    static func slowParse(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
    }
}
