import Foundation
import Geofence
import Testing

@testable import GeofenceRules
import GeofenceSimulation

/// The rules of `Rules/commute.yaml` on the synthetic day, through the whole pipeline (filter,
/// monitor, rules), as `geofence replay` and `geofence run` use it.
@Suite struct SyntheticDayRulesTests {
    static let rulesPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Rules/commute.yaml").standardized.path

    func commuteRules() throws -> RulesFile { try RulesLoader.load(path: Self.rulesPath).get() }

    func replay(_ fixes: [Fix], rules: RulesFile, state: PipelineState = PipelineState()) -> (
        outputs: [PipelineOutput], state: PipelineState
    ) {
        var pipeline = Pipeline(rules: rules, state: state)
        var outputs = fixes.map { pipeline.process($0, arrivedAt: nil) }
        outputs += pipeline.finish()
        return (outputs, pipeline.state)
    }

    /// The measure, on the day of `Examples/synthetic-day.ndjson` (seed 1): the morning
    /// commute starts within one fix interval of 08:00 and ends within one of 08:25.
    @Test func theMorningCommuteOfTheExampleDayIsWithinOneIntervalOfTheTimetable() throws {
        let day = SyntheticDay(seed: 1)
        let commutes = replay(day.fixes(), rules: try commuteRules()).outputs.flatMap(\.commutes)
        let morning = try #require(commutes.first { $0.rule == "morning commute" })
        #expect(morning.status == .completed)
        #expect(abs(morning.start.timeIntervalSince(day.date(.init(8, 0)))) <= day.intervalSeconds)
        #expect(
            abs(try #require(morning.end).timeIntervalSince(day.date(.init(8, 25)))) <= day.intervalSeconds)
    }

    /// On every seed, each commute starts and ends within one fix interval of the moment the person
    /// truly crossed the 150 m fences. (The timetable's 08:00 and 08:25 are when they leave home's
    /// centre and reach work's; crossing a 150 m radius at 12 km/h takes 45 s of that.) The evening
    /// commute from work is abandoned at the gym, an hour's stop (see `CommuteStopTests`); the way
    /// home from the gym is its own commute.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func commutesAreDatedWithinOneFixIntervalOfTheTrueCrossings(seed: UInt64) throws {
        let day = SyntheticDay(seed: seed)
        let commutes = replay(day.fixes(), rules: try commuteRules()).outputs.flatMap(\.commutes)
        #expect(commutes.count == 3)
        // Straight legs at constant speed: the crossing of a 150 m circle is 150 m / speed from
        // the centre.
        let leaveHome = day.date(.init(8, 0)).addingTimeInterval(150.0 / 5000 * 25 * 60)
        let reachWork = day.date(.init(8, 25)).addingTimeInterval(-150.0 / 5000 * 25 * 60)
        let toGym = (2000.0 * 2000 + 1500 * 1500).squareRoot()
        let leaveWork = day.date(.init(17, 30)).addingTimeInterval(150 / toGym * 15 * 60)
        let fromGym = (3000.0 * 3000 + 1500 * 1500).squareRoot()
        let leaveGym = day.date(.init(18, 45)).addingTimeInterval(150 / fromGym * 25 * 60)
        let reachHome = day.date(.init(19, 10)).addingTimeInterval(-150 / fromGym * 25 * 60)
        let morning = try #require(commutes.first { $0.rule == "morning commute" })
        let evening = try #require(commutes.first { $0.rule == "evening commute" })
        let fromTheGym = try #require(commutes.first { $0.rule == "home from the gym" })
        #expect(evening.status == .abandoned)
        for (estimate, truth) in [
            (morning.start, leaveHome), (try #require(morning.end), reachWork),
            (evening.start, leaveWork), (fromTheGym.start, leaveGym),
            (try #require(fromTheGym.end), reachHome),
        ] {
            #expect(abs(estimate.timeIntervalSince(truth)) <= day.intervalSeconds, "\(estimate) vs \(truth)")
        }
    }

    @Test func theDaysEventsAreExactlyTheTrueSequence() throws {
        let outputs = replay(SyntheticDay().fixes(), rules: try commuteRules()).outputs
        let crossings = outputs.flatMap(\.placeEvents).filter { $0.transition != .determined }
            .map { "\($0.transition) \($0.place)" }
        #expect(
            crossings == [
                "exit home", "enter work", "exit work", "enter lunch", "exit lunch", "enter work",
                "exit work",
                "enter gym", "exit gym", "enter home",
            ])
    }

    @Test func aReminderFiresOnceAcrossTwoDays() throws {
        let rules = try commuteRules()
        let first = replay(SyntheticDay(day: 3).fixes(), rules: rules)
        let reminders = first.outputs.flatMap(\.actions).filter {
            if case .remind = $0.kind { true } else { false }
        }
        #expect(reminders.map(\.rule) == ["parcel"])
        // The next day, with the saved state: the reminder is done.
        let second = replay(SyntheticDay(day: 4).fixes(), rules: rules, state: first.state)
        #expect(
            second.outputs.flatMap(\.actions).allSatisfy { if case .remind = $0.kind { false } else { true } }
        )
        // But the other rules go on firing: morning, evening (abandoned at the gym), home from the gym.
        #expect(second.outputs.flatMap(\.commutes).count == 3)
    }

