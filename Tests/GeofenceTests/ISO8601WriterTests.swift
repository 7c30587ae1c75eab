import Foundation
import Testing

@testable import Geofence
import GeofenceSimulation

/// `simulate day` writes its times with ``ISO8601Writer`` instead of a formatter per line; the
/// text must be exactly what `ISO8601DateFormatter` writes, in every zone and across changes of
/// daylight-saving time.
@Suite struct ISO8601WriterTests {
    static let zones = [
        "UTC", "Europe/London", "America/St_Johns", "Asia/Kolkata", "Pacific/Chatham", "America/Los_Angeles",
        "Australia/Lord_Howe",
    ]

    func formatted(_ date: Date, in zone: TimeZone) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = zone
        let whole = (date.timeIntervalSince1970 * 1000).rounded().truncatingRemainder(dividingBy: 1000) == 0
        formatter.formatOptions =
            whole ? [.withInternetDateTime] : [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    @Test(arguments: zones)
    func writesWhatTheFormatterWrites(zoneName: String) throws {
        let zone = try #require(TimeZone(identifier: zoneName))
        var writer = ISO8601Writer(timeZone: zone)
        // Every 5,917 seconds (not a whole number of minutes) through 2026, which crosses every
        // change of the year, in order as a simulated day writes them.
        var date = Date(timeIntervalSince1970: 1_767_225_600)
        let end = Date(timeIntervalSince1970: 1_798_761_600)
        while date < end {
            #expect(writer.string(date) == formatted(date, in: zone))
            date += 97 * 61
        }
        // Milliseconds, and dates out of order (the cached offset must not be reused wrongly).
        var random = SeededGenerator(seed: 5)
        for _ in 0..<2000 {
            let milliseconds = Double(Int.random(in: 0...4_102_444_800_000, using: &random))
            let date = Date(timeIntervalSince1970: milliseconds / 1000)
            #expect(writer.string(date) == formatted(date, in: zone), "\(milliseconds) ms")
        }
    }

    @Test func givesTheCivilDateOfADayCount() {
        // 1970-01-01 is day 0; 2000-03-01 follows a leap day; 1969-12-31 is day -1.
        for (days, year, month, day) in [
            (0, 1970, 1, 1), (11_017, 2000, 3, 1), (11_016, 2000, 2, 29), (-1, 1969, 12, 31),
        ] {
            let civil = ISO8601Writer.civil(daysSince1970: days)
            #expect(civil.year == year && civil.month == month && civil.day == day, "day \(days): \(civil)")
        }
    }

    /// The engine's UTC form: a time read as Unix milliseconds is written as that millisecond,
    /// whatever binary fraction holds it, and the text reads back to the same millisecond.
    @Test func utcMillisecondsWritesTheMillisecondItWasGiven() throws {
        var generator = SystemRandomNumberGenerator()
        let utc = try #require(TimeZone(identifier: "UTC"))
        for _ in 0..<50_000 {
            let milliseconds = Int64.random(in: 946_684_800_000...4_102_444_800_000, using: &generator)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let text = ISO8601Writer.utcMilliseconds(date)
            #expect(
                text.hasSuffix(String(format: ".%03dZ", Int(milliseconds % 1000))), "\(milliseconds): \(text)"
            )
            // The fields before the fraction are what the formatter writes for the whole second.
            let whole = Date(timeIntervalSince1970: Double(milliseconds / 1000))
            let formatter = ISO8601DateFormatter()
            formatter.timeZone = utc
            #expect(text.dropLast(5) == formatter.string(from: whole).dropLast(1), "\(milliseconds): \(text)")
        }
    }

    @Test(arguments: [
        (Date.distantPast, "0001-01-01T00:00:00.000Z"), (Date.distantFuture, "4001-01-01T00:00:00.000Z"),
        (Date(timeIntervalSince1970: 0), "1970-01-01T00:00:00.000Z"),
        (Date(timeIntervalSince1970: -0.0004), "1970-01-01T00:00:00.000Z"),
        (Date(timeIntervalSince1970: -0.0006), "1969-12-31T23:59:59.999Z"),
        (Date(timeIntervalSince1970: 1_709_453_183.109), "2024-03-03T08:06:23.109Z"),
        (Date(timeIntervalSince1970: 1_700_000_000.9996), "2023-11-14T22:13:21.000Z"),
    ])
    func utcMillisecondsAtTheEdges(_ date: Date, _ expected: String) {
        #expect(ISO8601Writer.utcMilliseconds(date) == expected)
    }

    /// Written in place, a time is the string's bytes; a buffer too short for them, or a time the
    /// direct form cannot hold, gets nothing written.
    @Test func aTimeWrittenInPlaceIsTheStringsBytes() {
        let date = Date(timeIntervalSince1970: 1_709_453_183.109)
        var bytes = [UInt8](repeating: UInt8(ascii: "#"), count: ISO8601Writer.utcMillisecondsLength + 2)
        let written = bytes.withUnsafeMutableBufferPointer {
            ISO8601Writer.writeUTCMilliseconds(date, into: $0)
        }
        #expect(written)
        #expect(String(decoding: bytes, as: UTF8.self) == ISO8601Writer.utcMilliseconds(date) + "##")

        var short = [UInt8](repeating: UInt8(ascii: "#"), count: ISO8601Writer.utcMillisecondsLength - 1)
        #expect(!short.withUnsafeMutableBufferPointer { ISO8601Writer.writeUTCMilliseconds(date, into: $0) })
        #expect(short.allSatisfy { $0 == UInt8(ascii: "#") })

        let early = Date(timeIntervalSince1970: -12_219_292_801)  // before the Gregorian calendar
        #expect(!bytes.withUnsafeMutableBufferPointer { ISO8601Writer.writeUTCMilliseconds(early, into: $0) })
    }
}
