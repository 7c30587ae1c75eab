import Foundation
import Testing

@testable import Geofence

@Suite struct FixFilterTests {
    /// One rule of the filter, with a fix it must drop or keep after an optional earlier fix.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var earlier: Fix?
        var fix: Fix
        var arrivedAt: Date?
        var expected: FixFilter.Reason?
        var testDescription: String { name }
    }

    static let anchor = Map.fix(0, 0, 0, accuracy: 10)

    static let cases: [Case] = [
        Case(
            name: "null island dropped",
            fix: Fix(timestamp: Map.start, coordinate: Coordinate(uncheckedLatitude: 0, longitude: 0)),
            expected: .nullIsland),
        Case(
            name: "near null island kept",
            fix: Fix(timestamp: Map.start, coordinate: Coordinate(uncheckedLatitude: 0.001, longitude: 0)),
            expected: nil),
        Case(name: "150 m accuracy dropped", fix: Map.fix(0, 0, 0, accuracy: 150), expected: .inaccurate),
        Case(name: "100 m accuracy kept", fix: Map.fix(0, 0, 0, accuracy: 100), expected: nil),
        Case(name: "unknown accuracy kept", fix: Map.fix(0, 0, 0, accuracy: nil), expected: nil),
        Case(
            name: "10 km in a minute dropped", earlier: anchor, fix: Map.fix(60, 10_000, 0),
            expected: .tooFast),
        Case(name: "3 km in a minute kept", earlier: anchor, fix: Map.fix(60, 3_000, 0), expected: nil),
        Case(
            name: "noisy fixes a second apart kept", earlier: Map.fix(0, 0, 0, accuracy: 65),
            fix: Map.fix(1, 150, 0, accuracy: 65), expected: nil),
        Case(name: "exact repeat dropped", earlier: anchor, fix: anchor, expected: .duplicate),
        Case(name: "same place a second later kept", earlier: anchor, fix: Map.fix(1, 0, 0), expected: nil),
        Case(name: "older fix dropped", earlier: anchor, fix: Map.fix(-10, 5, 0), expected: .notNewer),
        Case(
            name: "same time elsewhere dropped", earlier: anchor, fix: Map.fix(0, 5, 0), expected: .notNewer),
        Case(
            name: "fix 120 s after its arrival dropped", fix: Map.fix(120, 0, 0), arrivedAt: Map.date(0),
            expected: .fromTheFuture),
        Case(
            name: "fix 30 s after its arrival kept", fix: Map.fix(30, 0, 0), arrivedAt: Map.date(0),
            expected: nil),
        Case(
            name: "fix 301 s old on arrival dropped", fix: Map.fix(0, 0, 0), arrivedAt: Map.date(301),
            expected: .expired),
        Case(
            name: "fix 299 s old on arrival kept", fix: Map.fix(0, 0, 0), arrivedAt: Map.date(299),
            expected: nil),
        Case(name: "old fix in replay kept", fix: Map.fix(-86_400, 0, 0), arrivedAt: nil, expected: nil),
        Case(
            name: "fix three days after the last in history held", earlier: anchor,
            fix: Map.fix(3 * 86_400, 0, 0),
            expected: .tooFarAhead),
        Case(
            name: "fix a day after the last in history kept", earlier: anchor, fix: Map.fix(86_400, 0, 0),
            expected: nil),
    ]

    @Test(arguments: cases)
    func appliesEachRule(_ c: Case) {
        var filter = FixFilter()
        if let earlier = c.earlier { #expect(filter.evaluate(earlier, arrivedAt: nil) == nil) }
        let acceptedBefore = filter.accepted
        #expect(filter.evaluate(c.fix, arrivedAt: c.arrivedAt) == c.expected)
        if let reason = c.expected {
            #expect(filter.dropped[reason] == 1)
            #expect(filter.accepted == acceptedBefore)
            #expect(filter.lastAccepted == c.earlier)
        } else {
            #expect(filter.droppedTotal == 0)
            #expect(filter.lastAccepted == c.fix)
        }
    }

    @Test func everyReasonHasADropCase() {
        let covered = Set(Self.cases.compactMap(\.expected)).union([.invalidCoordinate])
        #expect(covered == Set(FixFilter.Reason.allCases))
    }

    @Test(arguments: [(Double.nan, 0.0), (91, 0), (0, -180.5), (0, .infinity)])
    func countsInvalidRawCoordinates(latitude: Double, longitude: Double) {
        var filter = FixFilter()
        #expect(filter.coordinate(latitude: latitude, longitude: longitude) == nil)
        #expect(filter.dropped[.invalidCoordinate] == 1)
    }

    @Test func keepsValidRawCoordinates() {
        var filter = FixFilter()
        #expect(filter.coordinate(latitude: 51.5, longitude: -0.12)?.latitude == 51.5)
        #expect(filter.droppedTotal == 0)
    }

    @Test func speedLimitIsConfigurable() {
        var filter = FixFilter(configuration: .init(maxSpeedMetersPerSecond: 10))
        #expect(filter.evaluate(Self.anchor, arrivedAt: nil) == nil)
        // 1 km in a minute is 16.7 m/s, under the default but over this limit.
        #expect(filter.evaluate(Map.fix(60, 1000, 0), arrivedAt: nil) == .tooFast)
    }

    @Test func aDroppedFixChangesNoCondition() {
        var engine = MonitorEngine(name: "test")
        engine.add(Map.circle(200), identifier: "home", assuming: .satisfied)
        var events: [Event] = []
        #expect(engine.ingest(Map.fix(0, 0, 0), arrivedAt: nil, into: &events) == nil)
        for i in 1...10 {
            // 20 km from home half a minute after a fix at home: far too fast, so dropped, even
            // though ten of them would otherwise confirm an exit.
            let t = Double(i) * 60
            #expect(engine.ingest(Map.fix(t - 30, 20_000, 0), arrivedAt: nil, into: &events) == .tooFast)
            #expect(engine.ingest(Map.fix(t, 0, 0), arrivedAt: nil, into: &events) == nil)
        }
        #expect(events.isEmpty)
        #expect(engine.filter.dropped[.tooFast] == 10)
        #expect(engine.record(for: "home")?.state == .satisfied)
    }

    @Test func stateSurvivesCoding() throws {
        var filter = FixFilter()
        _ = filter.evaluate(Self.anchor, arrivedAt: nil)
        _ = filter.evaluate(Self.anchor, arrivedAt: nil)
        let data = try JSONEncoder().encode(filter)
        var restored = try JSONDecoder().decode(FixFilter.self, from: data)
        #expect(restored.dropped == [.duplicate: 1])
        #expect(restored.accepted == 1)
        #expect(restored.evaluate(Self.anchor, arrivedAt: nil) == .duplicate)
    }
}

