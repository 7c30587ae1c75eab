import Foundation

/// What the rules remember for one device between occurrences: cooldowns, reminders delivered,
/// stays for dwell, commutes under way. It is saved with the monitor so that a restart neither
/// repeats nor forgets.
public struct RuleState: Sendable, Codable, Equatable {
    /// Rule name → when it last fired (for cooldowns).
    var lastFired: [String: Date] = [:]
    /// Rule name → the local day (yyyy-MM-dd) it last fired (for once a day).
    var lastFiredDay: [String: String] = [:]
    /// Non-repeating reminders already delivered.
    var remindersDelivered: Set<String> = []
    /// Place → when the current stay there began (for dwell).
    var insideSince: [String: Date] = [:]
    /// Dwell rules that already fired during the current stay.
    var dwellFired: Set<String> = []
    /// Commute rule → the commute under way.
    var openCommutes: [String: OpenCommute] = [:]

    struct OpenCommute: Sendable, Codable, Equatable {
        var start: Date
        var coordinate: [Double]?
        /// The time spent in the stops it was allowed (`stops:`), summed as each stop ends; `nil`
        /// while there was none (and in states saved before stops were judged).
        var stoppedSeconds: Double?
    }

    /// A fresh state.
    public init() {}

    /// Whether the reminder of this rule has been delivered (and does not repeat).
    public func reminderDelivered(_ rule: String) -> Bool { remindersDelivered.contains(rule) }
}