    @Test func aTripOutOfHomeAndBackIsAnAbandonedCommute() throws {
        // Home until 08:00, a walk 1 km east and back by 08:30, home again until 09:30.
        let day = SyntheticDay()
        var generator = SeededGenerator(seed: 9)
        var fixes: [Fix] = []
        for minute in 0...150 {
            let t = Double(minute)
            let east: Double
            switch t {
            case ..<60: east = 0
            case ..<75: east = (t - 60) / 15 * 1000
            case ..<90: east = (90 - t) / 15 * 1000
            default: east = 0
            }
            let position = day.coordinate(
                east: east + generator.gaussian(standardDeviation: 20),
                north: generator.gaussian(standardDeviation: 20))
            fixes.append(
                Fix(
                    timestamp: day.date(.init(7, 0)).addingTimeInterval(t * 60), coordinate: position,
                    horizontalAccuracy: 30))
        }
        let outputs = replay(fixes, rules: try commuteRules()).outputs
        let commutes = outputs.flatMap(\.commutes)
        #expect(commutes.map(\.status) == [.abandoned])
        #expect(commutes.first?.reason == "came back to home first")
        #expect(commutes.first?.end == nil)
        // The commute's log action says so; nothing claims a completed commute.
        #expect(outputs.flatMap(\.actions).map(\.transition) == [.commuteAbandoned])
    }

    @Test func replayingTwiceGivesTheSameActionIds() throws {
        let rules = try commuteRules()
        let fixes = SyntheticDay().fixes()
        let a = replay(fixes, rules: rules).outputs.flatMap(\.actions).map(\.id)
        let b = replay(fixes, rules: rules).outputs.flatMap(\.actions).map(\.id)
        #expect(!a.isEmpty)
        #expect(a == b)
    }

    @Test func stoppingAnywhereAndRestoringGivesTheSameActions() throws {
        let rules = try commuteRules()
        let fixes = SyntheticDay(intervalSeconds: 120).fixes()
        let uninterrupted = replay(fixes, rules: rules).outputs.flatMap(\.actions).map(\.id)
        for cut in stride(from: 25, to: fixes.count, by: 50) {
            let first = replay(Array(fixes[..<cut]), rules: rules)
            // Save and load the state as the store does, then go on.
            let data = try EngineJSON.stateEncoder().encode(first.state.devices)
            var restored = PipelineState()
            restored.devices = try EngineJSON.stateDecoder().decode([String: DeviceEngine].self, from: data)
            restored.engine = first.state.engine
            let second = replay(Array(fixes[cut...]), rules: rules, state: restored)
            let joined = (first.outputs + second.outputs).flatMap(\.actions).map(\.id)
            #expect(joined == uninterrupted, "cut at \(cut)")
        }
    }
}

@Suite struct MultiDeviceTests {
    /// Two phones in one input, interleaved fix by fix, one living the synthetic day and one staying
    /// home: each has its own monitor, states and commutes.
    @Test func eachDeviceHasItsOwnStatesAndCommutes() throws {
        let rulesPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Rules/commute.yaml").standardized.path
        let rules = try RulesLoader.load(path: rulesPath).get()
        let day = SyntheticDay()
        let commuter = day.fixes().map { fix -> Fix in
            var copy = fix
            copy.deviceId = "jane/phone"
            return copy
        }
        let stayer = day.fixes().map { fix -> Fix in
            Fix(
                timestamp: fix.timestamp.addingTimeInterval(1), coordinate: day.coordinate(of: .home),
                horizontalAccuracy: 10, deviceId: "bob/phone")
        }
        var pipeline = Pipeline(rules: rules)
        var outputs: [PipelineOutput] = []
        for (a, b) in zip(commuter, stayer) {
            outputs.append(pipeline.process(a, arrivedAt: nil))
            outputs.append(pipeline.process(b, arrivedAt: nil))
        }
        let commutes = outputs.flatMap(\.commutes)
        #expect(Set(commutes.map(\.device)) == ["jane/phone"])
        // Morning, evening (abandoned at the gym) and home from the gym.
        #expect(commutes.count == 3)
        let bobsEvents = outputs.flatMap(\.placeEvents).filter { $0.device == "bob/phone" }
        #expect(bobsEvents.allSatisfy { $0.transition == .determined })
        #expect(bobsEvents.count == 4)
        #expect(Set(pipeline.state.devices.keys) == ["jane/phone", "bob/phone"])
    }
}