@Suite struct FixFilterReanchorTests {
    /// A wild first fix 500 km away, then the real phone at home once a minute: the filter re-anchors
    /// on the third real fix instead of dropping real fixes for two hours.
    @Test func aWildFirstFixDoesNotBlockTheRealOnes() {
        var filter = FixFilter()
        let wild = Fix(
            timestamp: Map.start, coordinate: Coordinate(uncheckedLatitude: 47.0, longitude: 2.0),
            horizontalAccuracy: 10)
        #expect(filter.evaluate(wild, arrivedAt: nil) == nil)
        let verdicts = (1...6).map { minute in
            filter.evaluate(Map.fix(Double(minute) * 60, 0, 0, accuracy: 10), arrivedAt: nil)
        }
        #expect(verdicts == [.tooFast, .tooFast, nil, nil, nil, nil])
        #expect(filter.reanchored == 1)
        #expect(filter.dropped[.tooFast] == 2)
    }

    /// One jump in the middle of real fixes is dropped and changes nothing: the run of fixes
    /// disagreeing with the anchor never reaches three.
    @Test func isolatedJumpsAreDroppedWithoutReanchoring() {
        var filter = FixFilter()
        var verdicts: [FixFilter.Reason?] = []
        for minute in 0..<30 {
            let time = Double(minute) * 60
            let fix =
                minute % 10 == 5
                ? Fix(
                    timestamp: Map.start.addingTimeInterval(time),
                    coordinate: Coordinate(uncheckedLatitude: 47.0, longitude: 2.0), horizontalAccuracy: 10)
                : Map.fix(time, 0, 0, accuracy: 10)
            verdicts.append(filter.evaluate(fix, arrivedAt: nil))
        }
        #expect(verdicts.compactMap { $0 } == [.tooFast, .tooFast, .tooFast])
        #expect(filter.reanchored == 0)
    }

    /// Wild fixes that do not agree with each other never make a run.
    @Test func scatteredJumpsNeverReanchor() {
        var filter = FixFilter()
        #expect(filter.evaluate(Map.fix(0, 0, 0, accuracy: 10), arrivedAt: nil) == nil)
        let far = [(47.0, 2.0), (40.0, -3.0), (55.0, 12.0), (45.0, 9.0)]
        for (index, place) in far.enumerated() {
            let fix = Fix(
                timestamp: Map.start.addingTimeInterval(Double(index + 1) * 60),
                coordinate: Coordinate(uncheckedLatitude: place.0, longitude: place.1), horizontalAccuracy: 10
            )
            #expect(filter.evaluate(fix, arrivedAt: nil) == .tooFast)
        }
        #expect(filter.reanchored == 0)
    }
}
