import Foundation
import Testing

@testable import Geofence
import GeofenceSimulation

/// Small hand-made traces for the rules of the detector one at a time.
@Suite struct VisitDetectorTests {
    static let map = SyntheticDay()
    static let start = Date(timeIntervalSince1970: 1_772_521_200)  // 2026-03-03 07:00 UTC

    /// A fix `minutes` after the start, `east` and `north` metres from the map's origin.
    static func fix(_ minutes: Double, _ east: Double = 0, _ north: Double = 0, accuracy: Double? = 10) -> Fix
    {
        Fix(
            timestamp: start.addingTimeInterval(minutes * 60),
            coordinate: map.coordinate(east: east, north: north),
            horizontalAccuracy: accuracy)
    }

    /// Fixes every minute from `from` through `to` at one point.
    static func stay(_ from: Int, _ to: Int, _ east: Double = 0, _ north: Double = 0) -> [Fix] {
        (from...to).map { fix(Double($0), east, north) }
    }

    @Test func opensWhenTheStayReachesTAndClosesWhenLeavingIsCertain() throws {
        var detector = VisitDetector()
        #expect(detector.ingest(Self.stay(0, 19)).isEmpty)
        let opened = detector.ingest(Self.fix(20))
        #expect(opened.count == 1)
        #expect(opened.first?.arrival == Self.start && opened.first?.departure == nil)
        #expect(detector.currentVisit == opened.first)
        #expect(detector.ingest(Self.stay(21, 30)).isEmpty)
        // Two strays are tolerated; the third makes leaving certain.
        #expect(detector.ingest([Self.fix(31, 1000), Self.fix(32, 2000)]).isEmpty)
        let closed = detector.ingest(Self.fix(33, 3000))
        #expect(closed.count == 1)
        let visit = try #require(closed.first)
        #expect(visit.arrival == Self.start)
        #expect(visit.departure == Self.start.addingTimeInterval(30 * 60))
        #expect(visit.coordinate.distance(to: Self.map.coordinate(east: 0, north: 0)) < 0.01)
        #expect(detector.currentVisit == nil)
    }

    @Test func aWindowShorterThanTIsNoStay() {
        var detector = VisitDetector()
        let visits = detector.ingest(Self.stay(0, 18) + Self.stay(19, 40, 1000)) + detector.finish()
        // 0...18 lasts 18 minutes at the first place; 19...40 lasts 21 at the second.
        #expect(visits.count == 2)
        #expect(visits.allSatisfy { $0.arrival == Self.start.addingTimeInterval(19 * 60) })
    }

    @Test(arguments: [
        // (consecutive strays, maxStrays, stays expected)
        (1, 2, 1), (2, 2, 1), (3, 2, 2), (1, 0, 2), (3, 3, 1), (4, 3, 2),
    ])
    func strayRunsUpToTheToleranceAreForgiven(strays: Int, maxStrays: Int, expected: Int) {
        var detector = VisitDetector(configuration: .init(maxStrays: maxStrays))
        let wild = (0..<strays).map { Self.fix(Double(30 + $0), 900, 0) }
        let fixes = Self.stay(0, 29) + wild + Self.stay(30 + strays, 60 + strays)
        let visits = detector.ingest(fixes) + detector.finish()
        #expect(visits.filter { $0.departure != nil }.count == expected)
    }

    @Test func straysDoNotMoveTheCentroid() throws {
        var detector = VisitDetector()
        // The coordinate is the centroid when the stay opens (minute 20), of 20 fixes inside.
        let fixes = Self.stay(0, 9) + [Self.fix(10, 150, 0), Self.fix(11, 1000, 0)] + Self.stay(12, 40)
        let visits = detector.ingest(fixes) + detector.finish()
        let closed = try #require(visits.last)
        // The fix 150 m east is inside and counts (150 m / 20 = 7.5 m); the one 1 km east must not.
        let east = closed.coordinate.distance(to: Self.map.coordinate(east: 0, north: 0))
        #expect(east > 7.4 && east < 7.6)
    }

    @Test(
        arguments: [(10.0, 29.9...30.1), (50, 50...50), (nil, 29.9...30.1)]
            as [(Double?, ClosedRange<Double>)])
    func theVisitsAccuracyIsTheSpreadOfItsFixesButNoLessThanTheirOwn(
        accuracy: Double?, expected: ClosedRange<Double>
    ) throws {
        // Fixes alternate 30 m east and west of the origin: 30 m root-mean-square spread.
        var detector = VisitDetector()
        let fixes = (0...20).map { Self.fix(Double($0), $0 % 2 == 0 ? 30 : -30, 0, accuracy: accuracy) }
        let opened = try #require(detector.ingest(fixes).first)
        #expect(expected.contains(opened.horizontalAccuracy))
    }

    @Test func aStrayRunSpanningTEndsTheStayEvenWithinTheTolerance() {
        // Every 20 minutes: work, work, work, then two fixes 300 m away spanning 20 minutes, then work.
        var detector = VisitDetector(configuration: .init(maxStrays: 5))
        let fixes =
            [0, 20, 40].map { Self.fix($0, 5000, 0) } + [60, 80].map { Self.fix($0, 5000, 300) }
            + [100, 120].map { Self.fix($0, 5000, 0) }
        let visits = detector.ingest(fixes) + detector.finish()
        let closed = visits.filter { $0.departure != nil }
        #expect(closed.count == 3)
        #expect(closed.map { $0.arrival } == [0, 60, 100].map { Self.start.addingTimeInterval($0 * 60) })
    }

