import Foundation
import Geofence
import Testing

/// The `Monitor` actor used the way an app uses it: only the public API, the events read from its
/// `AsyncSequence`, records asked for by identifier.
@Suite struct MonitorActorTests {
    static let start = Date(timeIntervalSince1970: 1_772_524_800)  // 2026-03-03 08:00 UTC
    static let home = (latitude: 51.5007, longitude: -0.1246)

    /// A 100 m circle around home, or around a point `north` metres north of it.
    static func circle(north: Double = 0) throws -> Condition {
        let center = try Coordinate(latitude: home.latitude + north / 111_320, longitude: home.longitude)
        return .circle(try CircularCondition(center: center, radiusMeters: 100))
    }

    /// Fixes every 10 s from `second`, `north` metres north of home, 10 m accurate.
    static func fixes(from second: Double, count: Int, north: Double) throws -> [Fix] {
        let coordinate = try Coordinate(latitude: home.latitude + north / 111_320, longitude: home.longitude)
        return (0..<count).map { index in
            Fix(
                timestamp: start.addingTimeInterval(second + Double(index) * 10), coordinate: coordinate,
                horizontalAccuracy: 10)
        }
    }

    @Test func theEventsSequenceDeliversWhatTheCallsReturnInOrder() async throws {
        let monitor = Monitor(name: "app")
        var returned = await monitor.add(try Self.circle(), identifier: "home")
        returned += await monitor.ingest(try Self.fixes(from: 0, count: 6, north: 500))
        for fix in try Self.fixes(from: 60, count: 6, north: 0) { returned += await monitor.ingest(fix) }
        await monitor.finish()

        var streamed: [Event] = []
        for await event in monitor.events { streamed.append(event) }

        #expect(streamed == returned)
        #expect(streamed.map(\.state) == [.unsatisfied, .satisfied])
        #expect(streamed.map(\.previousState) == [.unknown, .unsatisfied])
        #expect(streamed.first?.isFirstDetermination == true)
        #expect(streamed.last?.isFirstDetermination == false)
    }

    @Test func recordForGivesTheStateAndLastEventOfACondition() async throws {
        let monitor = Monitor(name: "app")
        await monitor.add(try Self.circle(), identifier: "home")
        await monitor.add(try Self.circle(north: 2000), identifier: "work")
        let events = await monitor.ingest(try Self.fixes(from: 0, count: 6, north: 0))

        let home = try #require(await monitor.record(for: "home"))
        #expect(home.state == .satisfied)
        #expect(home.lastEvent == events.first { $0.identifier == "home" })
        #expect(await monitor.record(for: "work")?.state == .unsatisfied)
        #expect(await monitor.record(for: "gym") == nil)
        #expect(await monitor.identifiers == ["home", "work"])

        await monitor.remove("work")
        #expect(await monitor.record(for: "work") == nil)
        #expect(await monitor.identifiers == ["home"])
    }

    @Test func theTwentyFirstConditionIsReportedAndNotEvaluated() async throws {
        let monitor = Monitor(name: "app")
        for index in 0..<20 {
            #expect(
                await monitor.add(try Self.circle(north: Double(index) * 1000), identifier: "p\(index)")
                    .isEmpty)
        }
        let overLimit = await monitor.add(try Self.circle(), identifier: "extra")
        #expect(overLimit.map(\.conditionLimitExceeded) == [true])
        #expect(overLimit.first?.identifier == "extra")
        #expect(await monitor.record(for: "extra")?.state == .unmonitored)

        // Standing at the extra condition's centre (also p0's) moves p0 but never the extra one.
        let events = await monitor.ingest(try Self.fixes(from: 0, count: 6, north: 0))
        #expect(events.contains { $0.identifier == "p0" && $0.state == .satisfied })
        #expect(!events.contains { $0.identifier == "extra" })
        #expect(await monitor.record(for: "extra")?.state == .unmonitored)
    }

    @Test func anAssumedStateIsNotReportedButACrossingFromItIs() async throws {
        let monitor = Monitor(name: "app")
        #expect(await monitor.add(try Self.circle(), identifier: "home", assuming: .satisfied).isEmpty)
        let assumed = try #require(await monitor.record(for: "home"))
        #expect(assumed.state == .satisfied)
        #expect(assumed.lastEvent == nil)

        // Inside, as assumed: nothing to report.
        #expect(await monitor.ingest(try Self.fixes(from: 0, count: 6, north: 0)).isEmpty)
        // Leaving is a real crossing from the assumed state, not a first determination.
        let left = await monitor.ingest(try Self.fixes(from: 60, count: 6, north: 500))
        #expect(left.map(\.state) == [.unsatisfied])
        #expect(left.first?.previousState == .satisfied)
        #expect(left.first?.isFirstDetermination == false)
    }

    @Test func aMonitorRestoredFromItsStateRepeatsNothing() async throws {
        let first = Monitor(name: "app")
        await first.add(try Self.circle(), identifier: "home")
        let before = await first.ingest(try Self.fixes(from: 0, count: 6, north: 500))
        #expect(before.count == 1)

        let second = Monitor(restoring: await first.state)
        #expect(second.name == "app")
        #expect(await second.ingest(try Self.fixes(from: 60, count: 3, north: 500)).isEmpty)
        let entered = await second.ingest(try Self.fixes(from: 90, count: 6, north: 0))
        #expect(entered.map(\.state) == [.satisfied])
        #expect(entered.first?.previousState == .unsatisfied)
    }
}
