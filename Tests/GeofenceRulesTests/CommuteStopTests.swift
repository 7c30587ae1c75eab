import Foundation
import Geofence
import GeofenceSimulation
import Testing

@testable import GeofenceRules

/// Issue 9: a commute with a stop. The synthetic day's evening goes from work to the gym (17:45 to
/// 18:45) and then home: by default the hour at the gym ends the work-to-home commute as
/// abandoned; `stops:` allows stops up to a length. Tested at a fix a minute and at one every 15
/// minutes.
@Suite struct CommuteStopTests {
    static let rulesPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Rules/commute.yaml").standardized.path

    /// The places of `Rules/commute.yaml`, with the given commute rules.
    func rules(_ commutes: String, gymIsAPlace: Bool = true) throws -> RulesFile {
        let gym = gymIsAPlace ? "  gym:   { center: [51.514174, -0.081384], radius: 150 }\n" : ""
        let text = """
            timezone: Europe/London
            places:
              home:  { center: [51.5007, -0.1246], radius: 150 }
              work:  { center: [51.500678, -0.052595], radius: 150 }
            \(gym)rules:
            \(commutes)
            """
        return try RulesLoader.parse(text, file: "stops.yaml", baseDirectory: URL(fileURLWithPath: "/tmp"))
            .get()
    }

    func replay(_ fixes: [Fix], rules: RulesFile) -> [PipelineOutput] {
        var pipeline = Pipeline(rules: rules)
        var outputs = fixes.map { pipeline.process($0, arrivedAt: nil) }
        outputs += pipeline.finish()
        return outputs
    }

    static let intervals: [Double] = [60, 900]

    /// When the person truly crossed the 150 m fences on the evening legs.
    func evening(_ day: SyntheticDay) -> (leaveWork: Date, reachGym: Date, leaveGym: Date, reachHome: Date) {
        let toGym = (2000.0 * 2000 + 1500 * 1500).squareRoot()
        let fromGym = (3000.0 * 3000 + 1500 * 1500).squareRoot()
        return (
            day.date(.init(17, 30)).addingTimeInterval(150 / toGym * 15 * 60),
            day.date(.init(17, 45)).addingTimeInterval(-150 / toGym * 15 * 60),
            day.date(.init(18, 45)).addingTimeInterval(150 / fromGym * 25 * 60),
            day.date(.init(19, 10)).addingTimeInterval(-150 / fromGym * 25 * 60)
        )
    }

    /// The example rules: the evening commute is abandoned at the gym, dated when the stop began
    /// (its first fix within the detector's 200 m, which at 10 km/h is up to 1.2 min before the
    /// arrival at the gym's centre, plus one interval); the morning commute, which has no stop,
    /// and the way home from the gym complete.
    @Test(arguments: [60, 900] as [Double], [1, 2, 3] as [UInt64])
    func anHourAtTheGymOnTheWayHomeAbandonsTheEveningCommute(interval: Double, seed: UInt64) throws {
        let rules = try RulesLoader.load(path: Self.rulesPath).get()
        let day = SyntheticDay(intervalSeconds: interval, seed: seed)
        let outputs = replay(day.fixes(), rules: rules)
        let commutes = outputs.flatMap(\.commutes)
        #expect(commutes.map(\.rule) == ["morning commute", "evening commute", "home from the gym"])
        let evening = try #require(commutes.first { $0.rule == "evening commute" })
        #expect(evening.status == .abandoned)
        #expect(evening.reason == "stopped at gym on the way")
        let truth = self.evening(day)
        #expect(abs(evening.start.timeIntervalSince(truth.leaveWork)) <= interval)
        let abandoned = try #require(outputs.flatMap(\.actions).first { $0.rule == "evening commute" })
        #expect(abandoned.transition == .commuteAbandoned)
        let arrival = day.date(.init(17, 45))
        #expect(abandoned.date >= arrival.addingTimeInterval(-interval - 72), "\(abandoned.date)")
        #expect(abandoned.date <= arrival.addingTimeInterval(interval), "\(abandoned.date)")
        let home = try #require(commutes.first { $0.rule == "home from the gym" })
        #expect(home.status == .completed)
        #expect(abs(home.start.timeIntervalSince(truth.leaveGym)) <= interval)
        #expect(abs(try #require(home.end).timeIntervalSince(truth.reachHome)) <= interval)
        #expect(home.stoppedSeconds == nil)
        #expect(commutes.first { $0.rule == "morning commute" }?.status == .completed)
    }

    /// A stop within `stops:` keeps the commute whole, and the record says how long it stopped.
    @Test(arguments: [60, 900] as [Double])
    func aStopWithinTheAllowanceKeepsTheCommuteWhole(interval: Double) throws {
        let rules = try rules(
            "  - { name: evening, commute: { from: work, to: home, between: [\"16:00\", \"21:00\"], stops: 90m }, log: true }"
        )
        let day = SyntheticDay(intervalSeconds: interval)
        let commutes = replay(day.fixes(), rules: rules).flatMap(\.commutes)
        let evening = try #require(commutes.first)
        #expect(commutes.count == 1)
        #expect(evening.status == .completed)
        let truth = self.evening(day)
        #expect(abs(try #require(evening.end).timeIntervalSince(truth.reachHome)) <= interval)
        // The hour at the gym, as its fixes saw it: from the first to the last within 200 m.
        let stopped = try #require(evening.stoppedSeconds)
        #expect(abs(stopped - 3600) <= 2 * interval + 150, "stopped \(stopped) s")
    }

