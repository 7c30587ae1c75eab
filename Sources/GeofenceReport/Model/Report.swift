public import Foundation
public import Geofence
public import GeofenceRules

/// Everything one report shows, already reduced to what is drawn: simplified tracks, charts
/// around each crossing, per-day timelines, the commutes and the counts.
///
/// It is built by ``ReportBuilder`` (a replay of recorded input through the same ``Pipeline`` as
/// `replay` and `run`) or by ``StoreReport`` (what a `run` stored), and written by ``ReportHTML``.
public struct Report: Sendable {
    /// A line saying where the data came from.
    public var source: String
    /// The device shown.
    public var device: String
    /// The zone days and clock times are written in.
    public var timeZone: TimeZone
    /// The places, in the rules file's order.
    public var places: [ReportPlace]
    /// The local days that have data, oldest first.
    public var days: [ReportDay]
    /// Every commute, completed or abandoned, in the order they started.
    public var commutes: [CommuteRecord]
    /// The counts.
    public var summary: ReportSummary
}

/// A place as drawn: its shape and the margins of its hysteresis.
public struct ReportPlace: Sendable {
    /// The name the rules use.
    public var name: String
    /// The circle or polygon.
    public var condition: Condition
    /// Its hysteresis (margins, k, confirmation).
    public var hysteresis: Hysteresis
}

/// One local day: its track, its decisions and its charts.
public struct ReportDay: Sendable {
    /// The local date, `YYYY-MM-DD`.
    public var label: String
    /// Local midnight starting the day.
    public var start: Date
    /// Local midnight ending it.
    public var end: Date
    /// Whether the day is drawn; the oldest days of a long input are only counted (see
    /// ``ReportDay/maxDetailedDays``).
    public var isDetailed = true
    /// How many fixes the day had, kept and dropped.
    public var fixCount = 0
    /// How many events the day had (``events`` holds those drawn).
    public var eventCount = 0
    /// How many actions fired that day.
    public var actionCount = 0
    /// The kept fixes, simplified for drawing; a new segment starts after each data gap.
    public var track: [[TrackPoint]] = []
    /// How many kept fixes the simplified track stands for.
    public var keptCount = 0
    /// Dropped fixes drawn on the map, each with its reason (at most a budget per day).
    public var dropped: [DroppedFix] = []
    /// Dropped fixes left off the map to keep the file small.
    public var droppedNotDrawn = 0
    /// Stays (visits) that overlap the day.
    public var stays: [Visit] = []
    /// Monitor events dated in the day, all of them unless a restless day has more than its share
    /// of the file (then an even sample, and ``eventCount`` says how many there were).
    public var events: [ReportEvent] = []
    /// Actions fired in the day.
    public var actions: [ReportAction] = []
    /// Stretches without fixes longer than the largest `max_gap` of the places.
    public var gaps: [DateInterval] = []
    /// Place → the stretches of the day it was satisfied (inside).
    public var satisfied: [String: [DateInterval]] = [:]
    /// One chart per crossing (enter or exit) of the day, up to the day's share of the file.
    public var charts: [CrossingChart] = []

    /// Days drawn in full: the newest ones of a longer input; older days are listed with their
    /// counts. Over a year, one page keeps every day; a decade would not open in a browser.
    public static let maxDetailedDays = 400
}

/// A kept fix on the map.
public struct TrackPoint: Sendable, Hashable {
    /// When.
    public var date: Date
    /// Where.
    public var coordinate: Coordinate
}

/// A fix the filter dropped, with the reason shown on hover.
public struct DroppedFix: Sendable, Hashable {
    /// When.
    public var date: Date
    /// Where (an invalid coordinate is not drawn at all).
    public var coordinate: Coordinate
    /// Its accuracy, metres, if it had one.
    public var accuracy: Double?
    /// Why the filter dropped it.
    public var reason: FixFilter.Reason
}

/// A monitor event as the report draws it.
public struct ReportEvent: Sendable, Hashable {
    /// The stable event id (the one `replay` and the store use).
    public var id: String
    /// The place.
    public var place: String
    /// enter, exit, determined, dwell.
    public var transition: String
    /// The state after it.
    public var state: String
    /// The estimated crossing.
    public var date: Date
    /// When the monitor was sure.
    public var confirmedAt: Date
    /// Where it was decided, when known.
    public var coordinate: Coordinate?
    /// The deciding fix's accuracy.
    public var accuracy: Double?

    /// Seconds from the estimated crossing to the confirmation.
    public var latencySeconds: Double { confirmedAt.timeIntervalSince(date) }
}

/// An action a rule fired, and what became of it.
public struct ReportAction: Sendable, Hashable {
    /// The action id.
    public var id: String
    /// The rule.
    public var rule: String
    /// log, run or remind.
    public var kind: String
    /// What triggered it (enter, exit, commute...).
    public var transition: String
    /// The place, if any.
    public var place: String?
    /// When the triggering thing happened.
    public var date: Date
    /// What became of it.
    public var outcome: Outcome
    /// A line describing the outcome (exit status, error), if any.
    public var detail: String?

    /// What became of an action.
    public enum Outcome: String, Sendable, Hashable {
        /// A replay: nothing was executed.
        case notRun
        /// Still waiting or running in the store.
        case pending
        /// It ran and succeeded.
        case succeeded
        /// It ran and failed.
        case failed
        /// A hook that was killed at its timeout.
        case timedOut
    }
}

/// The signed distance to one place around one crossing, with what the monitor made of it.
public struct CrossingChart: Sendable {
    /// The event explained.
    public var event: ReportEvent
    /// The place's hysteresis (margins and k).
    public var hysteresis: Hysteresis
    /// The kept fixes in the window: date, signed distance (m), accuracy used (m).
    public var points: [DistancePoint]
    /// The first fix of the evidence run that confirmed the change, if found.
    public var firstEvidence: Date?
    /// The window drawn.
    public var window: DateInterval
}

/// A fix's signed distance to a place.
public struct DistancePoint: Sendable, Hashable {
    /// When.
    public var date: Date
    /// Metres to the boundary, negative inside.
    public var distance: Double
    /// The accuracy counted (the fix's, or the assumed one).
    public var accuracy: Double
}

/// The counts at the top of the report.
public struct ReportSummary: Sendable {
    /// Records read (fixes, visits and records that move nothing).
    public var recordsRead = 0
    /// Fixes read.
    public var fixesRead = 0
    /// Fixes the filter kept.
    public var fixesKept = 0
    /// Fixes dropped, by reason.
    public var dropped: [FixFilter.Reason: Int] = [:]
    /// Lines that could not be read.
    public var unreadable = 0
    /// Place → transition → count.
    public var eventsPerPlace: [String: [String: Int]] = [:]
    /// Hooks that ran (finished, whatever the outcome).
    public var hooksRun = 0
    /// Hooks that failed (including timeouts).
    public var hooksFailed = 0
    /// Hooks killed at their timeout.
    public var hooksTimedOut = 0
    /// Hooks the rules fired that did not run (a replay, or still pending in the store).
    public var hooksNotRun = 0
    /// Whether fixes were available (a store keeps no fixes: no track, no charts).
    public var hasFixes = true

    /// An empty summary.
    public init() {}
}
