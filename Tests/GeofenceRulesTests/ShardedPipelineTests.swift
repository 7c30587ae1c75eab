import Foundation
import Geofence
import GeofenceInput
import Testing

@testable import GeofenceRules
import GeofenceSimulation

/// Devices processed on several threads give exactly what one pipeline gives: the same outputs,
/// in the same order, whatever the number of shards and the size of the batches.
@Suite struct ShardedPipelineTests {
    /// What a test compares of an output (PipelineOutput itself is not Equatable).
    struct Digest: Equatable {
        var device: String
        var dropped: FixFilter.Reason?
        var placeEvents: [PlaceEvent]
        var visits: [Visit]
        var actions: [FiredAction]
        var commutes: [CommuteRecord]

        init(_ output: PipelineOutput?) {
            device = output?.device ?? "-"
            dropped = output?.dropped
            placeEvents = output?.placeEvents ?? []
            visits = output?.visits ?? []
            actions = output?.actions ?? []
            commutes = output?.commutes ?? []
        }
    }

    func rules() throws -> RulesFile { try RulesLoader.load(path: SyntheticDayRulesTests.rulesPath).get() }

    /// Twelve people's synthetic days (different seeds, so different crossings), interleaved in
    /// time as a server receives them, with a record that moves nothing among them.
    func records() -> [InputRecord] {
        var tagged: [(Date, Int, Fix)] = []
        for person in 0..<12 {
            let day = SyntheticDay(intervalSeconds: 30, outliers: [.init(9, 40)], seed: UInt64(person + 1))
            for fix in day.fixes() {
                var fix = fix
                fix.deviceId = "person-\(person)"
                tagged.append((fix.timestamp, person, fix))
            }
        }
        tagged.sort { ($0.0, $0.1) < ($1.0, $1.1) }
        var records = tagged.map { InputRecord.fix($0.2) }
        records.insert(.ignored(kind: "waypoint", reason: "moves nothing"), at: records.count / 2)
        return records
    }

    @Test(arguments: [(2, 4096), (3, 1000), (2, 1), (5, 777)])
    func shardsGiveWhatOnePipelineGives(shards: Int, batchSize: Int) throws {
        let input = records()
        var single = Pipeline(rules: try rules())
        let expected =
            input.map { Digest(single.process($0, arrivedAt: nil)) } + single.finish().map(Digest.init)

        var sharded = ShardedPipeline(rules: try (0..<shards).map { _ in try rules() })
        var got: [Digest] = []
        var start = 0
        while start < input.count {
            let end = min(input.count, start + batchSize)
            got += sharded.process(Array(input[start..<end]), arrivedAt: nil).map(Digest.init)
            start = end
        }
        got += sharded.finish().map(Digest.init)

        // The input does make the rules fire, so the comparison is not one of empty outputs.
        #expect(expected.flatMap(\.commutes).count >= 12)
        #expect(got.count == expected.count)
        #expect(got == expected)
    }

    /// Rendered on the shards' threads, each record's result reaches the caller once, in the
    /// batch's order, carrying the position it was rendered for, and is what one pipeline gives.
    @Test(arguments: [1, 2, 3])
    func outputsRenderedOnTheShardsComeBackInOrder(shards: Int) throws {
        let input = records()
        var single = Pipeline(rules: try rules())
        let expected = input.map { Digest(single.process($0, arrivedAt: nil)) }

        var sharded = ShardedPipeline(rules: try (0..<shards).map { _ in try rules() })
        var positions: [Int] = []
        var got: [Digest] = []
        var start = 0
        // Ranges of one large array, as replay hands them over, not copies of each part.
        while start < input.count {
            let end = min(input.count, start + 500)
            sharded.process(
                input, in: start..<end, arrivedAt: nil,
                render: { position, output in (position, Digest(output)) },
                each: { position, rendered in
                    #expect(rendered.0 == position)
                    positions.append(position)
                    got.append(rendered.1)
                })
            start = end
        }
        #expect(positions == Array(input.indices))
        #expect(got.contains { $0.device == "-" })
        #expect(expected.flatMap(\.placeEvents).count >= 24)
        #expect(got == expected)
    }

