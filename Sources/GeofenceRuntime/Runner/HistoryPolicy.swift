public import Foundation
import Geofence
public import GeofenceInput
public import GeofenceRules

/// Decides whether an action fires or is recorded as skipped, from how old the evidence that
/// caused it is when the run commits it.
///
/// The state is always built from everything read; only actions are held back. An action whose
/// evidence (the fix, visit or transition that completed its event) is older than its rule's
/// `max_delay:` (by default the filter's expiration, 5 minutes) is history: a month of a
/// Recorder's file read at the first start, messages a broker queued during a long outage. It is
/// recorded in the outbox as `skipped`, with the reason, so `geofence actions` shows it, and never
/// runs. Recent history still fires: lines written while geofence restarted for a minute, an
/// arrival queued by the broker 30 s ago. Live evidence, however sparse the tracker's sampling,
/// is fresh when it arrives, so a crossing dated 30 minutes back from a fix that just came still
/// fires. `--fire-history` (imports that want every action) turns the judgement off.
public struct HistoryPolicy: Sendable, Equatable {
    /// Fire every action, however old its evidence.
    public var fireHistory: Bool
    /// The age limit for rules without `max_delay:`.
    public var defaultMaxDelaySeconds: Double

    /// Makes a policy.
    public init(fireHistory: Bool = false, defaultMaxDelaySeconds: Double = 300) {
        self.fireHistory = fireHistory
        self.defaultMaxDelaySeconds = defaultMaxDelaySeconds
    }

    /// The policy for a rules file: its filter's expiration is the default limit.
    public static func `for`(_ rules: RulesFile, fireHistory: Bool) -> HistoryPolicy {
        HistoryPolicy(
            fireHistory: fireHistory,
            defaultMaxDelaySeconds: rules.filter.expirationSeconds
                ?? FixFilter.Configuration().expirationSeconds)
    }

    /// Why an action with evidence from `evidence` must not fire at `now`, or nil if it fires.
    /// `maxDelay` is its rule's `max_delay:` (`.infinity` for none).
    public func skipReason(evidence: Date, now: Date, maxDelay: Double?) -> String? {
        guard !fireHistory else { return nil }
        let limit = maxDelay ?? defaultMaxDelaySeconds
        let age = now.timeIntervalSince(evidence)
        guard limit.isFinite, age > limit else { return nil }
        let source = maxDelay == nil ? "the default max_delay" : "the rule's max_delay"
        return "history: its evidence is \(DurationText.display(age)) old, more than \(source) of "
            + "\(DurationText.display(limit)); --fire-history fires such actions"
    }

    /// When the evidence in `record` was true: a fix's time, a visit's departure (else its
    /// arrival), a tracker transition's time; nil for a record without a time.
    public static func evidenceDate(of record: InputRecord) -> Date? {
        switch record {
        case .fix(let fix): fix.timestamp
        case .visit(let visit): visit.departure ?? visit.arrival
        case .transition(let transition): transition.timestamp
        case .ignored: nil
        }
    }
}
