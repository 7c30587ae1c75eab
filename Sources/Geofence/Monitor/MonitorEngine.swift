public import Foundation
import CPrefetch

/// The deterministic core of the monitor: conditions, their states and the evidence being
/// weighed, moved by fixes and visits; its `Codable` value is the monitor's whole saved state.
///
/// `MonitorEngine` is a value with no clock, no tasks and no locks: every call returns the events
/// it caused, synchronously and in order, so that a caller can store the engine and act on the
/// events in one database transaction. ``Monitor`` wraps it in an actor with an `AsyncSequence` of
/// events, in the shape of CLMonitor.
///
/// ## Conditions and the limit
/// At most ``conditionLimit`` (twenty) conditions are evaluated, as with CLMonitor. A condition
/// added past that is kept (``identifiers`` lists it, ``record(for:)`` returns it) but never
/// evaluated: it gets one event, of kind ``Event/Kind/conditionLimitExceeded`` with the state
/// ``ConditionState/unmonitored``, and nothing else changes. Removing one of the twenty does not
/// promote it: to have it evaluated, remove it and add it again once there is room. Adding an
/// identifier that is already there replaces that condition, like removing it and adding it.
///
/// ## Fixes
/// Every fix first goes through ``filter`` (a ``FixFilter``); a dropped fix changes nothing else.
/// For each evaluated condition, an accepted fix is evidence of inside, of outside, or of
/// neither, by the rule of ``Hysteresis``. The state changes once the evidence for the other
/// side has held, without a fix on the old side in between, for the confirmation time and count.
/// The first change of a condition in state ``ConditionState/unknown`` is its first
/// determination and is reported, as CLMonitor does; the state given with `assuming:` is not.
///
/// ## Dates
/// An event's ``Event/date`` estimates when the boundary was really crossed: the time the fixes'
/// positions crossed it, found by interpolating the signed distance linearly to zero between the
/// last fix on the old side and the first fix on the new side of the run that confirmed the
/// change. When a gap longer than ``Hysteresis/maxGapSeconds`` separates them, no time is
/// interpolated across it: the first fix after the gap dates the crossing. A first determination
/// is dated by its first evidence fix. ``Event/confirmedAt`` keeps the time of the fix that
/// completed the confirmation. Per condition, event dates never go backwards.
///
/// ## Gaps
/// A pause in the fixes longer than ``Hysteresis/maxGapSeconds`` never causes a change by itself:
/// the state stays as it was, and evidence gathered before the gap does not count after it.
///
/// ## Visits
/// A visit whose coordinate is evidence of inside (by the same rule, with the visit's accuracy)
/// satisfies the condition at the visit's arrival, and unsatisfies it at the visit's departure.
/// An unknown arrival means "from when the visit was delivered", which is the engine's time: the
/// latest time of any fix or visit it has seen (never the wall clock). While a visit inside a
/// condition goes on, fixes cannot unsatisfy that condition. A visit whose coordinate is evidence
/// of outside unsatisfies a condition at its arrival. A visit that ended before a condition's
/// last event changes nothing for that condition.
///
/// ## Limits
/// A pass through a condition is reported only if it yields ``Hysteresis/confirmationFixes``
/// evidence fixes clearly inside (and the confirmation time): at a fix a minute, a walk of three
/// minutes across the edge of a fence goes unreported, by design. A condition smaller than the
/// fixes' weighted accuracy plus the enter margin can never be entered by fixes (a 50 m circle
/// with 65 m Wi-Fi fixes); use visits, a smaller ``Hysteresis/accuracyWeight``, or a larger fence.
///
/// ## Order and determinism
/// Events come out in the order they were confirmed; those confirmed by the same input are in
/// date order, except that exits come before entries dated within the same interval between two
/// fixes (the data cannot order those, and two places one fix moves are usually apart). Time comes only from the input, so the same
/// input gives the same events whether it is ingested one fix at a time or in batches, live or
/// replayed, and whether or not the engine was saved and restored in between.
public struct MonitorEngine: Codable, Sendable {
    /// The number of conditions a monitor evaluates, as CLMonitor.
    public static let conditionLimit = 20

    /// The time and place of the last accepted fix, the old side of an interpolated crossing.
    struct PreviousFix: Codable, Sendable, Hashable {
        var timestamp: Date
        var coordinate: Coordinate
    }

