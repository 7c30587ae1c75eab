import Foundation
import Testing

@testable import Geofence

/// A device's state is kept small and changed in place; neither may change what the monitor says.
@Suite struct MonitorStateTests {
    static func engine() -> MonitorEngine {
        var engine = MonitorEngine(name: "state")
        engine.add(Map.circle(150), identifier: "home")
        engine.add(Map.lShape, identifier: "office")
        return engine
    }

    /// Walks out of home, into the office and back, a fix every 40 s: sparse enough that the
    /// count of evidence fixes, not the time, decides when a change confirms.
    static let walk: [Fix] = (0..<60).map { step in
        let s = Double(step)
        let east = step < 30 ? -300 + s * 30 : 570 - (s - 30) * 30
        return Map.fix(s * 40, east, 100)
    }

    @Test func aCopyTakenDuringAPendingRunDoesNotShareItsChanges() throws {
        var reference = MonitorStateTests.engine()
        var original = MonitorStateTests.engine()
        var expected: [Event] = []
        var got: [Event] = []
        for fix in MonitorStateTests.walk {
            expected += reference.ingest(fix)
            got += original.ingest(fix)
            // A copy fed two more fixes where the original stands adds evidence to any run it
            // shares storage with: the original would then confirm a fix early.
            var copy = original
            for second in [1.0, 2.0] {
                var echo = fix
                echo.timestamp = fix.timestamp.addingTimeInterval(second)
                _ = copy.ingest(echo)
            }
        }
        #expect(expected.transitions.count >= 4, "the walk must confirm changes, or nothing is compared")
        #expect(got == expected)
    }

    @Test func anEventKeepsItsFixWhetherPlainOrNot() throws {
        let plain = Fix(
            timestamp: Map.date(0), coordinate: Map.at(0, 0), horizontalAccuracy: 5, deviceId: "phone")
        let rich = Fix(
            timestamp: Map.date(1), coordinate: Map.at(0, 0), horizontalAccuracy: 5, altitude: 12,
            speed: 1.5, deviceId: "phone", label: "walk", silentWithinMeters: 100, trigger: .timer,
            regions: ["home"])
        let visit = Visit(
            coordinate: Map.at(0, 0), horizontalAccuracy: 30, arrival: Map.date(0), departure: nil)
        for fix in [plain, rich] {
            let event = Event(
                identifier: "home", state: .satisfied, date: fix.timestamp, confirmedAt: fix.timestamp,
                fix: fix)
            #expect(event.fix == fix)
            #expect(event.visit == nil)
        }
        let both = Event(
            identifier: "home", state: .satisfied, date: Map.date(0), confirmedAt: Map.date(0), fix: plain,
            visit: visit)
        #expect(both.fix == plain)
        #expect(both.visit == visit)
    }

    /// Fixes that differ from a plain one in one field each, or not at all.
    static let neighbours: [Fix] = {
        let plain = Fix(
            timestamp: Map.date(0), coordinate: Map.at(0, 0), horizontalAccuracy: 5, deviceId: "phone")
        var fixes = [plain]
        var fix = plain
        fix.horizontalAccuracy = nil
        fixes.append(fix)
        fix = plain
        fix.horizontalAccuracy = -0.0
        fixes.append(fix)
        fix = plain
        fix.horizontalAccuracy = 0.0
        fixes.append(fix)
        fix = plain
        fix.timestamp = Map.date(1)
        fixes.append(fix)
        fix = plain
        fix.deviceId = nil
        fixes.append(fix)
        fix = plain
        fix.altitude = 12
        fixes.append(fix)
        fix = plain
        fix.silentWithinMeters = 100
        fixes.append(fix)
        fix = plain
        fix.trigger = .timer
        fixes.append(fix)
        fix = plain
        fix.regions = []
        fixes.append(fix)
        fix = plain
        fix.label = "walk"
        fixes.append(fix)
        return fixes
    }()

    /// The events of one input share their evidence when it is the same fix: that is asked of the
    /// fields the evidence keeps, and must answer as comparing whole fixes does.
    @Test(arguments: neighbours)
    func evidenceIsTheFixItWasMadeOfAndNoOther(kept: Fix) {
        let evidence = Event.Evidence(fix: kept, visit: nil)
        for fix in MonitorStateTests.neighbours {
            #expect(evidence.isFix(fix) == (kept == fix), "\(fix)")
        }
        let visit = Visit(
            coordinate: Map.at(0, 0), horizontalAccuracy: 30, arrival: Map.date(0), departure: nil)
        #expect(!Event.Evidence(fix: kept, visit: visit).isFix(kept))
    }

