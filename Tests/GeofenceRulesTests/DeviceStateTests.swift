import Foundation
import Testing

@testable import Geofence
@testable import GeofenceInput
import GeofenceSimulation
@testable import GeofenceRules

/// A device's engine is stored inline in its pipeline's dictionary, ten thousand of them on a
/// small box; what it keeps out of line must still be saved and restored with the same keys.
@Suite struct DeviceStateTests {
    static let yaml = """
        timezone: Europe/London
        visits: { radius: 200, min_duration: 20m }
        places:
          home: { center: [51.5007, -0.1246], radius: 150 }
          work: { center: [51.500678, -0.052595], radius: 150 }
        rules:
          - { name: at work, on: visit start work, log: true }
          - { name: arrived home, on: enter home, log: true }

        """

    static func rules() throws -> RulesFile {
        try RulesLoader.parse(yaml, file: "device.yaml", baseDirectory: URL(fileURLWithPath: "/tmp")).get()
    }

    /// The inline part of a device: the dictionary's storage holds a third more of these than
    /// there are devices. 280 bytes, and 88 for the monitor's skip of settled conditions (an
    /// anchor, its room, the conditions it covers, the limits shared by all devices; since
    /// session 17 the anchor's degrees and its latitude's cosine, 24 bytes that let most fixes
    /// of a device away from its places skip their point: a tenth of replay's pipeline; and
    /// since session 22 the deadline of the runs it covers and the fixes it owes them, 16 bytes
    /// that let a device's first thirty fixes skip its twenty undetermined places: an eighth of
    /// the instructions of a fleet's start).
    @Test func aDevicesInlineStateStaysSmall() {
        #expect(MemoryLayout<DeviceEngine>.stride <= 368)
    }

    @Test func aDeviceSavedMidDayGoesOnTheSameWithTheSameKeys() throws {
        let rules = try DeviceStateTests.rules()
        let fixes = SyntheticDay(intervalSeconds: 120).fixes()
        var whole = Pipeline(rules: rules)
        var expected = fixes.map { whole.process($0, arrivedAt: nil) }
        expected += whole.finish()
        let cut = fixes.count / 2
        var first = Pipeline(rules: rules)
        var got = fixes[..<cut].map { first.process($0, arrivedAt: nil) }
        let data = try EngineJSON.stateEncoder().encode(first.state.devices)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: [String: Any]]
        let device = try #require(object?.values.first)
        #expect(Set(device.keys) == ["monitor", "detector", "rules", "openVisits"])
        var restored = PipelineState()
        restored.devices = try EngineJSON.stateDecoder().decode([String: DeviceEngine].self, from: data)
        var second = Pipeline(rules: rules, state: restored)
        got += fixes[cut...].map { second.process($0, arrivedAt: nil) }
        got += second.finish()
        #expect(
            expected.flatMap(\.visits).count >= 2, "the day must hold visits, or the detector is not compared"
        )
        #expect(got.flatMap(\.visits) == expected.flatMap(\.visits))
        #expect(got.flatMap(\.placeEvents) == expected.flatMap(\.placeEvents))
        #expect(got.flatMap(\.actions).map(\.rule) == expected.flatMap(\.actions).map(\.rule))
    }

    /// A copy of a pipeline (a template is copied for every device) shares the detector's storage
    /// until one of them changes it.
    @Test func aCopiedPipelinesDetectorIsItsOwn() throws {
        let rules = try DeviceStateTests.rules()
        let fixes = SyntheticDay(intervalSeconds: 120).fixes()
        var original = Pipeline(rules: rules)
        var reference = Pipeline(rules: rules)
        var got: [Visit] = []
        var expected: [Visit] = []
        for fix in fixes {
            got += original.process(fix, arrivedAt: nil).visits
            expected += reference.process(fix, arrivedAt: nil).visits
            var copy = original
            var moved = fix
            moved.timestamp = fix.timestamp.addingTimeInterval(30)
            moved.coordinate = try Coordinate(latitude: 51.52, longitude: -0.09)
            _ = copy.process(moved, arrivedAt: nil)
        }
        #expect(expected.count >= 2)
        #expect(got == expected)
    }
}
