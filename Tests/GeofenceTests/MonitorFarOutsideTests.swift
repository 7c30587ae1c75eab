import Foundation
import Testing

@testable import Geofence

/// A fix far outside a place is settled from its distance bound alone, starting or extending a
/// run of evidence without the exact distance; that must change nothing the monitor says or keeps.
///
/// Each walk is ingested twice: as it is, and with every fix naming an empty list of regions
/// (OwnTracks `inregions: []`), which says nothing about any place but sends every fix down the
/// full path. The events and the saved conditions must agree after every fix.
@Suite struct MonitorFarOutsideTests {
    /// Walks that start, extend and confirm runs far from some places, and cross others.
    enum Walk: String, CaseIterable, CustomStringConvertible {
        /// A new device far from every place, a fix a second.
        case newDeviceFarAway
        /// The same, a fix every five minutes (confirmed by the span rule).
        case sparseFarAway
        /// Settles inside home, leaves it and goes far away.
        case leavingHome
        /// A run far away broken by a pause longer than the gap.
        case pauseInARun
        /// Far fixes with one in the band around home's boundary, and one without an accuracy.
        case bandAndUnknownAccuracy

        var description: String { rawValue }

        var fixes: [Fix] {
            switch self {
            case .newDeviceFarAway:
                return (0..<80).map { Map.fix(Double($0), 2000 + Double($0 % 7), 50) }
            case .sparseFarAway:
                return (0..<10).map { Map.fix(Double($0) * 300, 2000, Double($0) * 10) }
            case .leavingHome:
                let home = (0..<40).map { Map.fix(Double($0), 0, 0) }
                let out = (1...40).map { Map.fix(39 + Double($0), Double($0) * 50, 0) }
                let far = (1...60).map { Map.fix(79 + Double($0), 2000, 0) }
                return home + out + far
            case .pauseInARun:
                let before = (0..<5).map { Map.fix(Double($0), 2000, 0) }
                let after = (0..<40).map { Map.fix(7200 + Double($0), 2000, 0) }
                return before + after
            case .bandAndUnknownAccuracy:
                var fixes = (0..<50).map { Map.fix(Double($0), -1500, 0) }
                fixes[10] = Map.fix(10, -155, 0, accuracy: 3)
                fixes[20] = Map.fix(20, -1500, 0, accuracy: nil)
                return fixes
            }
        }
    }

    static let hystereses: [Hysteresis] = [
        .default,
        // A single fix confirms at once: no run may be started from the bound.
        Hysteresis(confirmationSeconds: 0, confirmationFixes: 1),
        // Short gaps: most pauses date the side's change.
        Hysteresis(confirmationSpanSeconds: 60, maxGapSeconds: 2),
    ]

    static func engine(assuming state: ConditionState, hysteresis: Hysteresis) -> MonitorEngine {
        var engine = MonitorEngine(name: "far")
        engine.add(Map.circle(150), identifier: "home", assuming: state, hysteresis: hysteresis)
        engine.add(Map.lShape, identifier: "office", assuming: state, hysteresis: hysteresis)
        engine.add(Map.circle(200, east: 3000), identifier: "gym", assuming: state, hysteresis: hysteresis)
        return engine
    }

    /// The saved conditions without their last events, which keep the deciding fix (and so its
    /// empty list of regions); the events are compared on their own.
    static func conditions(_ engine: MonitorEngine) throws -> Data {
        let saved = try JSONSerialization.jsonObject(with: JSONEncoder().encode(engine)) as? [String: Any]
        let trackers = (saved?["trackers"] as? [[String: Any]] ?? []).map { tracker in
            tracker.filter { $0.key != "lastEvent" }
        }
        return try JSONSerialization.data(withJSONObject: trackers, options: .sortedKeys)
    }

    /// An event as the monitor reports it, but for its deciding fix.
    static func summary(_ event: Event) -> String {
        let distance = event.signedDistanceMeters.map { "\($0)" } ?? "-"
        let previous = event.previousState.map { "\($0)" } ?? "-"
        return "\(event.identifier) \(event.kind) \(previous) -> \(event.state) "
            + "\(event.date.timeIntervalSinceReferenceDate) \(event.confirmedAt.timeIntervalSinceReferenceDate) "
            + distance
    }

    @Test(arguments: Walk.allCases, [ConditionState.unknown, .satisfied, .unsatisfied])
    func aFarFixChangesWhatTheFullPathWould(walk: Walk, assuming state: ConditionState) throws {
        for hysteresis in MonitorFarOutsideTests.hystereses {
            var bounded = MonitorFarOutsideTests.engine(assuming: state, hysteresis: hysteresis)
            var measured = bounded
            var events: [String] = []
            for fix in walk.fixes {
                var listed = fix
                listed.regions = []
                let got = bounded.ingest(fix).map(MonitorFarOutsideTests.summary)
                let expected = measured.ingest(listed).map(MonitorFarOutsideTests.summary)
                #expect(got == expected, "at \(fix.timestamp), \(hysteresis)")
                let conditions = try MonitorFarOutsideTests.conditions(bounded)
                let expectedConditions = try MonitorFarOutsideTests.conditions(measured)
                #expect(conditions == expectedConditions, "at \(fix.timestamp), \(hysteresis)")
                events += got
            }
            // Every walk ends far from home after enough fixes to decide it: a change is reported
            // unless home was assumed outside and never entered.
            let leftHome = events.contains {
                $0.hasPrefix("home transition") && $0.contains("-> unsatisfied")
            }
            #expect(leftHome == (state != .unsatisfied || walk == .leavingHome), "\(hysteresis)")
        }
    }
}