    /// A stop longer than `stops:` abandons the commute, dated when it outlasted the allowance.
    @Test(arguments: [60, 900] as [Double])
    func aStopLongerThanTheAllowanceAbandonsTheCommuteWhenItOutlastsIt(interval: Double) throws {
        let rules = try rules(
            "  - { name: evening, commute: { from: work, to: home, between: [\"16:00\", \"21:00\"], stops: 30m }, log: true }"
        )
        let day = SyntheticDay(intervalSeconds: interval)
        let outputs = replay(day.fixes(), rules: rules)
        let evening = try #require(outputs.flatMap(\.commutes).first)
        #expect(evening.status == .abandoned)
        #expect(evening.reason == "stopped at gym for longer than 30m on the way")
        let action = try #require(outputs.flatMap(\.actions).first)
        let outlasted = day.date(.init(18, 15))
        #expect(abs(action.date.timeIntervalSince(outlasted)) <= interval + 72, "\(action.date)")
    }

    /// A stop needs no place: the visit detector finds the hour at the gym with no gym in the file.
    @Test(arguments: [60, 900] as [Double])
    func aStopAnywhereOnTheWayCounts(interval: Double) throws {
        let rules = try rules(
            "  - { name: evening, commute: { from: work, to: home, between: [\"16:00\", \"21:00\"] }, log: true }",
            gymIsAPlace: false)
        #expect(rules.visits == nil)
        let outputs = replay(SyntheticDay(intervalSeconds: interval).fixes(), rules: rules)
        let evening = try #require(outputs.flatMap(\.commutes).first)
        #expect(evening.status == .abandoned)
        #expect(evening.reason == "stopped on the way")
        // The detector runs for the commute only: with no `visits:` nothing reports visits.
        #expect(outputs.allSatisfy { $0.visits.isEmpty })
    }

    /// The day thinned the way distance-triggered trackers send it: the stop is seen as long as
    /// the keep-alive puts two fixes 20 minutes apart at the gym.
    @Test(arguments: [100, 500] as [Double])
    func aStopIsSeenInADistanceTriggeredDay(everyMeters: Double) throws {
        let rules = try RulesLoader.load(path: Self.rulesPath).get()
        let fixes = SyntheticDay().distanceTriggeredFixes(everyMeters: everyMeters, keepAliveSeconds: 900)
        let commutes = replay(fixes, rules: rules).flatMap(\.commutes)
        #expect(commutes.first { $0.rule == "evening commute" }?.reason == "stopped at gym on the way")
        #expect(commutes.first { $0.rule == "home from the gym" }?.status == .completed)
    }

    @Test func stopsMustBeADuration() throws {
        let result = RulesLoader.parse(
            """
            places:
              home: { center: [51.5007, -0.1246], radius: 150 }
              work: { center: [51.500678, -0.052595], radius: 150 }
            rules:
              - { name: c, commute: { from: home, to: work, stops: often } }
            """, file: "bad.yaml", baseDirectory: URL(fileURLWithPath: "/tmp"))
        guard case .failure(let error) = result else {
            Issue.record("a bad stops: was accepted")
            return
        }
        #expect("\(error)".contains("bad.yaml:5:"), "\(error)")
        #expect("\(error)".contains("stops"), "\(error)")
    }

    /// A saved state goes on judging stops after a restart: the stopped time is in the state.
    @Test func theStoppedTimeSurvivesASaveAndRestore() throws {
        let rules = try rules(
            "  - { name: evening, commute: { from: work, to: home, between: [\"16:00\", \"21:00\"], stops: 90m }, log: true }"
        )
        let fixes = SyntheticDay(intervalSeconds: 300).fixes()
        let whole = replay(fixes, rules: rules).flatMap(\.commutes)
        let cut = fixes.firstIndex { $0.timestamp > SyntheticDay().date(.init(18, 55)) } ?? 0
        var first = Pipeline(rules: rules)
        for fix in fixes[..<cut] { _ = first.process(fix, arrivedAt: nil) }
        let data = try EngineJSON.stateEncoder().encode(first.state.devices)
        var restored = PipelineState()
        restored.devices = try EngineJSON.stateDecoder().decode([String: DeviceEngine].self, from: data)
        var second = Pipeline(rules: rules, state: restored)
        var commutes = fixes[cut...].flatMap { second.process($0, arrivedAt: nil).commutes }
        commutes += second.finish().flatMap(\.commutes)
        #expect(whole.count == 1)
        #expect(commutes == whole)
        #expect(whole.first?.stoppedSeconds != nil)
    }
}
