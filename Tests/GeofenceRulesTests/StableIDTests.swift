import Foundation
import Testing

@testable import GeofenceRules

/// An id is 128 bits of FNV-1a over its parts joined with U+001F, a time being its Unix
/// milliseconds in decimal: ids written by earlier versions (in event logs, outboxes, saved state)
/// must stay what they were.
@Suite struct StableIDTests {
    /// The definition, written out over the joined text.
    private func reference(_ parts: [String]) -> String {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325
        var b: UInt64 = 0x6c62_272e_07bb_0142
        for byte in parts.joined(separator: "\u{1F}").utf8 {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            b = (b ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 ^ (a >> 29)
        }
        func hex(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return hex(a) + hex(b)
    }

    private func id(_ parts: [String], milliseconds date: Date) -> String {
        var id = StableID()
        for part in parts { id.add(part) }
        id.add(milliseconds: date)
        return id.text
    }

    @Test func anEventsIdIsTheHashOfItsPartsAndItsMilliseconds() {
        // Pinned: the id of this event as every version so far has written it.
        let entered = id(
            ["phone", "home", "enter"], milliseconds: Date(timeIntervalSince1970: 1_772_521_200.179))
        #expect(entered == "adad86d39b1766c9a4bc3b582371d307")
        #expect(entered == reference(["phone", "home", "enter", "1772521200179"]))
        #expect(id([], milliseconds: Date(timeIntervalSince1970: 0)) == reference(["0"]))
        #expect(id(["x"], milliseconds: Date(timeIntervalSince1970: -1.5)) == reference(["x", "-1500"]))
    }

    /// The same times every run (a 64-bit LCG), from a millisecond to three hundred thousand years
    /// either side of 1970.
    @Test func timesAreTheirRoundedMillisecondsWhateverTheirSize() {
        var state: UInt64 = 0x9e37_79b9_7f4a_7c15
        for trial in 0..<2_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let unit = Double(state >> 11) / Double(1 << 53)
            let magnitude = pow(10, Double(trial % 16) - 3)
            let date = Date(timeIntervalSince1970: (2 * unit - 1) * magnitude)
            // The date's own Unix time: a `Date` keeps its time from 2001, so the interval it was
            // made from may come back a rounding away (and round to another millisecond).
            let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
            let text = String(Int64(milliseconds))
            #expect(id(["d\(trial)", "é ü"], milliseconds: date) == reference(["d\(trial)", "é ü", text]))
        }
    }

    @Test func aTimeBeyondSixtyFourBitsOfMillisecondsIsHashedAsItsDigits() {
        let date = Date(timeIntervalSince1970: 1e300)
        let text = String(format: "%.0f", 1e303)
        #expect(id(["phone"], milliseconds: date) == reference(["phone", text]))
        #expect(!id(["phone"], milliseconds: .distantFuture).isEmpty)
    }
}