    /// An event's deciding position and accuracy, read without rebuilding its fix, are what the
    /// fix and visit it keeps give: the fix's first, then the visit's, whichever form it is kept in.
    @Test(arguments: neighbours)
    func evidencePositionIsTheFixesThenTheVisits(fix: Fix) {
        var unknownAccuracy = fix
        unknownAccuracy.horizontalAccuracy = nil
        let visit = Visit(
            coordinate: Map.at(300, 400), horizontalAccuracy: 45, arrival: Map.date(0), departure: nil)
        for (fix, visit) in [
            (fix, nil), (unknownAccuracy, nil), (nil, visit), (fix, visit), (unknownAccuracy, visit),
        ] {
            let event = Event(
                identifier: "home", state: .satisfied, date: Map.date(1), confirmedAt: Map.date(2), fix: fix,
                visit: visit)
            #expect(event.evidenceCoordinate == (event.fix?.coordinate ?? event.visit?.coordinate))
            #expect(
                event.evidenceAccuracy == (event.fix?.horizontalAccuracy ?? event.visit?.horizontalAccuracy))
        }
        let none = Event(identifier: "home", state: .satisfied, date: Map.date(1), confirmedAt: Map.date(2))
        #expect(none.evidenceCoordinate == nil && none.evidenceAccuracy == nil)
    }

    @Test func aRestoredEngineReportsTheSameLastEvents() throws {
        var engine = MonitorStateTests.engine()
        _ = engine.ingest(MonitorStateTests.walk)
        let data = try JSONEncoder().encode(engine)
        let restored = try JSONDecoder().decode(MonitorEngine.self, from: data)
        for identifier in engine.identifiers {
            let last = engine.record(for: identifier)?.lastEvent
            #expect(last != nil)
            #expect(restored.record(for: identifier)?.lastEvent == last)
            #expect(last?.identifier == identifier)
        }
    }

    /// Twenty of these are most of what a device costs, its pending runs included; a field added
    /// carelessly (an optional date between two flags) shows here.
    @Test func aConditionsStateStaysSmall() {
        #expect(MemoryLayout<ConditionTracker>.stride <= 120)
    }

    /// Every condition of a device holds a run from its first fix to its first determination,
    /// inline; a run of the usual tracker must stay within a few words.
    @Test func aPendingRunStaysSmall() {
        #expect(MemoryLayout<ConditionTracker.Pending>.size <= 45)
        #expect(MemoryLayout<ConditionTracker.Pending?>.size == MemoryLayout<ConditionTracker.Pending>.size)
    }

    /// The filter is stored inline in every device's engine.
    @Test func theFiltersStateStaysSmall() {
        #expect(MemoryLayout<FixFilter>.stride <= 144)
    }

    /// The walk, from a tracker whose silence promises the device stays within 50 m and which
    /// sends more than the filter keeps inline (an altitude, a speed): its runs keep a deadline and
    /// a whole fix out of line, and so does the filter.
    static let silentWalk: [Fix] = walk.map { fix in
        var fix = fix
        fix.silentWithinMeters = 50
        fix.altitude = 12
        fix.speed = 1.2
        return fix
    }

    @Test func aCopyTakenDuringASilentRunDoesNotShareItsChanges() throws {
        var reference = MonitorStateTests.engine()
        var original = MonitorStateTests.engine()
        var expected: [Event] = []
        var got: [Event] = []
        for (step, fix) in MonitorStateTests.silentWalk.enumerated() {
            expected += reference.ingest(fix)
            got += original.ingest(fix)
            var copy = original
            var echo = fix
            echo.timestamp = fix.timestamp.addingTimeInterval(1)
            echo.speed = 9
            _ = copy.ingest(echo)
            // The clock confirms a silent run at its deadline, from the fix the run kept.
            if step % 7 == 0 {
                expected += reference.advance(to: fix.timestamp.addingTimeInterval(30))
                got += original.advance(to: fix.timestamp.addingTimeInterval(30))
            }
            #expect(original.filter.lastAccepted == fix)
        }
        #expect(expected.transitions.count >= 4, "the walk must confirm changes, or nothing is compared")
        #expect(got == expected)
    }

    @Test func anEngineSavedDuringASilentRunGoesOnTheSame() throws {
        let fixes = MonitorStateTests.silentWalk
        var whole = MonitorStateTests.engine()
        let expected = whole.ingest(fixes)
        var sawSilentRun = false
        for cut in stride(from: 2, to: fixes.count - 1, by: 3) {
            var first = MonitorStateTests.engine()
            var got = first.ingest(Array(fixes[..<cut]))
            let data = try JSONEncoder().encode(first)
            let text = String(decoding: data, as: UTF8.self)
            var restored = try JSONDecoder().decode(MonitorEngine.self, from: data)
            #expect(restored.filter.lastAccepted == fixes[cut - 1])
            got += restored.ingest(Array(fixes[cut...]))
            #expect(got == expected, "cut at \(cut)")
            // The keys of the inline form: states saved before and after read the same.
            #expect(text.contains("\"lastAccepted\"") && text.contains("\"jumpRun\""))
            if text.contains("\"silentDeadline\"") {
                #expect(text.contains("\"latestFix\""))
                sawSilentRun = true
            }
        }
        #expect(sawSilentRun, "some cut must fall in a silent run, or its out-of-line part is not saved")
        #expect(expected.transitions.count >= 4)
    }

    /// A condition keeps only whether it observed the engine's previous fix, and saves that as
    /// the time of the last fix it observed, as before: a saved engine reads back to the same
    /// text, and a condition added after the last fix saves none.
    @Test func aSavedEngineKeepsEachConditionsLastFix() throws {
        var engine = MonitorStateTests.engine()
        _ = engine.ingest(Array(MonitorStateTests.walk[..<20]))
        engine.add(Map.circle(80, east: 300), identifier: "late")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .secondsSince1970
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        let data = try encoder.encode(engine)
        let restored = try decoder.decode(MonitorEngine.self, from: data)
        #expect(try encoder.encode(restored) == data)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let trackers = try #require(object["trackers"] as? [[String: Any]])
        let previous = try #require(object["previous"] as? [String: Any])
        let last = try #require(previous["timestamp"] as? Double)
        #expect(trackers.map { $0["lastSeen"] as? Double } == [last, last, nil])
    }

    /// A condition saved with a last fix other than the engine's previous one (as a state saved
    /// by another version could be) has no continuous history, as when that time was compared.
    @Test func aConditionSavedWithAnOlderLastFixStartsAfresh() throws {
        var engine = MonitorStateTests.engine()
        let fixes = MonitorStateTests.walk
        _ = engine.ingest(Array(fixes[..<20]))
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        var object = try #require(
            try JSONSerialization.jsonObject(with: encoder.encode(engine)) as? [String: Any])
        var trackers = try #require(object["trackers"] as? [[String: Any]])
        let last = try #require(trackers[0]["lastSeen"] as? Double)
        trackers[0]["lastSeen"] = last - 40
        object["trackers"] = trackers
        let changed = try decoder.decode(
            MonitorEngine.self, from: JSONSerialization.data(withJSONObject: object))
        let saved = try #require(
            try JSONSerialization.jsonObject(with: encoder.encode(changed)) as? [String: Any])
        let savedTrackers = try #require(saved["trackers"] as? [[String: Any]])
        #expect(savedTrackers[0]["lastSeen"] == nil)
        #expect(savedTrackers[1]["lastSeen"] as? Double == last)
    }

    @Test(arguments: [
        Fix(timestamp: Map.date(0), coordinate: Map.at(0, 0)),
        Fix(timestamp: Map.date(0), coordinate: Map.at(0, 0), horizontalAccuracy: 12, deviceId: "phone"),
        Fix(timestamp: Map.date(0), coordinate: Map.at(0, 0), horizontalAccuracy: 12, label: "walk"),
        Fix(timestamp: Map.date(0), coordinate: Map.at(0, 0), regions: ["home"]),
    ])
    func theFilterKeepsTheLastFixExactly(fix: Fix) throws {
        var filter = FixFilter()
        #expect(filter.evaluate(fix, arrivedAt: nil) == nil)
        #expect(filter.lastAccepted == fix)
        // A fix equal in every field is a duplicate; one that differs in any, only not newer.
        #expect(filter.evaluate(fix, arrivedAt: nil) == .duplicate)
        var other = fix
        other.floor = 3
        #expect(filter.evaluate(other, arrivedAt: nil) == .notNewer)
        let restored = try JSONDecoder().decode(FixFilter.self, from: JSONEncoder().encode(filter))
        #expect(restored.lastAccepted == fix)
        #expect(restored.accepted == 1)
    }

    /// A field set directly, not through the initialiser (which would drop a negative accuracy),
    /// is kept as it was.
    @Test func theFilterKeepsAnAccuracyItWouldNotHaveMade() {
        var fix = Fix(timestamp: Map.date(0), coordinate: Map.at(0, 0))
        fix.horizontalAccuracy = -1
        var filter = FixFilter()
        _ = filter.evaluate(fix, arrivedAt: nil)
        #expect(filter.lastAccepted?.horizontalAccuracy == -1)
    }

    @Test(arguments: [nil, 0, -0.0, 1.5, -7e300, .infinity, .nan, Double.leastNonzeroMagnitude])
    func aCompactOptionalKeepsEveryValue(value: Double?) {
        let kept = CompactOptional(value).double
        #expect(kept?.bitPattern == value?.bitPattern)
        let date = value.map(Date.init(timeIntervalSinceReferenceDate:))
        #expect(CompactOptional(date).date?.timeIntervalSinceReferenceDate.bitPattern == value?.bitPattern)
    }
}
