public import Foundation

/// A change the monitor reports: a condition's new state, when it really happened, and why.
///
/// The fields follow CLMonitor's `CLMonitor.Event` (identifier, state, date,
/// `conditionLimitExceeded`) and add what this engine knows: the fix or visit that decided the
/// change, its signed distance, and when the change was confirmed as opposed to when it happened.
public struct Event: Codable, Sendable, Hashable {
    /// What kind of report this is.
    public enum Kind: String, Codable, Sendable {
        /// The state changed (including a condition's first determination).
        case transition
        /// The condition has been satisfied for its dwell time; reported once per stay.
        case dwell
        /// The condition was added past the limit of twenty and is not evaluated.
        case conditionLimitExceeded
    }

    /// The identifier the condition was added with.
    public var identifier: String
    /// The condition's state after this event.
    public var state: ConditionState
    /// The state before this event: ``ConditionState/unknown`` marks a first determination rather
    /// than a crossing (rules usually should not greet someone "arriving" home when the monitor
    /// starts); `nil` for a limit event.
    public var previousState: ConditionState?
    /// What kind of report this is.
    public var kind: Kind
    /// The best estimate of when the change really happened (see ``MonitorEngine`` for how).
    public var date: Date
    /// The time of the input (fix or visit delivery) at which the change was confirmed.
    public var confirmedAt: Date
    /// The signed distance in metres of the deciding fix or visit, negative inside.
    public var signedDistanceMeters: Double?
    /// The fix that decided the change, if a fix did.
    public var fix: Fix? {
        get { evidence?.fix }
        set { evidence = newValue == nil && visit == nil ? nil : Evidence(fix: newValue, visit: visit) }
    }
    /// The visit that decided the change, if a visit did.
    public var visit: Visit? {
        get { evidence?.visit }
        set { evidence = newValue == nil && fix == nil ? nil : Evidence(fix: fix, visit: newValue) }
    }
    /// Where the deciding fix or visit was: `fix?.coordinate ?? visit?.coordinate`, read without
    /// making the fix again (every event a fleet logs asks, and ``fix`` rebuilds a whole fix).
    public var evidenceCoordinate: Coordinate? { evidence?.coordinate }
    /// How accurate the deciding position was: `fix?.horizontalAccuracy ??
    /// visit?.horizontalAccuracy`, read without making the fix again.
    public var evidenceAccuracy: Double? { evidence?.accuracy }

    /// The deciding fix or visit, kept out of line and shared: a monitor keeps every condition's
    /// last event, and the twenty first determinations of a device usually come from one fix, so
    /// a device holds one copy of that fix instead of twenty.
    ///
    /// A fix carries a dozen optional fields, most of them absent: stored whole it is about 200
    /// bytes, and a device keeps up to twenty of these. The usual fix (time, position, accuracy,
    /// device) is kept in its few fields instead, and anything else whole, out of line.
    final class Evidence: Sendable {
        /// The usual fix, when it has nothing more than these fields.
        private struct PlainFix: Sendable {
            let timestamp: Date
            let coordinate: Coordinate
            let horizontalAccuracy: Double?
            let deviceId: String?

            var fix: Fix {
                Fix(
                    timestamp: timestamp, coordinate: coordinate, horizontalAccuracy: horizontalAccuracy,
                    deviceId: deviceId)
            }

            /// Whether `fix` equals ``fix``, compared field by field: a plain fix is kept only when
            /// rebuilding it gives back the very fix, so its accuracy is the rebuilt one.
            func matches(_ other: Fix) -> Bool {
                other.timestamp == timestamp && other.coordinate == coordinate
                    && other.horizontalAccuracy == horizontalAccuracy && other.deviceId == deviceId
                    && other.altitude == nil && other.verticalAccuracy == nil && other.speed == nil
                    && other.course == nil && other.floor == nil && other.label == nil
                    && other.silentWithinMeters == nil && other.trigger == nil && other.regions == nil
            }
        }
        /// Whatever the plain form cannot hold.
        private final class Whole: Sendable {
            let fix: Fix?
            let visit: Visit?
            init(fix: Fix?, visit: Visit?) {
                self.fix = fix
                self.visit = visit
            }
        }
        private let plain: PlainFix?
        private let whole: Whole?

        var fix: Fix? { plain?.fix ?? whole?.fix }
        var visit: Visit? { whole?.visit }

        /// `fix?.coordinate ?? visit?.coordinate`.
        var coordinate: Coordinate? {
            if let plain { return plain.coordinate }
            return whole?.fix?.coordinate ?? whole?.visit?.coordinate
        }

        /// `fix?.horizontalAccuracy ?? visit?.horizontalAccuracy` (a plain fix comes with no visit).
        var accuracy: Double? {
            if let plain { return plain.horizontalAccuracy }
            return whole?.fix?.horizontalAccuracy ?? whole?.visit?.horizontalAccuracy
        }

