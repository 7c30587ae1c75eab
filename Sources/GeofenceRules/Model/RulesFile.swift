public import Foundation
public import Geofence

/// The user's whole configuration, as read from a rules file and checked.
public struct RulesFile: Sendable {
    /// The file it was read from.
    public var path: String
    /// The time zone that guards and commute windows are written in.
    public var timeZone: TimeZone
    /// The movement profile that sets the defaults below.
    public var profile: Profile
    /// Overrides of the hysteresis defaults for every place.
    public var hysteresis: HysteresisSettings
    /// Overrides of the fix filter's defaults.
    public var filter: FilterSettings
    /// Settings of the visit detector; `nil` when the file has no `visits:` section and no rule
    /// needs detected visits.
    public var visits: VisitSettings?
    /// The places, in the order they were written (the monitor's first twenty).
    public var places: [Place]
    /// The rules, in the order they were written.
    public var rules: [Rule]
    /// Named destinations for reminders (`channels:`).
    public var channels: [String: Channel] = [:]
    /// Who carries which device, and the aliases devices arrive under.
    public var people = People()
    /// Things read in a way the writer may not have meant (WKT read latitude first, longitudes
    /// past ±180 wrapped), in file order; `check` prints them.
    public var notes: [RulesDiagnostic] = []

    /// The place with this name.
    public func place(named name: String) -> Place? { places.first { $0.name == name } }
}

/// A named place: a condition for the monitor, with optional hysteresis overrides.
public struct Place: Sendable {
    /// The name rules use.
    public var name: String
    /// The circle or polygon.
    public var condition: Condition
    /// Per-place overrides of the file's hysteresis settings.
    public var hysteresis: HysteresisSettings
    /// Where the place is defined.
    public var mark: SourceMark
    /// The people whose devices monitor the place; `nil` for everyone.
    public var who: Set<String>? = nil
}

/// Optional overrides of the monitor's hysteresis; `nil` keeps the value from the level above.
public struct HysteresisSettings: Sendable, Equatable {
    /// How far inside (metres, beyond the accuracy term) a fix must be to count as inside.
    public var enterMarginMeters: Double?
    /// How far outside (metres, beyond the accuracy term) a fix must be to count as outside.
    public var exitMarginMeters: Double?
    /// The weight k of a fix's accuracy in the evidence test.
    public var accuracyWeight: Double?
    /// How long new evidence must hold before the state changes.
    public var confirmationSeconds: Double?
    /// How many fixes must confirm a change.
    public var confirmationFixes: Int?
    /// Two evidence fixes this far apart confirm a change on their own (`confirm_span`).
    public var confirmationSpanSeconds: Double?
    /// How long a tracker's promised silence confirms a change on its own (`confirm_silence`).
    public var silenceConfirmationSeconds: Double?
    /// No crossing time is interpolated across a gap longer than this.
    public var maxGapSeconds: Double?

    /// No overrides.
    public init() {}
}

/// Optional overrides of the fix filter.
public struct FilterSettings: Sendable, Equatable {
    /// Fixes with a worse accuracy (metres) are dropped.
    public var maxAccuracyMeters: Double?
    /// Fixes implying a faster speed from the last accepted one are dropped.
    public var maxSpeedKilometresPerHour: Double?
    /// Fixes already older than this when they arrive live are dropped.
    public var expirationSeconds: Double?
    /// No overrides.
    public init() {}
}

/// Settings of the stay-point visit detector.
public struct VisitSettings: Sendable, Equatable {
    /// D: how far (metres) fixes may wander from the stay's anchor.
    public var radiusMeters: Double?
    /// T: how long a stay must last to be a visit.
    public var minimumStaySeconds: Double?
    /// How many consecutive stray fixes a stay survives.
    public var maxStrays: Int?
    /// A gap longer than this ends a stay at its last fix.
    public var maxGapSeconds: Double?
    /// No overrides.
    public init() {}
}

/// A preset named after Core Location's activity types, setting the filter's speed limit and the
/// hysteresis defaults for a way of moving.
public enum Profile: String, Sendable, CaseIterable {
    /// A phone carried through an ordinary day: walking, driving, transit.
    case `default`
    /// Driving: fast crossings, so confirmation is quicker.
    case automotiveNavigation
    /// Boats, trains and other vehicles that are not cars.
    case otherNavigation
    /// Walking, running, cycling: slow and close to the boundary.
    case fitness
    /// Flying.
    case airborne
}

/// A day of the week.
public enum Weekday: Int, Sendable, CaseIterable, Comparable {
    /// Weekdays numbered as `Calendar` numbers them (Sunday is 1).
    case sunday = 1, monday, tuesday, wednesday, thursday, friday, saturday

    /// Orders values the natural way (earlier first).
    public static func < (lhs: Weekday, rhs: Weekday) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A local time window, `start` inclusive and `end` exclusive; a window whose end is before its
/// start crosses midnight ("22:00"-"06:00").
public struct TimeWindow: Sendable, Equatable {
    /// Minutes after local midnight at which the window opens.
    public var startMinute: Int
    /// Minutes after local midnight at which it closes.
    public var endMinute: Int

    /// Whether a local minute of the day falls in the window.
    public func contains(minuteOfDay minute: Int) -> Bool {
        if startMinute == endMinute { return true }
        if startMinute < endMinute { return minute >= startMinute && minute < endMinute }
        return minute >= startMinute || minute < endMinute
    }
}
