import Foundation
import Testing

@testable import Geofence
import GeofenceSimulation

@Suite struct MonitorLimitTests {
    static let day = SyntheticDay()

    /// Circles of 150 m along the commute, every 250 m from home towards work, then beyond.
    static func conditions(_ count: Int) -> [(String, Condition)] {
        (0..<count).map { i in
            (
                "place \(i)",
                Map.circle(150, east: 0, north: 0).relocated(
                    to: day.coordinate(east: Double(i) * 250, north: 0))
            )
        }
    }

    @Test func evaluatesTheFirstTwentyAndReportsTheRestOnce() throws {
        let conditions = Self.conditions(25)
        var engine = MonitorEngine(name: "many")
        var addEvents: [Event] = []
        for (name, condition) in conditions { addEvents += engine.add(condition, identifier: name) }

        #expect(addEvents.map(\.identifier) == conditions.suffix(5).map(\.0))
        for event in addEvents {
            #expect(event.conditionLimitExceeded)
            #expect(event.state == .unmonitored)
        }
        #expect(engine.identifiers == conditions.map(\.0))

        let events = engine.ingest(Self.day.fixes())
        // The commute crosses every one of the 25 places, but only the first 20 are evaluated.
        #expect(Set(events.map(\.identifier)) == Set(conditions.prefix(20).map(\.0)))
        for (name, _) in conditions.suffix(5) {
            let record = try #require(engine.record(for: name))
            #expect(record.state == .unmonitored)
            #expect(record.lastEvent?.conditionLimitExceeded == true)
        }

        // Nothing else is disturbed: the twenty give the same events as a monitor holding only them.
        var twenty = MonitorEngine(name: "twenty")
        for (name, condition) in conditions.prefix(20) { twenty.add(condition, identifier: name) }
        #expect(twenty.ingest(Self.day.fixes()) == events)
    }

    @Test func removingOneOfTheTwentyDoesNotPromoteAnother() throws {
        let conditions = Self.conditions(21)
        var engine = MonitorEngine(name: "many")
        for (name, condition) in conditions { engine.add(condition, identifier: name) }
        engine.remove("place 0")
        #expect(engine.identifiers.count == 20)
        let events = engine.ingest(Self.day.fixes())
        #expect(!events.contains { $0.identifier == "place 20" })
        #expect(engine.record(for: "place 20")?.state == .unmonitored)

        // Adding it again once there is room is what promotes it.
        let (name, condition) = conditions[20]
        #expect(engine.add(condition, identifier: name).isEmpty)
        #expect(engine.record(for: name)?.state == .unknown)
        let later = engine.ingest(
            Self.day.fixes().map { fix in
                var moved = fix
                moved.timestamp += 86_400
                return moved
            })
        #expect(later.contains { $0.identifier == name })
    }

    @Test func addingAnExistingIdentifierReplacesIt() {
        var engine = MonitorEngine(name: "replace")
        engine.add(Map.circle(100), identifier: "a", assuming: .satisfied)
        engine.add(Map.circle(300), identifier: "a", assuming: .unsatisfied)
        #expect(engine.identifiers == ["a"])
        #expect(engine.record(for: "a")?.state == .unsatisfied)
        #expect(engine.record(for: "a")?.condition == Map.circle(300))
    }
}

extension Condition {
    /// The same circle around another centre (circles only; tests use nothing else here).
    func relocated(to center: Coordinate) -> Condition {
        guard case .circle(let circle) = self,
            let moved = try? CircularCondition(center: center, radiusMeters: circle.radiusMeters)
        else { return self }
        return .circle(moved)
    }
}
