/// What the monitor believes about a condition, as CLMonitor's `CLMonitor.Event.State`.
public enum ConditionState: String, Codable, Sendable, Hashable {
    /// Not determined yet: no confirmed evidence either way since the condition was added.
    case unknown
    /// The device is inside the condition.
    case satisfied
    /// The device is outside the condition.
    case unsatisfied
    /// The condition is kept but not evaluated, because the monitor already watches twenty.
    case unmonitored
}
