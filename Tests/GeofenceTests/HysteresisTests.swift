import Foundation
import Testing

@testable import Geofence

@Suite struct HysteresisTests {
    @Test(arguments: [
        // (signed distance, accuracy, expected) with the defaults: margins 10 m, k = 1.
        (-100.0, 30.0, Hysteresis.Side?.some(.inside)),
        (-40, 30, .inside),
        (-39.9, 30, nil),
        (-5, 0, nil),
        (0, 0, nil),
        (10, 0, .outside),
        (39.9, 30, nil),
        (40, 30, .outside),
        (500, 30, .outside),
    ])
    func classifiesEvidence(distance: Double, accuracy: Double, expected: Hysteresis.Side?) {
        #expect(Hysteresis.default.evidence(signedDistance: distance, accuracy: accuracy) == expected)
    }

    @Test func evidenceNeverLiesOnTheOtherSideOfTheBoundary() {
        let loose = Hysteresis(enterMarginMeters: -50, exitMarginMeters: -50, accuracyWeight: 0)
        #expect(loose.evidence(signedDistance: 20, accuracy: 0) == .outside)
        #expect(loose.evidence(signedDistance: -20, accuracy: 0) == .inside)
    }

    /// A monitor with one 200 m circle around the origin.
    func engine(assuming: ConditionState = .unknown, hysteresis: Hysteresis = .default) -> MonitorEngine {
        var engine = MonitorEngine(name: "test")
        engine.add(Map.circle(200), identifier: "c", assuming: assuming, hysteresis: hysteresis)
        return engine
    }

    @Test func assumedStateIsNotReported() {
        var e = engine(assuming: .satisfied)
        let events = e.ingest((0..<30).map { Map.fix(Double($0) * 60, 0, 0) })
        #expect(events.isEmpty)
        #expect(e.record(for: "c")?.state == .satisfied)
        #expect(e.record(for: "c")?.lastEvent == nil)
    }

