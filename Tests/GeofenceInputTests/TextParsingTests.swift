import Foundation
import Testing

@testable import GeofenceInput

@Suite struct TextParsingTests {
    private func number(_ text: String) -> Double? {
        var copy = text
        return copy.withUTF8 { NumberText.parse($0, 0, $0.count) }
    }

    private func seconds(_ text: String, zone: TimeZone = .gmt) -> Double? {
        var copy = text
        return copy.withUTF8 { TimeText.parse($0, 0, $0.count, zone: LocalZone(zone)) }
    }

    @Test(arguments: [
        "0", "-0", "1", "47.3769", "-122.4194", "7.038471899999999", "46.51694570000001", "1e1", "-9.5e1",
        "1.7e12",
        "0.1", "0.000001", "123456789012345678", "1234567890123456789012", "2.2250738585072014e-308", "1e400",
        "+5",
        "1700000000123", "0.30000000000000004", "9007199254740993", "1E-7",
        // Halfway between two doubles and just either side (round to even), 17-19 digits.
        "9007199254740995", "9007199254740997", "18014398509481986", "18014398509481990",
        "9223372036854775807", "1844674407370955161e-3", "47.370123456789012", "-8.5412345678901234",
        "0.1000000000000000055511151231257827", "1.00000000000000011102230246251565404e0",
        "4.9406564584124654e-324", "1.7976931348623157e308",
        // Runs of eight digits read at once, with leading zeros that carry no digit of the value.
        "12345678.12345678", "0.000000001234567891", "00000000000000000001", "123456789012.5",
        "0.0000000000000000000000012345", "99999999.99999999", "-0.00000000", "10000000",
    ])
    func readsNumbersExactlyAsTheStandardLibraryDoes(_ text: String) throws {
        let expected = try #require(Double(text))
        #expect(number(text)?.bitPattern == expected.bitPattern)
    }

