import Foundation
import Testing

@testable import Geofence
import GeofenceSimulation

/// Stays seen by trackers that fall silent when still: a gap between fixes that agree on the place
/// does not end a stay; a fix that leaves it does.
@Suite struct VisitDetectorSilenceTests {
    static let start = Date(timeIntervalSince1970: 1_772_524_800)
    static let frame = LocalFrame(origin: Coordinate(uncheckedLatitude: 51.5, longitude: -0.12))

    static func fix(_ minutes: Double, _ east: Double = 0, _ north: Double = 0) -> Fix {
        Fix(
            timestamp: start.addingTimeInterval(minutes * 60),
            coordinate: frame.unproject(PlanePoint(x: east, y: north)), horizontalAccuracy: 20)
    }

    @Test func aThreeHourSilenceBetweenAgreeingFixesDoesNotEndTheStay() throws {
        var detector = VisitDetector()
        let fixes =
            [0, 10, 25].map { Self.fix($0) } + [205, 215].map { Self.fix($0, 30) }
            + [230, 240].map {
                Self.fix($0, 3000)
            }
        let visits = detector.ingest(fixes) + detector.finish()
        let closed = visits.filter { $0.departure != nil }
        try #require(closed.count == 1)
        #expect(closed[0].arrival == Self.start)
        #expect(closed[0].departure == Self.start.addingTimeInterval(215 * 60))
    }

    @Test func twoFixesHoursApartAtOnePlaceAreAStay() {
        var detector = VisitDetector()
        let visits = detector.ingest([Self.fix(0), Self.fix(180, 20)]) + detector.finish()
        #expect(visits.filter { $0.departure != nil }.count == 1)
    }

    @Test func aFixAwayAfterTheSilenceEndsTheStayAtItsLastFixInside() throws {
        var detector = VisitDetector()
        let fixes = [0, 10, 25].map { Self.fix($0) } + [205, 206, 207].map { Self.fix($0, 3000) }
        let visits = detector.ingest(fixes)
        let closed = visits.filter { $0.departure != nil }
        try #require(closed.count == 1)
        #expect(closed[0].departure == Self.start.addingTimeInterval(25 * 60))
    }

    @Test func aSilenceLongerThanTheLimitStillEndsTheStay() {
        var detector = VisitDetector()
        let visits = detector.ingest(
            [0, 10, 25].map { Self.fix($0) } + [13 * 60, 13 * 60 + 30].map { Self.fix($0) })
        #expect(visits.filter { $0.departure != nil }.count == 1)
    }

    /// The day thinned by a distance-triggered tracker: every stay of an hour or more that holds
    /// two fixes at the place is found, overlapping its true stay (with a fix per 500 m and an
    /// hourly keep-alive the gym holds only one, and nothing can find it).
    @Test(arguments: [(100.0, 900.0), (100, 3600), (500, 900), (500, 3600)])
    func aDistanceTriggeredDayFindsTheLongStays(meters: Double, keepAlive: Double) {
        for seed in UInt64(1)...4 {
            let day = SyntheticDay(intervalSeconds: 10, seed: seed)
            var detector = VisitDetector()
            let fixes = day.distanceTriggeredFixes(everyMeters: meters, keepAliveSeconds: keepAlive)
            let visits = (detector.ingest(fixes) + detector.finish()).filter { $0.departure != nil }
            for stay in day.stays where stay.departure.timeIntervalSince(stay.arrival) >= 3600 {
                let there = fixes.filter {
                    $0.timestamp >= stay.arrival && $0.timestamp <= stay.departure
                        && $0.coordinate.distance(to: day.coordinate(of: stay.place)) < 100
                }
                if keepAlive < 3600 { #expect(there.count >= 2) }
                guard there.count >= 2 else { continue }
                let found = visits.contains { visit in
                    guard let arrival = visit.arrival, let departure = visit.departure else { return false }
                    let place = day.coordinate(of: stay.place)
                    return arrival < stay.departure && departure > stay.arrival
                        && visit.coordinate.distance(to: place) < 200
                }
                #expect(found, "seed \(seed): no visit for \(stay.place) from \(stay.arrival)")
            }
        }
    }
}
