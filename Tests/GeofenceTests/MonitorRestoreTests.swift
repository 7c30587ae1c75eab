import Foundation
import Testing

@testable import Geofence
import GeofenceSimulation

/// Determinism: batches, single fixes, the actor, and a restart anywhere give the same events.
@Suite struct MonitorRestoreTests {
    static let day = SyntheticDay(outliers: [.init(9, 30), .init(9, 31), .init(15, 0)])

    /// One input of the day: a fix, or a visit reported by a visit detector.
    enum Input { case fix(Fix), visit(Visit) }

    /// The day's fixes with the gym visit reported at its start and end, and a duplicate and an
    /// out-of-order fix for the filter.
    static func inputs() -> [Input] {
        let fixes = day.fixes()
        let gym = day.coordinate(of: .gym)
        var inputs: [Input] = []
        for (index, fix) in fixes.enumerated() {
            inputs.append(.fix(fix))
            if index == 500 { inputs.append(.fix(fix)) }
            if index == 501, let earlier = fixes.first { inputs.append(.fix(earlier)) }
            if fix.timestamp == day.date(.init(18, 0)) {
                inputs.append(
                    .visit(
                        Visit(
                            coordinate: gym, horizontalAccuracy: 30, arrival: day.date(.init(17, 46)),
                            departure: nil)))
            }
            if fix.timestamp == day.date(.init(18, 55)) {
                inputs.append(
                    .visit(
                        Visit(
                            coordinate: gym, horizontalAccuracy: 30, arrival: day.date(.init(17, 46)),
                            departure: day.date(.init(18, 45)))))
            }
        }
        return inputs
    }

    /// All four places, a polygon around the route to work, a dwell on each.
    static func engine() throws -> MonitorEngine {
        var engine = MonitorEngine(name: "day")
        let dwell = Hysteresis(dwellSeconds: 15 * 60)
        for place in SyntheticDay.Place.allCases {
            let circle = try CircularCondition(center: day.coordinate(of: place), radiusMeters: 150)
            engine.add(.circle(circle), identifier: place.rawValue, hysteresis: dwell)
        }
        let corridor = try PolygonCondition(polygons: [
            [
                [(1000.0, -200.0), (4000, -200), (4000, 200), (1000, 200), (1000, -200)].map {
                    day.coordinate(east: $0.0, north: $0.1)
                }
            ]
        ])
        engine.add(.polygon(corridor), identifier: "corridor", hysteresis: dwell)
        engine.add(
            Map.circle(100).relocated(to: day.coordinate(east: 0, north: 0)), identifier: "assumed",
            assuming: .satisfied)
        return engine
    }

    static func run(_ engine: inout MonitorEngine, _ inputs: ArraySlice<Input>) -> [Event] {
        var events: [Event] = []
        for input in inputs {
            switch input {
            case .fix(let fix): events += engine.ingest(fix)
            case .visit(let visit): events += engine.ingest(visit)
            }
        }
        return events
    }

    @Test func stoppingAnywhereAndRestoringGivesTheSameEvents() throws {
        let inputs = Self.inputs()
        var uninterrupted = try Self.engine()
        let expected = Self.run(&uninterrupted, inputs[...])
        // The day is eventful, or this test proves little.
        #expect(expected.filter { $0.kind == .dwell }.count >= 4)
        #expect(expected.contains { $0.visit != nil })
        #expect(expected.contains { $0.identifier == "corridor" })

        let encoder = JSONEncoder()
        let decoder = JSONDecoder()
        var engine = try Self.engine()
        var events: [Event] = []
        for cut in inputs.indices {
            // Save and restore before every input: the hardest schedule of restarts.
            let saved = try encoder.encode(engine)
            engine = try decoder.decode(MonitorEngine.self, from: saved)
            events += Self.run(&engine, inputs[cut...cut])
        }
        #expect(events == expected)
        #expect(engine.filter.dropped == uninterrupted.filter.dropped)
        #expect(engine.filter.dropped[.duplicate] == 1)
        #expect(engine.filter.dropped[.notNewer] == 1)
        for identifier in uninterrupted.identifiers {
            #expect(engine.record(for: identifier) == uninterrupted.record(for: identifier))
        }
    }

    @Test(arguments: [100, 137, 500, 620])
    func aSingleRestartMidDayContinuesExactly(cut: Int) throws {
        let inputs = Self.inputs()
        var uninterrupted = try Self.engine()
        let expected = Self.run(&uninterrupted, inputs[...])
        var first = try Self.engine()
        var events = Self.run(&first, inputs[..<cut])
        var second = try JSONDecoder().decode(MonitorEngine.self, from: try JSONEncoder().encode(first))
        events += Self.run(&second, inputs[cut...])
        #expect(events == expected)
    }

    @Test func batchAndOneAtATimeGiveTheSameEvents() throws {
        let fixes = Self.day.fixes()
        var single = try Self.engine()
        var one: [Event] = []
        for fix in fixes { one += single.ingest(fix) }
        var batch = try Self.engine()
        let all = batch.ingest(fixes)
        var chunked = try Self.engine()
        var chunks: [Event] = []
        var start = 0, size = 1
        while start < fixes.count {
            let end = min(fixes.count, start + size)
            chunks += chunked.ingest(Array(fixes[start..<end]))
            start = end
            size = size * 3 % 97 + 1
        }
        #expect(one.count > 10)
        #expect(all == one)
        #expect(chunks == one)
    }

    @Test func theActorStreamsWhatTheEngineReturns() async throws {
        let fixes = Self.day.fixes()
        var engine = try Self.engine()
        let expected = engine.ingest(fixes)

        let monitor = Monitor(restoring: try Self.engine())
        let reader = Task {
            var seen: [Event] = []
            for await event in monitor.events { seen.append(event) }
            return seen
        }
        let half = fixes.count / 2
        for fix in fixes[..<half] { await monitor.ingest(fix) }
        await monitor.ingest(Array(fixes[half...]))
        await monitor.finish()
        #expect(await reader.value == expected)
        #expect(await monitor.record(for: "home")?.state == .satisfied)
    }
}
