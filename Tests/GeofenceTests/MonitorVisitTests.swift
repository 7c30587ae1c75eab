import Foundation
import Testing

@testable import Geofence

@Suite struct MonitorVisitTests {
    func engine(dwell: Double? = nil) -> MonitorEngine {
        var engine = MonitorEngine(name: "visits")
        engine.add(Map.circle(150), identifier: "home", hysteresis: Hysteresis(dwellSeconds: dwell))
        engine.add(
            Map.circle(150, east: 5000), identifier: "work", hysteresis: Hysteresis(dwellSeconds: dwell))
        return engine
    }

    func visit(at east: Double, arrival: Double?, departure: Double?, accuracy: Double = 30) -> Visit {
        Visit(
            coordinate: Map.at(east, 0), horizontalAccuracy: accuracy, arrival: arrival.map(Map.date),
            departure: departure.map(Map.date))
    }

    @Test func aVisitWithKnownEndsMovesTheStateAtItsOwnTimes() throws {
        var e = engine()
        let arrived = e.ingest(visit(at: 0, arrival: 600, departure: nil))
        let home = try #require(arrived.first { $0.identifier == "home" })
        #expect(home.state == .satisfied)
        #expect(home.date == Map.date(600))
        #expect(home.visit?.arrival == Map.date(600))
        // The same visit elsewhere determines work as unsatisfied from its arrival.
        #expect(arrived.first { $0.identifier == "work" }?.state == .unsatisfied)

        let left = e.ingest(visit(at: 0, arrival: 600, departure: 4200))
        #expect(left.map(\.identifier) == ["home"])
        #expect(left.first?.state == .unsatisfied)
        #expect(left.first?.date == Map.date(4200))
    }

    @Test func aCompleteVisitDeliveredLateGivesBothChanges() {
        var e = engine()
        let events = e.ingest(visit(at: 5000, arrival: 1000, departure: 5000)).filter {
            $0.identifier == "work"
        }
        #expect(events.map(\.state) == [.satisfied, .unsatisfied])
        #expect(events.map(\.date) == [Map.date(1000), Map.date(5000)])
    }

    @Test func anUnknownArrivalCountsFromDelivery() throws {
        var e = engine()
        // The engine's time is that of the latest input: a fix at 3000 s, far from both places.
        e.ingest(Map.fix(3000, 2500, 0))
        let events = e.ingest(visit(at: 0, arrival: nil, departure: nil))
        let home = try #require(events.first { $0.identifier == "home" })
        #expect(home.state == .satisfied)
        #expect(home.date == Map.date(3000))
        #expect(home.confirmedAt == Map.date(3000))
    }

    @Test func anOngoingVisitKeepsTheConditionSatisfied() {
        var e = engine()
        e.ingest(visit(at: 0, arrival: 0, departure: nil))
        // Fixes clearly outside home for ten minutes: the visit still holds it.
        let fixes = (1...10).map { Map.fix(Double($0) * 60, 800, 0) }
        #expect(!e.ingest(fixes).contains { $0.identifier == "home" })
        #expect(e.record(for: "home")?.state == .satisfied)
        // When the visit ends, home is left at the visit's departure.
        let ended = e.ingest(visit(at: 0, arrival: 0, departure: 30))
        #expect(ended.map(\.state) == [.unsatisfied])
        #expect(ended.first?.date == Map.date(30))
    }

    @Test func aVisitTooVagueForTheMarginsChangesNothing() {
        var e = engine()
        // 140 m of uncertainty around a point 50 m from home's centre: not clearly inside.
        let events = e.ingest(visit(at: 50, arrival: 0, departure: nil, accuracy: 140))
        #expect(!events.contains { $0.identifier == "home" })
        #expect(e.record(for: "home")?.state == .unknown)
    }

    @Test func aFinishedVisitLongerThanTheDwellReportsTheDwellInside() {
        var e = engine(dwell: 900)
        let events = e.ingest(visit(at: 0, arrival: 0, departure: 3600)).filter { $0.identifier == "home" }
        #expect(events.map(\.kind) == [.transition, .dwell, .transition])
        #expect(events.map(\.date) == [Map.date(0), Map.date(900), Map.date(3600)])
    }

    @Test func aVisitOlderThanTheLastEventIsIgnored() {
        var e = engine()
        e.ingest(visit(at: 0, arrival: 1000, departure: 2000))
        #expect(
            e.ingest(visit(at: 0, arrival: 100, departure: 500)).filter { $0.identifier == "home" }.isEmpty)
    }
}
