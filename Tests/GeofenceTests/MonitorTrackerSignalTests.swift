import Foundation
import Testing

@testable import Geofence

/// What a tracker says beyond its positions: that its silence means "not moved far", that a fix
/// is a stay, that it entered or left one of its own regions.
@Suite struct MonitorTrackerSignalTests {
    /// A 500 m circle around the origin, assumed outside.
    func engine(assuming: ConditionState = .unsatisfied) -> MonitorEngine {
        var engine = MonitorEngine(name: "signals")
        engine.add(Map.circle(500), identifier: "c", assuming: assuming)
        return engine
    }

    static func fix(
        _ seconds: Double, _ east: Double, silentWithin: Double? = nil, trigger: Fix.Trigger? = nil
    )
        -> Fix
    {
        var fix = Map.fix(seconds, east, 0, accuracy: 20)
        fix.silentWithinMeters = silentWithin
        fix.trigger = trigger
        return fix
    }

    @Test func aMoveModeFixDeepInsideThenSilenceConfirmsOnTheClock() throws {
        var e = engine()
        #expect(e.ingest([Self.fix(0, 2000), Self.fix(600, 0, silentWithin: 100)]).isEmpty)
        #expect(e.advance(to: Map.date(600 + 599)).isEmpty)
        let events = e.advance(to: Map.date(3600))
        try #require(events.count == 1)
        #expect(events[0].state == .satisfied)
        // Confirmed at its deadline, not when the clock was read.
        #expect(events[0].confirmedAt == Map.date(1200))
        #expect(events[0].date > Map.date(0) && events[0].date <= Map.date(600))
    }

    /// The engine skips the clock's step while no condition waits on silence; a saved engine
    /// restored with such a wait still confirms it at its deadline, by a tick or by the next fix.
    @Test func aRestoredEngineStillConfirmsWhatSilenceWasConfirming() throws {
        var e = engine()
        #expect(e.ingest([Self.fix(0, 2000), Self.fix(600, 0, silentWithin: 100)]).isEmpty)
        let saved = try JSONEncoder().encode(e)
        var ticked = try JSONDecoder().decode(MonitorEngine.self, from: saved)
        let events = ticked.advance(to: Map.date(3600))
        try #require(events.count == 1)
        #expect(events[0].state == .satisfied && events[0].confirmedAt == Map.date(1200))
        var fed = try JSONDecoder().decode(MonitorEngine.self, from: saved)
        let byFix = fed.ingest(Self.fix(3600, 0))
        #expect(byFix.first?.confirmedAt == Map.date(1200))
        // Once confirmed, nothing is left for the clock.
        #expect(ticked.advance(to: Map.date(7200)).isEmpty)
    }

    @Test func theClockGivesTheSameEventsAsTheNextFix() throws {
        var ticked = engine()
        var replayed = engine()
        let fixes = [
            Self.fix(0, 2000), Self.fix(600, 0, silentWithin: 100), Self.fix(4200, 0, silentWithin: 100),
        ]
        var live: [Event] = []
        for fix in fixes {
            live += ticked.ingest(fix)
            live += ticked.advance(to: fix.timestamp.addingTimeInterval(1000))
        }
        let replay = replayed.ingest(fixes)
        #expect(live == replay)
        #expect(replay.count == 1)
    }

    @Test(
        arguments: [
            // (metres from the centre, silent within, confirms on the clock)
            (0.0, 100.0, true), (0.0, 500.0, false), (400, 100, false), (300, 100, true), (0, nil, false),
        ] as [(Double, Double?, Bool)])
    func silenceConfirmsOnlyWhereTheTrackersReachStaysInside(east: Double, reach: Double?, confirms: Bool) {
        var e = engine()
        _ = e.ingest([Self.fix(0, 2000), Self.fix(600, east, silentWithin: reach)])
        #expect(e.advance(to: Map.date(86_400)).count == (confirms ? 1 : 0))
    }

    @Test func aFixOnTheOldSideBeforeTheDeadlineBreaksTheSilence() {
        var e = engine()
        _ = e.ingest([Self.fix(0, 2000), Self.fix(600, 0, silentWithin: 100), Self.fix(1100, 2000)])
        #expect(e.advance(to: Map.date(86_400)).isEmpty)
        #expect(e.record(for: "c")?.state == .unsatisfied)
    }

    @Test func aStayReportConfirmsAtOnce() throws {
        var e = engine()
        let events = e.ingest([Self.fix(0, 2000), Self.fix(600, 0, trigger: .stay)])
        try #require(events.count == 1)
        #expect(events[0].state == .satisfied)
        #expect(events[0].confirmedAt == Map.date(600))
    }

    @Test func aStillPhoneInMoveModeDoesNotFlapWithWildFixes() {
        // Move mode: a fix each time noise or a wild fix moves it 100 m, and one every 5 minutes.
        var e = engine(assuming: .unknown)
        var fixes: [Fix] = []
        for minute in stride(from: 0.0, to: 7 * 1440, by: 5) {
            let wild = Int(minute) % 397 == 0 && minute > 0
            fixes.append(Self.fix(minute * 60, wild ? 1500 : 0, silentWithin: 100))
        }
        let events = e.ingest(fixes) + e.advance(to: Map.date(8 * 86_400))
        #expect(events.count == 1)
        #expect(events.first?.isFirstDetermination == true)
    }

    @Test func theTrackersOwnTransitionIsTakenAtItsDate() throws {
        var e = engine()
        _ = e.ingest(Self.fix(0, 2000))
        let enter = e.ingestClaim(identifier: "c", inside: true, at: Map.date(300))
        try #require(enter.count == 1)
        #expect(enter[0].date == Map.date(300))
        #expect(e.ingestClaim(identifier: "c", inside: true, at: Map.date(400)).isEmpty)
        #expect(e.ingestClaim(identifier: "other", inside: false, at: Map.date(500)).isEmpty)
        #expect(
            e.ingestClaim(identifier: "c", inside: false, at: Map.date(900)).map(\.state) == [.unsatisfied])
    }

    @Test func aFixSavedBeforeTheSignalsStillDecodes() throws {
        let json = #"{"timestamp":0,"coordinate":{"latitude":51.5,"longitude":-0.1}}"#
        let fix = try JSONDecoder().decode(Fix.self, from: Data(json.utf8))
        #expect(fix.silentWithinMeters == nil && fix.trigger == nil)
    }
}