    /// Looking ahead for the engines of the records to come (see
    /// ``Pipeline/process(recordsAt:positions:hashes:arrivedAt:prefetchDistance:each:)``) changes
    /// nothing, at any distance: forty devices take turns, each starting later than the one
    /// before, so that devices are added all along (which moves the engines found ahead), with
    /// records that move nothing and visits of the default device among them.
    @Test(arguments: [1, 2])
    func lookingAheadChangesNothing(shards: Int) throws {
        var tagged: [(Date, Int, InputRecord)] = []
        for person in 0..<40 {
            let day = SyntheticDay(intervalSeconds: 60, outliers: [.init(7, 25)], seed: UInt64(person + 100))
            for (number, fix) in day.fixes().enumerated() where number >= person * 9 {
                var fix = fix
                fix.deviceId = "d\(person)"
                tagged.append((fix.timestamp, person, .fix(fix)))
            }
        }
        tagged.sort { ($0.0, $0.1) < ($1.0, $1.1) }
        var input = tagged.map(\.2)
        for position in stride(from: input.count - 1, to: 0, by: -29) {
            input.insert(.ignored(kind: "waypoint", reason: "moves nothing"), at: position)
        }
        for position in stride(from: input.count - 5, to: 0, by: -211) {
            guard case .fix(let fix) = input[position] else { continue }
            let visit = Visit(
                coordinate: fix.coordinate, horizontalAccuracy: 20, arrival: fix.timestamp, departure: nil)
            input.insert(.visit(visit), at: position)
        }
        var single = Pipeline(rules: try rules())
        let expected = input.map { Digest(single.process($0, arrivedAt: nil)) }
        #expect(expected.flatMap(\.placeEvents).count >= 80)

        for distance in [0, 1, 2, 3, 4, 8, 100] {
            var sharded = ShardedPipeline(rules: try (0..<shards).map { _ in try rules() })
            sharded.prefetchDistance = distance
            // From the first device on: forty would not be a fleet worth looking ahead for.
            sharded.prefetchFleet = 0
            var got: [Digest] = []
            var start = 0
            while start < input.count {
                let end = min(input.count, start + 300)
                sharded.process(
                    input, in: start..<end, arrivedAt: nil, render: { _, output in Digest(output) },
                    each: { _, digest in got.append(digest) })
                start = end
            }
            #expect(got == expected, "looking \(distance) records ahead")
        }
    }

    @Test func aDeviceAlwaysGoesToTheSameShard() {
        for name in ["default", "person-1", "phone", "ü-device"] {
            let first = ShardedPipeline.shard(ofDevice: name, count: 7)
            #expect((0..<7).contains(first))
            #expect(ShardedPipeline.shard(ofDevice: name, count: 7) == first)
        }
        // And to the same shard in every version: FNV-1a of the name's UTF-8 (the values computed
        // apart, in Python).
        #expect(ShardedPipeline.shard(ofDevice: "d00001", count: 7) == 6)
        #expect(ShardedPipeline.shard(ofDevice: "owntracks/alice/phone", count: 64) == 55)
        #expect(ShardedPipeline.shard(ofDevice: "Zürich-Gerät", count: 64) == 4)
        // Different names spread over the shards.
        let used = Set((0..<100).map { ShardedPipeline.shard(ofDevice: "d\($0)", count: 4) })
        #expect(used.count == 4)
    }

    /// A device's aliases (`people:`) reach the shard of its one name, so it stays one device with
    /// one state however many threads run, as in a single pipeline.
    @Test func aDevicesAliasesLandOnItsShard() throws {
        let day = SyntheticDay(intervalSeconds: 60)
        let home = day.coordinate(of: .home)
        let yaml = """
            people:
              jane: { jane/phone: [jp, j2, j3, j4, j5, j6] }
            places:
              home: { center: [\(home.latitude), \(home.longitude)], radius: 150 }
            rules:
              - { name: left, on: exit home, log: true }
            """
        func rules() throws -> RulesFile {
            try RulesLoader.parse(yaml, file: "rules.yaml", baseDirectory: URL(fileURLWithPath: "/tmp")).get()
        }
        let names = ["jane/phone", "jp", "j2", "j3", "j4", "j5", "j6"]
        let input = day.fixes().enumerated().map { index, fix in
            var fix = fix
            fix.deviceId = names[index % names.count]
            return InputRecord.fix(fix)
        }
        var single = Pipeline(rules: try rules())
        let expected = input.map { Digest(single.process($0, arrivedAt: nil)) }
        var sharded = ShardedPipeline(rules: try (0..<4).map { _ in try rules() })
        let got = sharded.process(input, arrivedAt: nil).map(Digest.init)
        #expect(got == expected)
        #expect(sharded.shards.flatMap { $0.state.devices.keys } == ["jane/phone"])
        #expect(got.contains { !$0.actions.isEmpty })
    }
}