    /// The monitor's name, as CLMonitor's: a store keeps one engine per name.
    public var name: String
    /// The filter every fix goes through first; its state is saved with the engine.
    public var filter: FixFilter
    private var trackers: [ConditionTracker] = []
    private var previous: PreviousFix?
    /// The latest time of any fix or visit seen.
    public private(set) var now: Date?
    /// Whether a condition may hold a run that silence confirms on the clock: only a fix whose
    /// tracker promises what its silence means sets such a deadline, so for every other tracker
    /// the clock's step before each fix is skipped. Worked out again after each fix and tick;
    /// `true` for a new or restored engine until then. Not saved: it follows from the trackers.
    private var clockMayHaveWork = true
    /// The conditions settled far outside that fixes near the last one skip together; not saved.
    private var settled = SettledSkip()
    /// What the skip needs of all the conditions, worked out whenever they change; not saved.
    private var settledLimits = SettledSkipLimits.none

    private enum CodingKeys: String, CodingKey {
        case name, filter, trackers, previous, now
    }

    /// Decodes an engine saved by any version.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        filter = try c.decode(FixFilter.self, forKey: .filter)
        previous = try c.decodeIfPresent(PreviousFix.self, forKey: .previous)
        now = try c.decodeIfPresent(Date.self, forKey: .now)
        // A tracker saved the time of the last fix it observed; it keeps only whether that was the
        // engine's previous fix, which is all that time was compared with.
        let previousFix = previous?.timestamp
        trackers = try c.decode([ConditionTracker.Saved].self, forKey: .trackers).map {
            $0.tracker(previousFix: previousFix)
        }
        settledLimits = SettledSkipLimits(trackers)
    }

    /// Encodes the engine with the keys, and in the order, it always had.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(filter, forKey: .filter)
        let previousFix = previous?.timestamp
        // The runs the skip covers are saved with the fixes it passed over counted, as a tracker
        // that weighed every fix would hold them.
        var trackers = self.trackers
        MonitorEngine.pay(settled.owed, after: previous, to: &trackers)
        try c.encode(trackers.map { ConditionTracker.Saved($0, previousFix: previousFix) }, forKey: .trackers)
        try c.encodeIfPresent(previous, forKey: .previous)
        try c.encodeIfPresent(now, forKey: .now)
    }

    /// Makes an engine with no conditions, whose filter uses `filter`.
    public init(name: String, filter: FixFilter.Configuration = .init()) {
        self.name = name
        self.filter = FixFilter(configuration: filter)
    }

    // MARK: Conditions

    /// Adds a condition (replacing one with the same identifier) and returns the event this
    /// causes: none, or one ``Event/Kind/conditionLimitExceeded`` event past the limit.
    ///
    /// `assuming` is the starting state, never reported as a crossing; pass
    /// ``ConditionState/satisfied`` or ``ConditionState/unsatisfied`` when the caller knows, or
    /// leave ``ConditionState/unknown`` to have the first determination reported.
    /// ``ConditionState/unmonitored`` is taken as ``ConditionState/unknown``.
    /// The limit event is dated at the engine's time (``now``), or at the Unix epoch when nothing
    /// has been ingested yet: the engine never reads the wall clock.
    @discardableResult
    public mutating func add(
        _ condition: Condition, identifier: String, assuming: ConditionState = .unknown,
        hysteresis: Hysteresis = .default
    ) -> [Event] {
        remove(identifier)
        let evaluatedCount = trackers.reduce(0) { $0 + ($1.evaluated ? 1 : 0) }
        guard evaluatedCount < MonitorEngine.conditionLimit else {
            var tracker = ConditionTracker(
                identifier: identifier, condition: condition, hysteresis: hysteresis, evaluated: false,
                state: .unmonitored)
            let event = tracker.reportLimitExceeded(at: now ?? Date(timeIntervalSince1970: 0))
            append(tracker)
            return [event]
        }
        append(
            ConditionTracker(
                identifier: identifier, condition: condition, hysteresis: hysteresis, evaluated: true,
                state: assuming == .unmonitored ? .unknown : assuming))
        return []
    }

    /// Adds a tracker, keeping the array's capacity exactly its count: an engine copied for many
    /// devices (a template) passes its capacity to each device's copy when that copy first changes
    /// (copy on write keeps the capacity), and the spare room of an array grown by appending would
    /// be a third more memory for every device.
    private mutating func append(_ tracker: ConditionTracker) {
        var exact: [ConditionTracker] = []
        exact.reserveCapacity(trackers.count + 1)
        exact.append(contentsOf: trackers)
        exact.append(tracker)
        trackers = exact
        conditionsChanged()
    }

    /// Removes a condition, its record and any evidence pending for it; unknown identifiers are
    /// ignored.
    public mutating func remove(_ identifier: String) {
        guard trackers.contains(where: { $0.identifier == identifier }) else { return }
        emptySkip()
        var exact: [ConditionTracker] = []
        exact.reserveCapacity(trackers.count - 1)
        for tracker in trackers where tracker.identifier != identifier { exact.append(tracker) }
        trackers = exact
        conditionsChanged()
    }

    /// Starts the skip afresh for a new set of conditions (indices and limits have changed).
    private mutating func conditionsChanged() {
        emptySkip()
        settledLimits = SettledSkipLimits(trackers)
    }

    /// Empties the skip, first telling the runs it covers the fixes it passed over for them.
    private mutating func emptySkip() {
        MonitorEngine.pay(settled.owed, after: previous, to: &trackers)
        settled.clear()
    }

    /// ``pay(_:latest:to:)`` between fixes, `previous` being the engine's latest fix: the latest the
    /// skip passed over, if it passed over any.
    private static func pay(
        _ owed: SettledSkip.Owed, after previous: PreviousFix?, to trackers: inout [ConditionTracker]
    ) {
        guard owed.runs != 0, owed.fixes != 0, let latest = previous?.timestamp else { return }
        trackers.withUnsafeMutableBufferPointer { pay(owed, latest: latest, to: $0) }
    }

    /// Adds to each run the skip covered the fixes it passed over for them (``SettledSkip/owed``),
    /// the latest of them at `latest`.
    @inline(__always)
    private static func pay(
        _ owed: SettledSkip.Owed, latest: Date, to trackers: UnsafeMutableBufferPointer<ConditionTracker>
    ) {
        guard owed.fixes != 0 else { return }
        var runs = owed.runs
        while runs != 0 {
            trackers[runs.trailingZeroBitCount].extendRun(by: owed.fixes, lastAt: latest)
            runs &= runs - 1
        }
    }

    /// The identifiers of all conditions, evaluated or not, in the order they were added.
    public var identifiers: [String] { trackers.map(\.identifier) }

    /// The condition, state and last event for an identifier, or `nil` if there is none.
    public func record(for identifier: String) -> MonitorRecord? {
        trackers.first { $0.identifier == identifier }?.record
    }

    // MARK: Fixes

    /// Ingests one fix and returns the events it caused, in date order.
    ///
    /// `arrivedAt` is the wall-clock arrival for live input (the filter's expiry and future rules
    /// use it); leave it `nil` when replaying.
    @discardableResult
    public mutating func ingest(_ fix: Fix, arrivedAt: Date? = nil) -> [Event] {
        var events: [Event] = []
        _ = ingest(fix, arrivedAt: arrivedAt, into: &events)
        return events
    }

    /// Ingests fixes in order and returns all the events they caused, as one call per fix would.
    @discardableResult
    public mutating func ingest(_ fixes: [Fix], arrivedAt: Date? = nil) -> [Event] {
        var events: [Event] = []
        for fix in fixes { _ = ingest(fix, arrivedAt: arrivedAt, into: &events) }
        return events
    }

    /// Ingests one fix, appending the events it caused to `events`; returns why the filter
    /// dropped it, or `nil` when it was accepted.
    ///
    /// This is the form for hot loops and for callers that log drops: it allocates nothing when
    /// the fix causes no event and `events` has room.
    public mutating func ingest(_ fix: Fix, arrivedAt: Date?, into events: inout [Event]) -> FixFilter.Reason?
    {
        if let reason = filter.evaluate(fix, arrivedAt: arrivedAt) { return reason }
        // What the clock confirmed before this fix came is confirmed first, at its own deadline,
        // exactly as a live tick would have: replay and live give the same events. (The runs the
        // skip covers hold no deadline, so this reads nothing the skip still owes them.)
        if clockMayHaveWork {
            var clock = EventSink()
            for index in trackers.indices where trackers[index].evaluated {
                trackers[index].advance(to: fix.timestamp, into: &clock)
            }
            clock.appendInOrder(to: &events)
        }
        let t = fix.timestamp
        let time = t.timeIntervalSinceReferenceDate
        let accuracy = fix.horizontalAccuracy
        let mayClaim = fix.regions != nil
        let mayExtendRun = fix.silentWithinMeters == nil && fix.trigger != .stay
        // Read once: the previous fix read inside the loop is loaded again for every condition.
        let sincePrevious = previous.map { t.timeIntervalSince($0.timestamp) }
        let limits = settledLimits
        let spread = limits.spread(accuracy: accuracy)
        let continuous = sincePrevious.map { $0 <= limits.maxGapSeconds } ?? false
        // A fix near where every condition was last proved far outside (or, for a circle, well
        // inside) changes nothing but the engine's previous fix, and is known to from its
        // degrees: its point, which costs two sines and two cosines, is not needed (most fixes
        // of a device away from its places, or standing at one).
        if !limits.evaluatedBeyondMask,
            settled.coversAll(
                limits.evaluated, near: fix.coordinate, spread: spread, continuous: continuous,
                mayClaim: mayClaim, time: time, mayExtendRun: mayExtendRun)
        {
            settled.countSkipped()
            // As the loop below leaves them when it asks no condition.
            clockMayHaveWork = false
            previous = PreviousFix(timestamp: fix.timestamp, coordinate: fix.coordinate)
            if let now, now >= fix.timestamp {} else { now = fix.timestamp }
            return nil
        }
        var sink = EventSink(conditions: trackers.count)
        let point = EarthPoint(fix.coordinate)
        // A condition settled far outside holds no deadline: it has nothing pending, or a run
        // without one (a run holding a deadline is never extended there, and none is started).
        var deadlines = false
        let before = previous
        let owed = settled.owed
        let (skipped, fromAnchor) = settled.covered(
            by: point, at: fix.coordinate, spread: spread, continuous: continuous, mayClaim: mayClaim,
            time: time, mayExtendRun: mayExtendRun)
        if skipped != 0 { settled.countSkipped() }
        // The conditions are changed through one buffer: an element of the array changed in place
        // checks the array's uniqueness and the index's bounds every time, for every condition of
        // every fix.
        //
        // What the conditions change besides themselves is passed to `observe` explicitly: a
        // variable the nested function captured was checked for exclusive access at run time on
        // every use.
        var cover = settled
        trackers.withUnsafeMutableBufferPointer { trackers in
            // The skip was emptied: the runs it covered are observed below, with the fixes it
            // passed over counted first.
            if skipped == 0, let before { MonitorEngine.pay(owed, latest: before.timestamp, to: trackers) }
            @inline(__always)
            func observe(
                _ index: Int, sink: inout EventSink, settled: inout SettledSkip, deadlines: inout Bool
            ) {
                defer {
                    if let (slack, inside, runDeadline) = trackers[index].settledSlack(at: point, time: t) {
                        // Runs covered together are owed the same fixes: those covered before
                        // this one are paid what they are owed so far (this fix included) first.
                        if runDeadline != nil, settled.owed.fixes != 0,
                            settled.wouldCover(index, slack: slack, fromAnchor: fromAnchor, spread: spread)
                        {
                            MonitorEngine.pay(settled.owed, latest: t, to: trackers)
                            settled.paid()
                        }
                        settled.cover(
                            index, slack: slack, inside: inside, runDeadline: runDeadline,
                            fromAnchor: fromAnchor, spread: spread)
                    }
                }
                if trackers[index].observeFarOutside(
                    at: t, accuracy: accuracy, point: point, secondsSincePrevious: sincePrevious,
                    mayClaim: mayClaim, mayExtendRun: mayExtendRun)
                    || trackers[index].startsRunFarOutside(
                        at: t, accuracy: accuracy, point: point, secondsSincePrevious: sincePrevious,
                        mayClaim: mayClaim, mayExtendRun: mayExtendRun)
                {
                    return
                }
                trackers[index].observe(fix, at: point, previous: before, into: &sink)
                if trackers[index].hasSilentDeadline { deadlines = true }
            }
            // The covered conditions would note again only what they hold: they are passed over.
            var remaining = limits.evaluated & ~skipped
            while remaining != 0 {
                observe(remaining.trailingZeroBitCount, sink: &sink, settled: &cover, deadlines: &deadlines)
                remaining &= remaining - 1
            }
            if limits.evaluatedBeyondMask {
                for index in 64..<trackers.count where trackers[index].evaluated {
                    observe(index, sink: &sink, settled: &cover, deadlines: &deadlines)
                }
            }
        }
        settled = cover
        clockMayHaveWork = deadlines
        previous = PreviousFix(timestamp: fix.timestamp, coordinate: fix.coordinate)
        if let now, now >= fix.timestamp {} else { now = fix.timestamp }
        sink.appendInOrder(to: &events)
        return nil
    }

    /// Asks the processor to bring into its caches the conditions the next fix will likely read:
    /// those the settled skip does not cover now (none when it covers them all: a fix near the
    /// last one then reads none). For a caller that knows which engine comes next, among many
    /// whose memory is no longer in the caches (a pipeline of devices taking turns), so that the
    /// fix does not wait for it. It changes nothing; mutating only so that the engine is read
    /// where it is stored rather than copied.
    public mutating func prefetchConditions() {
        var uncovered = settledLimits.evaluated & ~settled.mask
        guard uncovered != 0 else { return }
        trackers.withUnsafeBufferPointer { trackers in
            guard let base = trackers.baseAddress else { return }
            // The array's header first, 32 bytes before its first element: the fix reads its
            // count and its reference count (a write checks that it is unique) before any
            // condition, and `perf` found that read the most waited-on instruction of `ingest`.
            cprefetch_read(UnsafeRawPointer(base) - 32)
            cprefetch_read(UnsafeRawPointer(base) - 8)
            while uncovered != 0 {
                let tracker = UnsafeRawPointer(base + uncovered.trailingZeroBitCount)
                cprefetch_read(tracker)
                cprefetch_read(tracker + (MemoryLayout<ConditionTracker>.size - 1))
                uncovered &= uncovered - 1
            }
        }
    }

    // MARK: The clock

    /// Confirms the changes whose tracker has been silent long enough, as of `date`, and returns
    /// their events; a live process calls this on a timer (the engine's tick).
    ///
    /// Silence confirms only what a tracker promises it means: after a fix whose
    /// ``Fix/silentWithinMeters`` keeps the device on the new side of a condition even if it moved
    /// that far, the change is confirmed once the run has lasted
    /// ``Hysteresis/silenceConfirmationSeconds`` (at least ``Hysteresis/confirmationSeconds``). Each such event is confirmed at that
    /// deadline, not at `date`, and ``ingest(_:arrivedAt:into:)`` runs the same step before every
    /// fix, so the events are the same whenever, and whether, the clock was advanced.
    @discardableResult
    public mutating func advance(to date: Date) -> [Event] {
        guard clockMayHaveWork else { return [] }
        var sink = EventSink()
        for index in trackers.indices where trackers[index].evaluated {
            trackers[index].advance(to: date, into: &sink)
        }
        clockMayHaveWork = trackers.contains { $0.evaluated && $0.hasSilentDeadline }
        var events: [Event] = []
        sink.appendInOrder(to: &events)
        return events
    }

    /// Applies the tracker's own region decision: `inside` for the condition `identifier` from
    /// `date` (an OwnTracks `transition` whose `desc` names it). Unknown identifiers are ignored.
    ///
    /// The tracker watched its own fixes, often more of them than it sent, so its decision is
    /// taken as confirmed: the state changes at `date` unless it already is that.
    @discardableResult
    public mutating func ingestClaim(identifier: String, inside: Bool, at date: Date) -> [Event] {
        emptySkip()
        var sink = EventSink()
        for index in trackers.indices
        where trackers[index].evaluated && trackers[index].identifier == identifier {
            trackers[index].observeClaim(inside: inside, at: date, into: &sink)
        }
        if let now, now >= date {} else { now = date }
        var events: [Event] = []
        sink.appendInOrder(to: &events)
        return events
    }

    // MARK: Visits

    /// Ingests a visit and returns the events it caused, in date order.
    ///
    /// A visit with neither arrival nor departure, given before any fix or visit, cannot be dated
    /// and is ignored.
    @discardableResult
    public mutating func ingest(_ visit: Visit) -> [Event] {
        let delivered = [now, visit.arrival, visit.departure].compactMap { $0 }.max()
        guard let delivered else { return [] }
        now = delivered
        emptySkip()
        var start = visit.arrival ?? delivered
        if let departure = visit.departure, departure < start { start = departure }
        var sink = EventSink()
        for index in trackers.indices where trackers[index].evaluated {
            trackers[index].observe(visit, start: start, delivered: delivered, into: &sink)
        }
        var events: [Event] = []
        sink.appendInOrder(to: &events)
        return events
    }

}

extension MonitorEngine {
    /// The conditions the skip covers now, bit `i` for index `i` (for tests).
    var settledMask: UInt64 { settled.mask }
    /// How many fixes the skip passed over that the runs it covers have not counted yet (for tests).
    var fixesOwedToRuns: UInt32 { settled.owed.fixes }
}
