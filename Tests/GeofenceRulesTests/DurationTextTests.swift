import Foundation
import Testing

@testable import GeofenceRules

/// The one duration grammar and the one display format.
@Suite struct DurationTextTests {
    static let displayed: [(Double, String)] = [
        (19, "19s"), (0.4, "0s"), (45, "45s"), (60, "1m00s"), (1408, "23m28s"), (3599, "59m59s"),
        (3660, "1h01m"), (3629, "1h00m"), (10_200, "2h50m"), (97_200, "1d03h"),
    ]

    @Test(arguments: displayed)
    func durationsDisplayWithTwoUnitsAtMost(seconds: Double, text: String) {
        #expect(DurationText.display(seconds) == text)
    }

    static let parsed: [(String, Double)] = [
        ("90", 90), ("90s", 90), ("20m", 1200), ("1h30m", 5400), ("1.5h", 5400), ("1h01m", 3660),
        ("1d03h", 97_200), ("23m28s", 1408),
    ]

    @Test(arguments: parsed)
    func durationsParseInTheRulesGrammar(text: String, seconds: Double) {
        #expect(DurationText.parse(text) == seconds)
    }

    @Test(arguments: ["", "soon", "1x", "h", "1h30", "inf", "nan", "1e999s"])
    func nonsenseIsNotADuration(text: String) {
        #expect(DurationText.parse(text) == nil)
    }

    @Test func whatIsDisplayedReadsBack() {
        for seconds in [19.0, 1408, 3660, 97_200] {
            #expect(DurationText.parse(DurationText.display(seconds)) == seconds)
        }
    }
}
