/// A condition as the monitor holds it: what it is, its state and its last event, as CLMonitor's
/// `CLMonitor.Record`.
public struct MonitorRecord: Codable, Sendable, Hashable {
    /// The identifier the condition was added with.
    public var identifier: String
    /// The region.
    public var condition: Condition
    /// The hysteresis applied to it.
    public var hysteresis: Hysteresis
    /// The current state.
    public var state: ConditionState
    /// The last event reported for it; `nil` if none yet (an `assuming:` state is not an event).
    public var lastEvent: Event?
}