    @Test func aGapLongerThanTheLimitEndsTheStayAtItsLastFix() {
        var detector = VisitDetector(configuration: .init(maxGapSeconds: 1800))
        let before = detector.ingest(Self.stay(0, 40))
        let after = detector.ingest(Self.stay(100, 130))
        let closing = after.filter { $0.departure != nil }
        #expect(before.count == 1)
        #expect(closing.count == 1)
        #expect(closing.first?.departure == Self.start.addingTimeInterval(40 * 60))
        // The fixes after the gap make a new stay of their own.
        #expect(
            after.filter { $0.departure == nil }.first?.arrival == Self.start.addingTimeInterval(100 * 60))
    }

    @Test(arguments: [(29.0, 1), (31.0, 0)])
    func twoFixesFarApartInTimeAreNoStay(gapMinutes: Double, expected: Int) {
        var detector = VisitDetector(configuration: .init(maxGapSeconds: 1800))
        let visits = detector.ingest([Self.fix(0), Self.fix(gapMinutes)]) + detector.finish()
        #expect(visits.filter { $0.departure != nil }.count == expected)
    }

    @Test(arguments: [(500.0, 1), (20.0, 2), (nil, 2)] as [(Double?, Int)])
    func anImpreciseFixDoesNotEndAStay(accuracy: Double?, expected: Int) {
        var detector = VisitDetector()
        let far = (30...33).map { Self.fix(Double($0), 600, 0, accuracy: accuracy) }
        let visits = detector.ingest(Self.stay(0, 29) + far + Self.stay(34, 60)) + detector.finish()
        #expect(visits.filter { $0.departure != nil }.count == expected)
    }

    @Test func fixesOutOfOrderAreSkipped() {
        var inOrder = VisitDetector()
        var withLate = VisitDetector()
        let fixes = Self.stay(0, 40)
        let late = [Self.fix(10, 3000), Self.fix(20, 3000), Self.fix(25, 3000), Self.fix(29, 3000)]
        let expected = inOrder.ingest(fixes) + inOrder.finish()
        var visits = withLate.ingest(Array(fixes.prefix(30)))
        visits += withLate.ingest(late)
        visits += withLate.ingest(Array(fixes.dropFirst(30))) + withLate.finish()
        #expect(visits == expected)
        #expect(visits.count == 2)
    }

    @Test func finishClosesTheOpenStayAtItsLastFixInsideAndResets() {
        var detector = VisitDetector()
        _ = detector.ingest(Self.stay(0, 30))
        // A stray at the end is not inside: the departure is the last fix at the place.
        _ = detector.ingest(Self.fix(31, 2000))
        let closing = detector.finish()
        #expect(closing.count == 1)
        #expect(closing.first?.departure == Self.start.addingTimeInterval(30 * 60))
        #expect(detector.finish().isEmpty)
        // After finish the detector takes fixes from any time again, as a new one would.
        #expect(detector.ingest(Self.stay(0, 20)).count == 1)
    }

    @Test func finishDropsACandidateShorterThanT() {
        var detector = VisitDetector()
        #expect(detector.ingest(Self.stay(0, 19)).isEmpty)
        #expect(detector.finish().isEmpty)
    }

    @Test(arguments: [0, 1, 20, 21, 30, 31, 32, 33, 60, 159, 160, 161, 334, 700, 900])
    func aSavedDetectorGoesOnExactlyWhereItStopped(savedAfter: Int) throws {
        let outliers = ["09:40", "10:15", "11:05"].compactMap(SyntheticDay.ClockTime.init(parsing:))
        let fixes = SyntheticDay(intervalSeconds: 60, outliers: outliers, seed: 5).fixes()
        var straight = VisitDetector()
        let expected = straight.ingest(fixes) + straight.finish()

        var first = VisitDetector()
        var visits = first.ingest(Array(fixes.prefix(savedAfter)))
        let saved = try JSONEncoder().encode(first)
        var restored = try JSONDecoder().decode(VisitDetector.self, from: saved)
        visits += restored.ingest(Array(fixes.dropFirst(savedAfter))) + restored.finish()
        #expect(visits == expected)
        #expect(expected.count == 12)
    }

    @Test func configurationRepairsValuesThatCannotWork() {
        let detector = VisitDetector(
            configuration: .init(
                radiusMeters: .nan, minimumStaySeconds: -5, maxStrays: -1, maxGapSeconds: .nan,
                accuracyLimitMeters: -1))
        #expect(detector.configuration.radiusMeters == 200)
        #expect(detector.configuration.minimumStaySeconds == 0)
        #expect(detector.configuration.maxStrays == 0)
        #expect(detector.configuration.maxGapSeconds == VisitDetector.Configuration().maxGapSeconds)
        #expect(detector.configuration.accuracyLimitMeters == 0)
    }

    @Test func aConfigurationWithMissingFieldsDecodesWithDefaults() throws {
        let json = Data(#"{"radiusMeters": 150}"#.utf8)
        let configuration = try JSONDecoder().decode(VisitDetector.Configuration.self, from: json)
        #expect(configuration == .init(radiusMeters: 150))
        #expect(configuration.minimumStaySeconds == 1200 && configuration.maxStrays == 2)
    }
}
