import Foundation
import Testing

@testable import Geofence

/// The filter's forward-jump rule: a fix far ahead of the history before it never becomes the fix
/// that blocks the rest, and a real gap re-anchors after a few agreeing fixes.
@Suite struct FixFilterTimeTests {
    private func fix(_ seconds: Double, _ latitude: Double = 47.37) -> Fix {
        Fix(
            timestamp: Date(timeIntervalSince1970: seconds),
            coordinate: Coordinate(uncheckedLatitude: latitude, longitude: 8.54), horizontalAccuracy: 10)
    }

    @Test func aFixDatedYearsAheadIsDroppedAndTheRestCount() {
        var filter = FixFilter()
        let start = 1_700_000_000.0
        #expect(filter.evaluate(fix(start), arrivedAt: nil) == nil)
        // A clock gone wrong: 2090.
        #expect(filter.evaluate(fix(3_800_000_000), arrivedAt: nil) == .tooFarAhead)
        for minute in 1...14 {
            #expect(filter.evaluate(fix(start + Double(minute) * 60), arrivedAt: nil) == nil)
        }
        #expect(filter.accepted == 15)
        #expect(filter.dropped == [.tooFarAhead: 1])
    }

    @Test func aLongGapReanchorsAfterAgreeingFixes() {
        var filter = FixFilter()
        let start = 1_700_000_000.0
        #expect(filter.evaluate(fix(start), arrivedAt: nil) == nil)
        let later = start + 30 * 86_400
        #expect(filter.evaluate(fix(later), arrivedAt: nil) == .tooFarAhead)
        #expect(filter.evaluate(fix(later + 60), arrivedAt: nil) == .tooFarAhead)
        #expect(filter.evaluate(fix(later + 120), arrivedAt: nil) == nil)
        #expect(filter.reanchored == 1)
        #expect(filter.evaluate(fix(later + 180), arrivedAt: nil) == nil)
    }

    @Test func aGapWithinTheToleranceIsNotHeld() {
        var filter = FixFilter()
        #expect(filter.evaluate(fix(1_700_000_000), arrivedAt: nil) == nil)
        #expect(filter.evaluate(fix(1_700_000_000 + 86_400), arrivedAt: nil) == nil)
    }

    @Test func aStateSavedBeforeTheRuleDecodesWithItsDefault() throws {
        let old =
            #"{"maxAccuracyMeters":100,"maxSpeedMetersPerSecond":69.4,"expirationSeconds":300,"futureToleranceSeconds":60,"nullIslandToleranceDegrees":1e-05,"reanchorAfterFixes":3}"#
        let configuration = try JSONDecoder().decode(FixFilter.Configuration.self, from: Data(old.utf8))
        #expect(configuration.maxForwardJumpSeconds == 2 * 86_400)
    }
}
