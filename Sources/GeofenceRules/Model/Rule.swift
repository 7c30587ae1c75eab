import Foundation

/// One rule: when something happens (the trigger), if the guards allow, do the actions.
public struct Rule: Sendable {
    /// The rule's name, unique in the file; it names the rule in logs and hook variables.
    public var name: String
    /// What makes the rule fire.
    public var trigger: Trigger
    /// What must hold for it to fire.
    public var guards: Guards
    /// What it does.
    public var actions: [RuleAction]
    /// Where the rule is defined.
    public var mark: SourceMark
    /// How old the evidence for an action may be and the action still fire (`max_delay:`):
    /// `nil` for the run's default (the filter's expiration), `.infinity` for no limit
    /// (`max_delay: none`). Older actions (history read at start, messages a broker queued while
    /// geofence was down) are recorded as skipped instead.
    public var maxDelaySeconds: Double? = nil
}

/// The engine's own life-cycle events, which rules can trigger on.
public enum LifecycleKind: String, Sendable, CaseIterable, Codable {
    /// The engine started.
    case started
    /// The engine stopped.
    case stopped
    /// The rules file was reloaded.
    case rulesReloaded = "rules-reloaded"
    /// An input failed (a file vanished, a stream broke).
    case inputFailed = "input-failed"
    /// No fix came from an input for the configured time.
    case inputPaused = "input-paused"
    /// Fixes came again after a pause.
    case inputResumed = "input-resumed"
}

/// A commute: leaving one place and arriving at another.
public struct CommuteSpec: Sendable, Equatable {
    /// Where it starts: leaving this place starts it.
    public var from: String
    /// Where it ends: arriving here ends it.
    public var to: String
    /// The local window the start must fall in; `nil` for any time.
    public var window: TimeWindow?
    /// Longer than this and it is abandoned.
    public var maxSeconds: Double
    /// The longest stop it may include (`stops:`): a stay on the way that lasts longer ends it as
    /// abandoned. 0, the default, allows none (see ``RuleEvaluator/Stop``).
    public var maxStopSeconds: Double = 0
}

/// Conditions on when a rule may fire.
public struct Guards: Sendable, Equatable {
    /// The local days on which it may fire; `nil` for every day.
    public var days: Set<Weekday>?
    /// The local time window in which it may fire; `nil` for any time.
    public var window: TimeWindow?
    /// After firing, it is quiet for this long.
    public var cooldownSeconds: Double?
    /// It fires at most once per local day.
    public var oncePerDay: Bool = false
    /// The people it fires for (by their devices); `nil` for everyone.
    public var who: Set<String>? = nil

    /// No guards.
    public init() {}
}