    /// The value the JSON scanner computes as it checks a number's digits.
    private func scanned(_ text: String) throws -> Double {
        var line = Array(#"{"altitude":"#.utf8) + Array(text.utf8) + [UInt8(ascii: "}")]
        var tokens = [JSONToken](repeating: .absent, count: JSONKey.allCases.count)
        try line.withUnsafeMutableBufferPointer { bytes in
            try tokens.withUnsafeMutableBufferPointer { tokens in
                try FlatJSONScanner.scan(UnsafeBufferPointer(bytes), start: 0, end: bytes.count, into: tokens)
            }
        }
        let token = tokens[JSONKey.altitude.rawValue]
        try #require(token.kind == .number)
        return token.value
    }

    @Test(arguments: [
        "0", "-0", "1", "47.3769", "-122.4194", "7.038471899999999", "46.51694570000001", "1e1", "-9.5e1",
        "1.7e12", "0.1", "0.000001", "123456789012345678", "1234567890123456789012",
        "2.2250738585072014e-308",
        "1e400", "1700000000123", "0.30000000000000004", "9007199254740993", "1E-7", "9007199254740995",
        "9007199254740997", "18014398509481986", "18014398509481990", "9223372036854775807",
        "1844674407370955161e-3", "47.370123456789012", "-8.5412345678901234",
        "0.1000000000000000055511151231257827", "1.00000000000000011102230246251565404e0",
        "4.9406564584124654e-324", "1.7976931348623157e308", "12345678.12345678", "0.000000001234567891",
        "123456789012.5", "0.0000000000000000000000012345", "99999999.99999999", "-0.00000000", "10000000",
        "8.0", "1e+5", "1E-05", "0e0", "-0.0e-0", "0.00000000000000000000000000000000000000000001",
    ])
    func scansJSONNumbersToTheStandardLibrarysValue(_ text: String) throws {
        let expected = try #require(Double(text))
        #expect(try scanned(text).bitPattern == expected.bitPattern)
    }

    @Test func scansRandomJSONNumbersExactly() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let value = Double.random(in: -1e7...1e7, using: &generator)
            let tiny = value * 1e-30
            for text in [
                value.description, String(format: "%.7f", value), String(format: "%.3e", value),
                tiny.description,
            ] {
                #expect(try scanned(text) == Double(text), "\(text)")
            }
        }
    }

    @Test(arguments: ["-", "1.", "1.e5", "1e", "1e+", "-x", "01"])
    func theScannerRefusesWhatJSONDoesNotCallANumber(_ text: String) {
        #expect(throws: JSONSyntaxError.self) { try scanned(text) }
    }

    @Test func readsRandomCoordinatesExactly() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let value = Double.random(in: -180...180, using: &generator)
            for text in [value.description, String(format: "%.7f", value), String(format: "%.5f", value)] {
                #expect(number(text) == Double(text), "\(text)")
            }
        }
    }

    /// The Eisel-Lemire path, on its own, against the standard library: every 1-19 digit number
    /// with an exponent in the table's range that it decides is the correctly rounded double, and
    /// it declines almost none.
    @Test func eiselLemireAgreesWithTheStandardLibrary() throws {
        var generator = SystemRandomNumberGenerator()
        var declined = 0
        let trials = 200_000
        for trial in 0..<trials {
            let digitCount = trial % 19 + 1
            var digits = UInt64.random(in: 1...9, using: &generator)
            for _ in 1..<digitCount { digits = digits * 10 + UInt64.random(in: 0...9, using: &generator) }
            let exponent = Int.random(in: -40...40, using: &generator)
            let expected = try #require(Double("\(digits)e\(exponent)"))
            guard let value = NumberText.eiselLemire(digits, exponent) else {
                declined += 1
                continue
            }
            #expect(value.bitPattern == expected.bitPattern, "\(digits)e\(exponent)")
        }
        #expect(declined < trials / 1000)
    }

    @Test(arguments: ["", "-", ".", "abc", "1e", "1x", "--1", "12345678x", "1234.5678y9", "123456789:"])
    func refusesWhatIsNotANumber(_ text: String) {
        #expect(number(text) == nil)
    }

    @Test(arguments: [
        ("2023-11-14T22:13:20Z", 1_700_000_000.0), ("2023-11-14T22:13:20z", 1_700_000_000),
        ("2023-11-14t22:13:20Z", 1_700_000_000), ("2023-11-14 22:13:20", 1_700_000_000),
        ("2023-11-14T22:13Z", 1_699_999_980), ("2023-11-14T22:13:20.5Z", 1_700_000_000.5),
        ("2023-11-14T22:13:20,25Z", 1_700_000_000.25), ("2023-11-14T23:13:20+01:00", 1_700_000_000),
        ("2023-11-14T23:13:20+0100", 1_700_000_000), ("2023-11-14T23:13:20+01", 1_700_000_000),
        ("2023-11-14T17:43:20-04:30", 1_700_000_000), ("1970-01-01T00:00:00Z", 0),
        ("1901-12-13T20:45:52Z", -2_147_483_648), ("2024-02-29T00:00:00Z", 1_709_164_800),
        ("2016-12-31T23:59:60Z", 1_483_228_800),
    ])
    func readsISOTimes(_ text: String, _ expected: Double) {
        #expect(seconds(text) == expected)
    }

    @Test(arguments: [
        "2023-11-14", "2023-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "2023-11-14T24:00:00Z",
        "2023-11-14T22:60:00Z",
        "2023-11-14T22:13:20.Z", "2023-11-14T22:13:20+1", "2023-11-14T22:13:20Zulu", "23-11-14T22:13:20Z",
        "2023-11-14T22:13:20 Z", "1700000000",
    ])
    func refusesWhatIsNotAnISOTime(_ text: String) {
        #expect(seconds(text) == nil)
    }

    @Test func readsNineFractionDigits() throws {
        let value = try #require(seconds("2019-01-25 19:00:16.178999901"))
        #expect(abs(value - 1_548_442_816.178_999_901) < 1e-6)
    }

    @Test func readsLocalTimesAcrossADaylightSavingChange() throws {
        let zurich = try #require(TimeZone(identifier: "Europe/Zurich"))
        // The clocks went forward at 02:00 local on 2023-03-26.
        #expect(seconds("2023-03-26 01:30:00", zone: zurich) == 1_679_790_600)
        #expect(seconds("2023-03-26 03:30:00", zone: zurich) == 1_679_794_200)
    }
}