    @Test func firstDeterminationIsReportedAndDatedByItsFirstEvidence() throws {
        var e = engine()
        let events = e.ingest((0..<5).map { Map.fix(Double($0) * 60, 1000, 0) })
        try #require(events.count == 1)
        #expect(events[0].state == .unsatisfied)
        #expect(events[0].date == Map.date(0))
        #expect(events[0].confirmedAt == Map.date(120))
        #expect(events[0].fix?.timestamp == Map.date(120))
        #expect(events[0].isFirstDetermination)
        #expect(
            e.ingest((5..<10).map { Map.fix(Double($0) * 60, 0, 0) }).map(\.previousState) == [.unsatisfied])
    }

    @Test func overConfidentWildFixesDoNotChangeTheState() {
        var e = engine(assuming: .satisfied)
        var fixes: [Fix] = []
        for i in 0..<60 {
            // Two wild fixes in a row every ten minutes, claiming 2 m accuracy.
            let wild = i % 10 == 3 || i % 10 == 4
            fixes.append(Map.fix(Double(i) * 60, wild ? 1000 : 0, 0, accuracy: wild ? 2 : 30))
        }
        #expect(e.ingest(fixes).isEmpty)
    }

    @Test func aFixOnTheOldSideRestartsTheCount() {
        var e = engine(assuming: .satisfied)
        // out, out, back inside the circle (no evidence, but on the old side), out, out.
        let path: [Double] = [0, 0, 400, 400, 190, 400, 400]
        let events = e.ingest(path.enumerated().map { Map.fix(Double($0.offset) * 60, $0.element, 0) })
        #expect(events.isEmpty)
        #expect(e.ingest(Map.fix(7 * 60, 400, 0)).map(\.state) == [.unsatisfied])
    }

    @Test func aFixInTheBandOnTheNewSideNeitherCountsNorBreaks() {
        var e = engine(assuming: .satisfied)
        // 215 m is outside but within 10 m + 10 m accuracy of the edge: no evidence.
        let path: [Double] = [0, 400, 215, 400]
        var events = e.ingest(path.enumerated().map { Map.fix(Double($0.offset) * 60, $0.element, 0) })
        #expect(events.isEmpty)
        events = e.ingest(Map.fix(4 * 60, 400, 0))
        #expect(events.map(\.state) == [.unsatisfied])
    }

    @Test func confirmationNeedsTheTimeAsWellAsTheCount() {
        var e = engine(assuming: .unsatisfied)
        // Inside every 5 s: three fixes after 10 s, but 30 s are needed.
        let times = stride(from: 0.0, through: 25, by: 5)
        #expect(e.ingest(times.map { Map.fix($0, 0, 0) }).isEmpty)
        let events = e.ingest(Map.fix(30, 0, 0))
        #expect(events.map(\.state) == [.satisfied])
        #expect(events.first?.confirmedAt == Map.date(30))
    }

    @Test func crossingDateIsInterpolatedBetweenTheFixesEitherSide() throws {
        var e = engine(assuming: .unsatisfied)
        // From 300 m out to 100 m in at 60 s steps; the edge (200 m) is passed halfway between
        // the fixes at 240 m east (t = 60) and 160 m east (t = 120), at t = 90.
        let xs: [Double] = [300, 240, 160, 80, 0, 0]
        let events = e.ingest(
            xs.enumerated().map { Map.fix(Double($0.offset) * 60, $0.element, 0, accuracy: 5) })
        try #require(events.count == 1)
        #expect(abs(events[0].date.timeIntervalSince(Map.date(90))) < 0.5)
        #expect(events[0].confirmedAt > events[0].date)
    }

    // Issue 9 reversed the old rule that evidence did not carry over a gap: silence is not a
    // change, so evidence from before a pause still counts after it.
    @Test func evidenceFromBeforeAGapCountsAfterIt() throws {
        var e = engine(assuming: .satisfied)
        // One outside fix, two hours of silence: nothing is confirmed by the silence.
        #expect(e.ingest([Map.fix(0, 0, 0), Map.fix(60, 1000, 0)]).isEmpty)
        // The next outside fix, two hours later, agrees: two evidence fixes far apart confirm.
        let events = e.ingest(Map.fix(7260, 1000, 0))
        try #require(events.count == 1)
        #expect(events[0].state == .unsatisfied)
        #expect(events[0].confirmedAt == Map.date(7260))
        // Dated between the last inside fix and the first outside one, not after the gap.
        #expect(events[0].date > Map.date(0) && events[0].date < Map.date(60))
    }

    @Test func aCrossingAfterALongGapIsDatedByTheFirstFixAfterIt() throws {
        var e = engine(assuming: .satisfied)
        #expect(e.ingest([Map.fix(0, 0, 0), Map.fix(7200, 1000, 0)]).isEmpty)
        let events = e.ingest(Map.fix(7500, 1000, 0))
        try #require(events.count == 1)
        // Two hours exceed maxGapSeconds: nothing is interpolated across them.
        #expect(events[0].date == Map.date(7200))
    }

    @Test func aContradictingFixBreaksEvidenceGatheredBeforeAGap() {
        var e = engine(assuming: .satisfied)
        let fixes = [Map.fix(0, 0, 0), Map.fix(900, 1000, 0), Map.fix(1800, 0, 0), Map.fix(2700, 1000, 0)]
        #expect(e.ingest(fixes).isEmpty)
        #expect(e.record(for: "c")?.state == .satisfied)
    }

    @Test(arguments: [
        // (seconds between two evidence fixes, confirmed)
        (60.0, false), (120, false), (179, false), (180, true), (900, true), (1800, true),
    ])
    func twoEvidenceFixesConfirmOnlyWhenFarEnoughApart(seconds: Double, confirmed: Bool) {
        var e = engine(assuming: .satisfied)
        _ = e.ingest(Map.fix(0, 0, 0))
        let events = e.ingest([Map.fix(1000, 1000, 0), Map.fix(1000 + seconds, 1000, 0)])
        #expect(events.count == (confirmed ? 1 : 0))
    }

    @Test func aSingleEvidenceFixFollowedBySilenceNeverConfirms() {
        var e = engine(assuming: .satisfied)
        #expect(e.ingest([Map.fix(0, 0, 0), Map.fix(60, 1000, 0)]).isEmpty)
        #expect(e.record(for: "c")?.state == .satisfied)
    }

    @Test func twoFixesInTheBandDoNotCountAsTwoEvidenceFixes() {
        var e = engine(assuming: .satisfied)
        // Evidence at 60 s, then fixes just outside the edge (in the band): one evidence fix only.
        let fixes = [Map.fix(0, 0, 0), Map.fix(60, 1000, 0), Map.fix(600, 205, 0), Map.fix(1200, 205, 0)]
        #expect(e.ingest(fixes).isEmpty)
    }

    @Test func sparseFixesGiveAFirstDetermination() throws {
        var e = engine()
        let events = e.ingest([Map.fix(0, 0, 0), Map.fix(900, 0, 0)])
        try #require(events.count == 1)
        #expect(events[0].isFirstDetermination)
        #expect(events[0].date == Map.date(0))
    }

    @Test func aStateSavedBeforeTheSpanRuleStillDecodes() throws {
        var json =
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(Hysteresis.default)) as? [String: Any]
        json?.removeValue(forKey: "confirmationSpanSeconds")
        let data = try JSONSerialization.data(withJSONObject: try #require(json))
        let decoded = try JSONDecoder().decode(Hysteresis.self, from: data)
        #expect(decoded == Hysteresis.default)
    }

    @Test func aLongGapInsideChangesNothing() {
        var e = engine(assuming: .satisfied)
        let fixes = [Map.fix(0, 0, 0), Map.fix(60, 0, 0), Map.fix(86_400, 0, 0), Map.fix(86_460, 0, 0)]
        #expect(e.ingest(fixes).isEmpty)
    }

    @Test func dwellIsReportedOncePerStay() {
        var e = engine(assuming: .unsatisfied, hysteresis: Hysteresis(dwellSeconds: 600))
        var fixes: [Fix] = []
        var t = 0.0
        func stay(_ minutes: Int, at east: Double) {
            for _ in 0..<minutes {
                fixes.append(Map.fix(t, east, 0))
                t += 60
            }
        }
        stay(5, at: 1000)
        stay(30, at: 0)  // a 30-minute stay: one dwell, not three
        stay(10, at: 1000)
        stay(5, at: 0)  // too short for a dwell
        stay(10, at: 1000)
        stay(20, at: 0)
        let events = e.ingest(fixes)
        let kinds = events.map { "\($0.kind.rawValue):\($0.state.rawValue)" }
        #expect(
            kinds == [
                "transition:satisfied", "dwell:satisfied", "transition:unsatisfied", "transition:satisfied",
                "transition:unsatisfied", "transition:satisfied", "dwell:satisfied",
            ])
        let enter = events[0], dwell = events[1]
        #expect(dwell.date == enter.date.addingTimeInterval(600))
    }

    @Test func fixesWithoutAccuracyUseTheAssumedAccuracy() {
        // Assume 150 m: then nothing inside a 200 m circle is clearly inside.
        var e = engine(hysteresis: Hysteresis(assumedAccuracyMeters: 150))
        #expect(e.ingest((0..<10).map { Map.fix(Double($0) * 60, 100, 0, accuracy: nil) }).isEmpty)
        var f = engine(hysteresis: Hysteresis(assumedAccuracyMeters: 20))
        #expect(
            f.ingest((0..<10).map { Map.fix(Double($0) * 60, 100, 0, accuracy: nil) }).map(\.state) == [
                .satisfied
            ])
    }
}
