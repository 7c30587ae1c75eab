import Foundation
@testable import Geofence
import Testing

@testable import GeofenceRules

/// Issue 9: dwell rules fall due on the engine's clock (`Pipeline.advance(to:)`, the tick of
/// `geofence run`), not only when the next fix comes; a replay of the same fixes, without ticks,
/// fires the same actions at the same dates.
@Suite struct DwellClockTests {
    static let home = Coordinate(uncheckedLatitude: 51.5007, longitude: -0.1246)
    static let noon = Date(timeIntervalSince1970: 1_772_539_200)  // 2026-03-03 12:00 UTC

    func rules(after: String) throws -> RulesFile {
        try RulesLoader.parse(
            """
            timezone: Europe/London
            places:
              home: { center: [51.5007, -0.1246], radius: 150 }
            rules:
              - { name: settled, on: dwell home, after: \(after), log: true }
            """, file: "dwell.yaml", baseDirectory: URL(fileURLWithPath: "/tmp")
        ).get()
    }

    /// A fix `north` metres north of home, `minutes` after noon.
    func fix(_ minutes: Double, north: Double) -> Fix {
        Fix(
            timestamp: Self.noon.addingTimeInterval(minutes * 60),
            coordinate: Coordinate(
                uncheckedLatitude: Self.home.latitude + north / 111_200, longitude: Self.home.longitude),
            horizontalAccuracy: 10)
    }

    /// Away (1 km north) from 11:50, home from 12:00: the arrival is confirmed at 12:02.
    var arrival: [Fix] {
        [fix(-10, north: 1000), fix(-9, north: 1000), fix(-8, north: 1000)]
            + [fix(0, north: 0), fix(1, north: 0), fix(2, north: 0)]
    }

    /// The fixes with the clock ticking every 30 s in between, as `run` does when no input waits;
    /// returns the actions.
    func live(_ fixes: [Fix], rules: RulesFile, until end: Date) -> [FiredAction] {
        var pipeline = Pipeline(rules: rules)
        var actions: [FiredAction] = []
        var clock = fixes[0].timestamp
        for fix in fixes {
            while clock < fix.timestamp {
                actions += pipeline.advance(to: clock).flatMap(\.actions)
                clock.addTimeInterval(30)
            }
            actions += pipeline.process(fix, arrivedAt: nil).actions
        }
        while clock <= end {
            actions += pipeline.advance(to: clock).flatMap(\.actions)
            clock.addTimeInterval(30)
        }
        return actions
    }

    func replay(_ fixes: [Fix], rules: RulesFile) -> [FiredAction] {
        var pipeline = Pipeline(rules: rules)
        return fixes.flatMap { pipeline.process($0, arrivedAt: nil).actions }
            + pipeline.finish().flatMap(\.actions)
    }

    /// A fix at home, then silence: the dwell fires on the clock at the arrival plus ten minutes.
    @Test func aDwellFiresOnTheClockWithNoFurtherFix() throws {
        let rules = try rules(after: "10m")
        var pipeline = Pipeline(rules: rules)
        var enter: PlaceEvent?
        for fix in arrival {
            let output = pipeline.process(fix, arrivedAt: nil)
            enter = enter ?? output.placeEvents.first { $0.transition == .enter }
            #expect(output.actions.isEmpty)
        }
        let arrived = try #require(enter).date
        let due = arrived.addingTimeInterval(600)
        #expect(pipeline.advance(to: due.addingTimeInterval(-1)).flatMap(\.actions).isEmpty)
        let fired = pipeline.advance(to: due.addingTimeInterval(20)).flatMap(\.actions)
        #expect(fired.map(\.rule) == ["settled"])
        #expect(fired.first?.date == due)
        #expect(fired.first?.transition == .dwell)
        // Once per stay: later ticks and fixes at home fire nothing more.
        #expect(pipeline.advance(to: due.addingTimeInterval(600)).flatMap(\.actions).isEmpty)
        #expect(pipeline.process(fix(30, north: 0), arrivedAt: nil).actions.isEmpty)
        // A replay of the same fixes, with a later one, fires the same action.
        let replayed = replay(arrival + [fix(30, north: 0)], rules: rules)
        #expect(replayed.map(\.id) == fired.map(\.id))
        #expect(replayed.map(\.date) == fired.map(\.date))
    }

    /// The dwell falls due while a sparse departure is still being confirmed (one fix away, the
    /// next six minutes later): live, the clock fires it at its due time; a replay, without ticks,
    /// fires it too, before applying the exit that was confirmed later.
    @Test(arguments: ["7m", "9m", "12m", "14m", "20m"])
    func liveAndReplayFireTheSameDwellsAroundASparseDeparture(after: String) throws {
        let rules = try rules(after: after)
        let fixes = arrival + [fix(6, north: 1000), fix(12, north: 1000), fix(40, north: 1000)]
        let live = live(fixes, rules: rules, until: Self.noon.addingTimeInterval(3600))
        let replayed = replay(fixes, rules: rules)
        #expect(live.map(\.id) == replayed.map(\.id))
        #expect(live.map(\.date) == replayed.map(\.date))
        // Due before the exit was confirmed at 12:12 (the arrival is dated 11:58:48): fired, even
        // when the exit is dated before it (12:02:36); due after 12:12: not.
        let minutes: Double = ["7m": 7, "9m": 9, "12m": 12, "14m": 14, "20m": 20][after] ?? 0
        #expect(replayed.count == (minutes <= 12 ? 1 : 0), "\(replayed.map(\.date))")
    }
}
