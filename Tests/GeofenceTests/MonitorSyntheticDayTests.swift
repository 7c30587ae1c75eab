import Foundation
import Testing

@testable import Geofence
import GeofenceSimulation

/// The synthetic day: home, commute, work, lunch, work, gym, home.
@Suite struct MonitorSyntheticDayTests {
    static let day = SyntheticDay()

    static func places() throws -> [(String, Condition)] {
        try SyntheticDay.Place.allCases.map { place in
            (
                place.rawValue,
                .circle(try CircularCondition(center: day.coordinate(of: place), radiusMeters: 150))
            )
        }
    }

    /// The true enters and exits of the day, in order, exits first at equal times.
    static func truth(_ places: [(String, Condition)]) -> [(String, ConditionState, Date)] {
        let from = day.date(.init(7, 0)), to = day.date(.init(22, 0))
        var all: [(String, ConditionState, Date)] = []
        for (name, condition) in places {
            let crossings = SyntheticTrace.crossings(of: condition, from: from, to: to) { date in
                day.truePosition(at: date).map { day.coordinate(east: $0.east, north: $0.north) }
            }
            all += crossings.map { (name, $0.entering ? .satisfied : .unsatisfied, $0.date) }
        }
        return all.sorted { a, b in
            abs(a.2.timeIntervalSince(b.2)) > 1 ? a.2 < b.2 : (a.1 == .unsatisfied && b.1 == .satisfied)
        }
    }

    @Test func reportsExactlyTheTrueSequence() throws {
        let places = try Self.places()
        let truth = Self.truth(places)
        // The truth itself: leave home, reach work, lunch apart from work, gym, home again.
        #expect(
            truth.map { "\($0.0) \($0.1 == .satisfied ? "in" : "out")" } == [
                "home out", "work in", "work out", "lunch in", "lunch out", "work in", "work out", "gym in",
                "gym out", "home in",
            ])

        var engine = MonitorEngine(name: "day")
        for (name, condition) in places { engine.add(condition, identifier: name) }
        let events = engine.ingest(Self.day.fixes())

        // At 07:00 each place is determined: home satisfied, the others not.
        let first = Array(events.prefix(4))
        #expect(Set(first.map(\.identifier)) == ["home", "work", "lunch", "gym"])
        for event in first {
            #expect(event.state == (event.identifier == "home" ? .satisfied : .unsatisfied))
            #expect(event.date == Self.day.date(.init(7, 0)))
        }
        let crossings = Array(events.dropFirst(4))
        try #require(
            crossings.map { "\($0.identifier) \($0.state.rawValue)" }
                == truth.map { "\($0.0) \($0.1.rawValue)" },
            "events: \(crossings)")
        for (event, real) in zip(crossings, truth) {
            #expect(abs(event.date.timeIntervalSince(real.2)) <= 60, "\(event) vs \(real.2)")
        }
        // Lunch is kept apart from work: never both satisfied at once.
        var satisfied: Set<String> = []
        for event in events {
            if event.state == .satisfied {
                satisfied.insert(event.identifier)
            } else {
                satisfied.remove(event.identifier)
            }
            #expect(!satisfied.isSuperset(of: ["work", "lunch"]))
        }
    }

    @Test(arguments: [UInt64(2), 3, 4, 5])
    func otherSeedsGiveTheSameSequence(seed: UInt64) throws {
        let places = try Self.places()
        let day = SyntheticDay(seed: seed)
        var engine = MonitorEngine(name: "day")
        for (name, condition) in places { engine.add(condition, identifier: name) }
        let events = engine.ingest(day.fixes()).dropFirst(4)
        #expect(
            events.map { "\($0.identifier) \($0.state.rawValue)" }
                == Self.truth(places).map { "\($0.0) \($0.1.rawValue)" })
    }
}
