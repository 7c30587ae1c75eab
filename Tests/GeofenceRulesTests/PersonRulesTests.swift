import Foundation
import Testing

@testable import Geofence
import GeofenceInput
import GeofenceSimulation
@testable import GeofenceRules

/// A person with several devices is one for the rules: reminders, cooldowns, stays and commutes.
@Suite struct PersonRulesTests {
    /// Jane's day: home until 08:00, work, lunch, gym, home again.
    private static func rules(people: String) throws -> RulesFile {
        let day = SyntheticDay()
        let home = day.coordinate(of: .home)
        let work = day.coordinate(of: .work)
        let yaml =
            people + """

                places:
                  home: { center: [\(home.latitude), \(home.longitude)], radius: 150 }
                  work: { center: [\(work.latitude), \(work.longitude)], radius: 150 }
                rules:
                  - { name: milk, on: enter work, remind: Buy milk }
                  - { name: home again, on: enter home, log: true }
                  - { name: left home, on: exit home, log: true }
                  - name: morning commute
                    commute: { from: home, to: work, between: ["06:00", "11:00"] }
                    log: true
                """
        return try RulesLoader.parse(yaml, file: "rules.yaml", baseDirectory: URL(fileURLWithPath: "/tmp"))
            .get()
    }

    /// `fixes` of each device, merged in time order, through one pipeline.
    private static func run(_ rules: RulesFile, _ devices: [(String, [Fix])]) -> (Pipeline, [PipelineOutput])
    {
        var all: [Fix] = []
        for (name, fixes) in devices {
            all += fixes.map { fix in
                var fix = fix
                fix.deviceId = name
                return fix
            }
        }
        all.sort { ($0.timestamp, $0.deviceId ?? "") < ($1.timestamp, $1.deviceId ?? "") }
        var pipeline = Pipeline(rules: rules)
        let outputs = all.map { pipeline.process($0, arrivedAt: nil) }
        return (pipeline, outputs)
    }

    private static func fired(_ outputs: [PipelineOutput], _ rule: String) -> [FiredAction] {
        outputs.flatMap(\.actions).filter { $0.rule == rule }
    }

