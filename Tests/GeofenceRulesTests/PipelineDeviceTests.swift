import Foundation
import Geofence
import GeofenceInput
import Testing

@testable import GeofenceRules
import GeofenceSimulation

/// A pipeline finds the engine of the last fix's device without looking it up again; devices
/// interleaved in any way still each get what they get alone.
@Suite struct PipelineDeviceTests {
    typealias Digest = ShardedPipelineTests.Digest

    func rules() throws -> RulesFile { try RulesLoader.load(path: SyntheticDayRulesTests.rulesPath).get() }

    /// Six people's synthetic days, each device's fixes in order.
    func days() -> [[Fix]] {
        (0..<6).map { person in
            SyntheticDay(intervalSeconds: 60, seed: UInt64(person + 1)).fixes().map { fix in
                var fix = fix
                fix.deviceId = "person-\(person)"
                return fix
            }
        }
    }

    /// The days interleaved in runs of one to three fixes, person `k` first appearing in round
    /// `k`: devices are added while others have engines (which moves every engine in the state).
    func interleaved(_ days: [[Fix]]) -> [Fix] {
        var next = [Int](repeating: 0, count: days.count)
        var fixes: [Fix] = []
        var round = 0
        while next.indices.contains(where: { next[$0] < days[$0].count }) {
            for person in days.indices where person <= round {
                let run = 1 + (round + person) % 3
                let end = min(days[person].count, next[person] + run)
                fixes += days[person][next[person]..<end]
                next[person] = end
            }
            round += 1
        }
        return fixes
    }

    @Test func interleavedDevicesGetWhatEachGetsAlone() throws {
        let days = days()
        var expected: [String: [Digest]] = [:]
        for day in days {
            var alone = Pipeline(rules: try rules())
            for fix in day {
                expected[fix.deviceId ?? "", default: []].append(Digest(alone.process(fix, arrivedAt: nil)))
            }
        }

        var pipeline = Pipeline(rules: try rules())
        var got: [String: [Digest]] = [:]
        for (count, fix) in interleaved(days).enumerated() {
            let output = pipeline.process(fix, arrivedAt: nil)
            #expect(output.device == fix.deviceId)
            got[output.device, default: []].append(Digest(output))
            // Now and then a visit adds a device between two fixes of the same one.
            if count % 40 == 0 {
                let visit = Visit(
                    coordinate: fix.coordinate, horizontalAccuracy: 20, arrival: fix.timestamp, departure: nil
                )
                _ = pipeline.process(deliveredVisit: visit, device: "visitor-\(count)")
            }
        }
        #expect(pipeline.state.devices.count > 100)

        // The days do make events, so the comparison is not one of empty outputs.
        #expect(expected.values.joined().contains { !$0.placeEvents.isEmpty })
        #expect(got.count == days.count)
        #expect(got == expected)
    }

    /// The outputs handed to the closure carry their records' positions in the batch, whatever
    /// the part of it processed and the number of shards.
    @Test(arguments: [1, 3])
    func outputsComeWithTheirRecordsPositions(shards: Int) throws {
        let records = interleaved(days()).prefix(300).map(InputRecord.fix)
        var single = Pipeline(rules: try rules())
        let expected = records.map { Digest(single.process($0, arrivedAt: nil)) }

        var sharded = ShardedPipeline(rules: try (0..<shards).map { _ in try rules() })
        var positions: [Int] = []
        var got: [Digest] = []
        for range in [0..<100, 100..<101, 101..<300] {
            sharded.process(records, in: range, arrivedAt: nil) { position, output in
                positions.append(position)
                got.append(Digest(output))
            }
        }
        #expect(positions == Array(0..<300))
        #expect(got == expected)
    }
}