        /// Whether this is the evidence of `fix` alone: `self.fix == fix && visit == nil`, asked
        /// without rebuilding the fix it keeps.
        func isFix(_ fix: Fix) -> Bool {
            if let plain { return plain.matches(fix) }
            guard let whole, whole.visit == nil else { return false }
            return whole.fix == fix
        }

        init(fix: Fix?, visit: Visit?) {
            if let fix, visit == nil {
                let plain = PlainFix(
                    timestamp: fix.timestamp, coordinate: fix.coordinate,
                    horizontalAccuracy: fix.horizontalAccuracy, deviceId: fix.deviceId)
                // Kept plain only if that gives back the very same fix.
                if plain.fix == fix {
                    self.plain = plain
                    self.whole = nil
                    return
                }
            }
            plain = nil
            whole = Whole(fix: fix, visit: visit)
        }
    }
    private(set) var evidence: Evidence?

    /// Makes an event.
    public init(
        identifier: String, state: ConditionState, kind: Kind = .transition, date: Date, confirmedAt: Date,
        signedDistanceMeters: Double? = nil, fix: Fix? = nil, visit: Visit? = nil,
        previousState: ConditionState? = nil
    ) {
        self.init(
            identifier: identifier, state: state, kind: kind, date: date, confirmedAt: confirmedAt,
            signedDistanceMeters: signedDistanceMeters,
            evidence: fix == nil && visit == nil ? nil : Evidence(fix: fix, visit: visit),
            previousState: previousState)
    }

    /// Makes an event whose deciding fix or visit is shared with other events.
    init(
        identifier: String, state: ConditionState, kind: Kind = .transition, date: Date, confirmedAt: Date,
        signedDistanceMeters: Double? = nil, evidence: Evidence?, previousState: ConditionState? = nil
    ) {
        self.identifier = identifier
        self.state = state
        self.previousState = previousState
        self.kind = kind
        self.date = date
        self.confirmedAt = confirmedAt
        self.signedDistanceMeters = signedDistanceMeters
        self.evidence = evidence
    }

    /// Whether this event is a condition's first determination, not a crossing.
    public var isFirstDetermination: Bool { kind == .transition && previousState == .unknown }

    /// Whether this event reports a condition added past the limit, as CLMonitor's flag.
    public var conditionLimitExceeded: Bool { kind == .conditionLimitExceeded }

    // MARK: Equality and coding, of the values (the shared evidence is only storage)

    /// Whether two events are equal field by field.
    public static func == (lhs: Event, rhs: Event) -> Bool {
        lhs.identifier == rhs.identifier && lhs.state == rhs.state && lhs.previousState == rhs.previousState
            && lhs.kind == rhs.kind && lhs.date == rhs.date && lhs.confirmedAt == rhs.confirmedAt
            && lhs.signedDistanceMeters == rhs.signedDistanceMeters && lhs.fix == rhs.fix
            && lhs.visit == rhs.visit
    }

    /// Hashes every field.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifier)
        hasher.combine(state)
        hasher.combine(previousState)
        hasher.combine(kind)
        hasher.combine(date)
        hasher.combine(confirmedAt)
        hasher.combine(signedDistanceMeters)
        hasher.combine(fix)
        hasher.combine(visit)
    }

    private enum CodingKeys: String, CodingKey {
        case identifier, state, previousState, kind, date, confirmedAt, signedDistanceMeters, fix, visit
    }

    /// Decodes an event written by `encode(to:)` (the same keys as before the evidence was shared).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        identifier = try c.decode(String.self, forKey: .identifier)
        state = try c.decode(ConditionState.self, forKey: .state)
        previousState = try c.decodeIfPresent(ConditionState.self, forKey: .previousState)
        kind = try c.decode(Kind.self, forKey: .kind)
        date = try c.decode(Date.self, forKey: .date)
        confirmedAt = try c.decode(Date.self, forKey: .confirmedAt)
        signedDistanceMeters = try c.decodeIfPresent(Double.self, forKey: .signedDistanceMeters)
        let fix = try c.decodeIfPresent(Fix.self, forKey: .fix)
        let visit = try c.decodeIfPresent(Visit.self, forKey: .visit)
        evidence = fix == nil && visit == nil ? nil : Evidence(fix: fix, visit: visit)
    }

    /// Encodes the event's fields, in declaration order, absent optionals left out.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(identifier, forKey: .identifier)
        try c.encode(state, forKey: .state)
        try c.encodeIfPresent(previousState, forKey: .previousState)
        try c.encode(kind, forKey: .kind)
        try c.encode(date, forKey: .date)
        try c.encode(confirmedAt, forKey: .confirmedAt)
        try c.encodeIfPresent(signedDistanceMeters, forKey: .signedDistanceMeters)
        try c.encodeIfPresent(fix, forKey: .fix)
        try c.encodeIfPresent(visit, forKey: .visit)
    }
}

extension Event: CustomStringConvertible {
    /// One line for logs: date, identifier, state, kind when not a transition.
    public var description: String {
        let kindText = kind == .transition ? "" : " (\(kind.rawValue))"
        return "\(date.formatted(.iso8601)) \(identifier) \(state.rawValue)\(kindText)"
    }
}