    /// A phone reporting every minute and a watch every five (with its own noise) make the same
    /// trip: with both declared under one person, she gets one reminder, one commute and one
    /// "home again", as with the phone alone; the commute is the one of the device that first
    /// confirmed leaving home and the first that confirmed arriving at work.
    @Test func aPhoneAndAWatchArrivingTogetherGiveOneReminderAndOneCommute() throws {
        let phone = SyntheticDay(intervalSeconds: 60, seed: 1).fixes()
        let watch = SyntheticDay(intervalSeconds: 300, seed: 2).fixes()
        let alone = try Self.rules(people: "")
        let (_, phoneOnly) = Self.run(alone, [("jane/phone", phone)])
        let (_, watchOnly) = Self.run(alone, [("jane/watch", watch)])
        let phoneCommute = try #require(phoneOnly.flatMap(\.commutes).first)
        let watchCommute = try #require(watchOnly.flatMap(\.commutes).first)

        let rules = try Self.rules(people: "people:\n  jane: [jane/phone, jane/watch]")
        let (pipeline, outputs) = Self.run(rules, [("jane/phone", phone), ("jane/watch", watch)])
        for rule in ["milk", "home again", "left home", "morning commute"] {
            #expect(
                Self.fired(outputs, rule).count == Self.fired(phoneOnly, rule).count,
                "\(rule): \(Self.fired(outputs, rule).map { "\($0.device) \($0.date)" })")
        }
        #expect(Self.fired(outputs, "milk").count == 1)
        let commutes = outputs.flatMap(\.commutes)
        #expect(commutes.count == 1)
        let commute = try #require(commutes.first)
        #expect(commute.status == .completed)
        #expect([phoneCommute.start, watchCommute.start].contains(commute.start))
        #expect([phoneCommute.end, watchCommute.end].contains(commute.end))
        // Both devices hold the person's rules, so either one, saved alone, restores them.
        #expect(pipeline.state.devices["jane/phone"]?.rules == pipeline.state.devices["jane/watch"]?.rules)
        #expect(outputs.allSatisfy { $0.person == "jane" })
        #expect(outputs.contains { !$0.alsoChanged.isEmpty })
    }

    /// Without `people:`, the same two devices are two sets of rules: two reminders, two commutes.
    @Test func undeclaredDevicesKeepTheirOwnRules() throws {
        let phone = SyntheticDay(intervalSeconds: 60, seed: 1).fixes()
        let watch = SyntheticDay(intervalSeconds: 300, seed: 2).fixes()
        let (_, outputs) = Self.run(
            try Self.rules(people: ""), [("jane/phone", phone), ("jane/watch", watch)])
        #expect(Self.fired(outputs, "milk").count == 2)
        #expect(outputs.flatMap(\.commutes).count == 2)
        #expect(outputs.allSatisfy { $0.person == nil && $0.alsoChanged.isEmpty })
    }

    /// A tablet that stays at home all day does not hold Jane there: she leaves when her phone
    /// does, and her day's reminders and commute are those of the phone alone.
    @Test func aDeviceLeftAtHomeDoesNotHoldItsPersonThere() throws {
        let phone = SyntheticDay(intervalSeconds: 60, seed: 1).fixes()
        let home = SyntheticDay().coordinate(of: .home)
        let tablet = phone.enumerated().compactMap { index, fix -> Fix? in
            guard index % 10 == 3 else { return nil }
            return Fix(
                timestamp: fix.timestamp.addingTimeInterval(7), coordinate: home, horizontalAccuracy: 15)
        }
        let (_, phoneOnly) = Self.run(try Self.rules(people: ""), [("jane/phone", phone)])
        let rules = try Self.rules(people: "people:\n  jane: [jane/phone, jane/tablet]")
        let (_, outputs) = Self.run(rules, [("jane/phone", phone), ("jane/tablet", tablet)])
        for rule in ["milk", "home again", "left home", "morning commute"] {
            #expect(Self.fired(outputs, rule).map(\.id) == Self.fired(phoneOnly, rule).map(\.id), "\(rule)")
        }
        #expect(outputs.flatMap(\.commutes).map(\.id) == phoneOnly.flatMap(\.commutes).map(\.id))
    }

    /// After a reload that moves work, both devices find themselves outside it (their monitors
    /// are new): the person is no longer at work, so walking into the new work is an arrival.
    @Test func aReloadThatMovesAPlaceTakesThePersonOutOfIt() throws {
        let day = SyntheticDay()
        let home = day.coordinate(of: .home)
        func rules(workNorth: Double) throws -> RulesFile {
            let work = day.coordinate(east: 5000, north: workNorth)
            return try RulesLoader.parse(
                """
                people: { jane: [jane/phone, jane/watch] }
                places:
                  home: { center: [\(home.latitude), \(home.longitude)], radius: 150 }
                  work: { center: [\(work.latitude), \(work.longitude)], radius: 150 }
                rules:
                  - { name: at work, on: enter work, log: true }
                """, file: "rules.yaml", baseDirectory: URL(fileURLWithPath: "/tmp")
            ).get()
        }
        let noon = day.date(SyntheticDay.ClockTime(12, 0))
        let morning = SyntheticDay(intervalSeconds: 60, seed: 1).fixes().filter { $0.timestamp < noon }
        var pipeline = Pipeline(rules: try rules(workNorth: 0))
        var fired: [FiredAction] = []
        for fix in morning {
            for device in ["jane/phone", "jane/watch"] {
                var fix = fix
                fix.deviceId = device
                fired += pipeline.process(fix, arrivedAt: nil).actions
            }
        }
        #expect(fired.count == 1, "one arrival at work in the morning")
        #expect(pipeline.state.devices["jane/phone"]?.rules.insideSince["work"] != nil)

        pipeline.replaceRules(try rules(workNorth: 2000))
        let newWork = day.coordinate(east: 5000, north: 2000)
        var afterReload: [FiredAction] = []
        // Still at the old work for ten minutes, then at the new one for ten.
        for minute in 0..<20 {
            let place = minute < 10 ? day.coordinate(of: .work) : newWork
            for (offset, device) in ["jane/phone", "jane/watch"].enumerated() {
                let fix = Fix(
                    timestamp: noon.addingTimeInterval(Double(minute * 60 + offset * 10)), coordinate: place,
                    horizontalAccuracy: 10, deviceId: device)
                afterReload += pipeline.process(fix, arrivedAt: nil).actions
            }
        }
        #expect(afterReload.map(\.rule) == ["at work"], "\(afterReload.map(\.device))")
    }

    /// A person's devices go to one shard, where the person's rules are.
    @Test func aPersonsDevicesShareOneShard() throws {
        let phone = SyntheticDay(intervalSeconds: 60, seed: 1).fixes()
        let watch = SyntheticDay(intervalSeconds: 300, seed: 2).fixes()
        let people = "people:\n  jane: [jane/phone, jane/watch]"
        let (_, single) = Self.run(
            try Self.rules(people: people), [("jane/phone", phone), ("jane/watch", watch)])
        var records: [InputRecord] = []
        for (name, fixes) in [("jane/phone", phone), ("jane/watch", watch)] {
            for fix in fixes {
                var fix = fix
                fix.deviceId = name
                records.append(.fix(fix))
            }
        }
        records.sort {
            guard case .fix(let a) = $0, case .fix(let b) = $1 else { return false }
            return (a.timestamp, a.deviceId ?? "") < (b.timestamp, b.deviceId ?? "")
        }
        // With 8 shards, the two names hash to different shards.
        #expect(
            ShardedPipeline.shard(ofDevice: "jane/phone", count: 8)
                != ShardedPipeline.shard(ofDevice: "jane/watch", count: 8))
        var sharded = ShardedPipeline(rules: try (0..<8).map { _ in try Self.rules(people: people) })
        let outputs = sharded.process(records, arrivedAt: nil).compactMap { $0 }
        #expect(outputs.flatMap(\.actions).map(\.id) == single.flatMap(\.actions).map(\.id))
        #expect(outputs.flatMap(\.commutes).count == 1)
    }
}
