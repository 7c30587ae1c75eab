import Foundation
import Testing

@testable import Geofence

@Suite struct VisitTests {
    static let place = Coordinate(uncheckedLatitude: 51.5, longitude: -0.12)
    static let arrival = Date(timeIntervalSince1970: 1_772_524_800)
    static let departure = arrival.addingTimeInterval(5400)

    /// Every combination of known and unknown ends, given as Core Location's raw sentinels.
    @Test(
        arguments: [
            (Date.distantPast, Date.distantFuture, nil, nil, nil),
            (arrival, Date.distantFuture, arrival, nil, nil),
            (Date.distantPast, departure, nil, departure, nil),
            (arrival, departure, arrival, departure, 5400.0),
        ] as [(Date, Date, Date?, Date?, Double?)])
    func sentinelsBecomeNilAndDurationNeedsBothEnds(
        rawArrival: Date, rawDeparture: Date, arrival: Date?, departure: Date?, duration: Double?
    ) {
        let visit = Visit(
            coordinate: Self.place, horizontalAccuracy: 30, rawArrival: rawArrival, rawDeparture: rawDeparture
        )
        #expect(visit.arrival == arrival)
        #expect(visit.departure == departure)
        #expect(visit.duration == duration)
        #expect(visit.isOngoing == (departure == nil))
    }

    @Test func anOngoingVisitNeverHasADuration() {
        // A naive subtraction of distantPast from distantFuture gives about 1,974 years.
        let visit = Visit(
            coordinate: Self.place, horizontalAccuracy: 30, rawArrival: .distantPast,
            rawDeparture: .distantFuture)
        #expect(visit.duration == nil)
        let open = Visit(
            coordinate: Self.place, horizontalAccuracy: 30, arrival: Self.arrival, departure: nil)
        #expect(open.duration == nil)
    }

    @Test func visitsSurviveACodableRoundTrip() throws {
        for visit in [
            Visit(coordinate: Self.place, horizontalAccuracy: 30, arrival: nil, departure: nil),
            Visit(
                coordinate: Self.place, horizontalAccuracy: 30, arrival: Self.arrival,
                departure: Self.departure),
        ] {
            let data = try JSONEncoder().encode(visit)
            #expect(try JSONDecoder().decode(Visit.self, from: data) == visit)
        }
    }

    @Test func fixTurnsCoreLocationsNegativeSentinelsIntoNil() {
        let fix = Fix(
            timestamp: Self.arrival, coordinate: Self.place, horizontalAccuracy: -1, verticalAccuracy: -1,
            speed: -1, course: -1)
        #expect(fix.horizontalAccuracy == nil)
        #expect(fix.verticalAccuracy == nil)
        #expect(fix.speed == nil)
        #expect(fix.course == nil)
    }
}
