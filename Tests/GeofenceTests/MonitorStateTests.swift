import Foundation
import Testing

@testable import Geofence

/// A device's state is kept small and changed in place; neither may change what the monitor says.
@Suite struct MonitorStateTests {
    static func engine() -> MonitorEngine {
        var engine = MonitorEngine(name: "state")
        engine.add(Map.circle(150), identifier: "home")
        engine.add(Map.lShape, identifier: "office")
        return engine
    }

    /// Walks out of home, into the office and back, a fix every 40 s: sparse enough that the
    /// count of evidence fixes, not the time, decides when a change confirms.
    static let walk: [Fix] = (0..<60).map { step in
        let s = Double(step)
        let east = step < 30 ? -300 + s * 30 : 570 - (s - 30) * 30
        return Map.fix(s * 40, east, 100)
    }

    @Test func aCopyTakenDuringAPendingRunDoesNotShareItsChanges() throws {
        var reference = MonitorStateTests.engine()
        var original = MonitorStateTests.engine()
        var expected: [Event] = []
        var got: [Event] = []
        for fix in MonitorStateTests.walk {
            expected += reference.ingest(fix)
            got += original.ingest(fix)
            // A copy fed two more fixes where the original stands adds evidence to any run it
            // shares storage with: the original would then confirm a fix early.
            var copy = original
            for second in [1.0, 2.0] {
                var echo = fix
                echo.timestamp = fix.timestamp.addingTimeInterval(second)
                _ = copy.ingest(echo)
            }
        }
        #expect(expected.transitions.count >= 4, "the walk must confirm changes, or nothing is compared")
        #expect(got == expected)
    }

    @Test func anEventKeepsItsFixWhetherPlainOrNot() throws {
        let plain = Fix(
            timestamp: Map.date(0), coordinate: Map.at(0, 0), horizontalAccuracy: 5, deviceId: "phone")
        let rich = Fix(
            timestamp: Map.date(1), coordinate: Map.at(0, 0), horizontalAccuracy: 5, altitude: 12,
            speed: 1.5, deviceId: "phone", label: "walk", silentWithinMeters: 100, trigger: .timer,
            regions: ["home"])
        let visit = Visit(coordinate: Map.at(0, 0), horizontalAccuracy: 30, arrival: Map.date(0), departure: nil)
        for fix in [plain, rich] {
            let event = Event(identifier: "home", state: .satisfied, date: fix.timestamp, confirmedAt: fix.timestamp, fix: fix)
            #expect(event.fix == fix)
            #expect(event.visit == nil)
        }
        let both = Event(
            identifier: "home", state: .satisfied, date: Map.date(0), confirmedAt: Map.date(0), fix: plain, visit: visit)
        #expect(both.fix == plain)
        #expect(both.visit == visit)
    }

    @Test func aRestoredEngineReportsTheSameLastEvents() throws {
        var engine = MonitorStateTests.engine()
        _ = engine.ingest(MonitorStateTests.walk)
        let data = try JSONEncoder().encode(engine)
        let restored = try JSONDecoder().decode(MonitorEngine.self, from: data)
        for identifier in engine.identifiers {
            let last = engine.record(for: identifier)?.lastEvent
            #expect(last != nil)
            #expect(restored.record(for: identifier)?.lastEvent == last)
            #expect(last?.identifier == identifier)
        }
    }

    /// Twenty of these are most of what a device costs; a field added carelessly (an optional
    /// date between two flags) shows here.
    @Test func aConditionsStateStaysSmall() {
        #expect(MemoryLayout<ConditionTracker>.stride <= 88)
    }
}
