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
    public var fix: Fix?
    /// The visit that decided the change, if a visit did.
    public var visit: Visit?

    /// Makes an event.
    public init(
        identifier: String, state: ConditionState, kind: Kind = .transition, date: Date, confirmedAt: Date,
        signedDistanceMeters: Double? = nil, fix: Fix? = nil, visit: Visit? = nil,
        previousState: ConditionState? = nil
    ) {
        self.identifier = identifier
        self.state = state
        self.previousState = previousState
        self.kind = kind
        self.date = date
        self.confirmedAt = confirmedAt
        self.signedDistanceMeters = signedDistanceMeters
        self.fix = fix
        self.visit = visit
    }

    /// Whether this event is a condition's first determination, not a crossing.
    public var isFirstDetermination: Bool { kind == .transition && previousState == .unknown }

    /// Whether this event reports a condition added past the limit, as CLMonitor's flag.
    public var conditionLimitExceeded: Bool { kind == .conditionLimitExceeded }
}

extension Event: CustomStringConvertible {
    /// One line for logs: date, identifier, state, kind when not a transition.
    public var description: String {
        let kindText = kind == .transition ? "" : " (\(kind.rawValue))"
        return "\(date.formatted(.iso8601)) \(identifier) \(state.rawValue)\(kindText)"
    }
}
