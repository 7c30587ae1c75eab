import Foundation

/// One condition inside the engine: what it is, its state, and the evidence still being weighed.
///
/// Everything that influences a later event is a stored, saved property here (or in the engine),
/// so that a saved and restored engine continues exactly where it stopped. The distance bound is
/// rebuilt from the condition when decoding, and the time of the last fix observed, which is the
/// engine's previous fix or none, is saved from the engine's (``Saved``).
struct ConditionTracker: Sendable {
    /// Evidence for a change that has not been confirmed yet.
    ///
    /// Every condition of a device holds one from its first fix until its first determination, so
    /// a fleet whose devices start together holds twenty per device at once: a run is kept inline
    /// in its tracker, in 45 bytes (a box of its own cost 80 with the allocator's share), and what
    /// only a silent tracker's run needs (a deadline and a whole fix) is kept out of line.
    struct Pending: Codable, Sendable, Hashable {
        /// The time of the first evidence fix of the run.
        var firstEvidence: Date
        /// The estimated real crossing, fixed when the run starts.
        var crossing: CrossingEstimate
        private var lastEvidenceStorage: CompactOptional
        // File-private so that the tracker asks for the deadline through stored fields only: a
        // getter of the run would copy the whole run out (retaining this) for every fix.
        fileprivate var silence: Silence?
        private var countStorage: Int32
        /// The side the evidence is for.
        var side: Hysteresis.Side

        /// The time of the latest evidence fix of the run; `nil` in states saved before it was
        /// kept, where it is taken as the first.
        var lastEvidence: Date? {
            get { lastEvidenceStorage.date }
            set { lastEvidenceStorage = CompactOptional(newValue) }
        }
        /// How many evidence fixes the run holds (kept in 32 bits: a run of two billion fixes
        /// stays at that count, which confirms whatever the hysteresis asks).
        var count: Int {
            get { Int(countStorage) }
            set { countStorage = Int32(clamping: newValue) }
        }

        /// What a run keeps while its tracker's silence promises the new side; shared by copies
        /// of the run until one of them changes it.
        fileprivate final class Silence: @unchecked Sendable {
            // Unchecked: changed only while one run holds it (`setSilence`), so two accesses
            // never overlap, and the dynamic check would cost every fix of a silent run.
            @exclusivity(unchecked) var deadline: Date?
            @exclusivity(unchecked) var latestFix: Fix?
            init(deadline: Date?, latestFix: Fix?) {
                self.deadline = deadline
                self.latestFix = latestFix
            }
        }

        init(
            side: Hysteresis.Side, firstEvidence: Date, count: Int, lastEvidence: Date?,
            crossing: CrossingEstimate
        ) {
            self.firstEvidence = firstEvidence
            self.crossing = crossing
            self.lastEvidenceStorage = CompactOptional(lastEvidence)
            self.countStorage = Int32(clamping: count)
            self.side = side
        }

        /// When the run confirms on the clock alone: set while the latest fix of the run came from
        /// a tracker whose silence says the device stays within reach of the new side.
        var silentDeadline: Date? {
            get { silence?.deadline }
            set { setSilence(deadline: newValue, latestFix: latestFix) }
        }
        /// The latest fix of the run, reported with a change confirmed on the clock.
        var latestFix: Fix? {
            get { silence?.latestFix }
            set { setSilence(deadline: silentDeadline, latestFix: newValue) }
        }

        /// Whether the run holds a deadline or a fix of a silent tracker (asked without copying the
        /// fix out).
        var isSilent: Bool { silence != nil }

        /// Changes the out-of-line part in place when this run alone holds it (a fix of a silent
        /// run sets it, and a new box for each would be an allocation a fix).
        mutating func setSilence(deadline: Date?, latestFix: Fix?) {
            guard deadline != nil || latestFix != nil else {
                silence = nil
                return
            }
            if isKnownUniquelyReferenced(&silence), let silence {
                silence.deadline = deadline
                silence.latestFix = latestFix
            } else {
                silence = Silence(deadline: deadline, latestFix: latestFix)
            }
        }

        /// Weighs one more fix of the run, `evidence` its evidence, and returns whether the run now
        /// confirms its change. `silenceHolds` is whether the fix's tracker promises the device
        /// stays on the run's side while silent: only a change confirmed on the clock reports the
        /// fix, and only while a deadline is set, so the fix is kept only then.
        mutating func add(
            evidence: Hysteresis.Side?, at t: Date, fix: Fix, silenceHolds: Bool, hysteresis h: Hysteresis
        ) -> Bool {
            if evidence == side {
                count += 1
                lastEvidence = t
            }
            if silenceHolds {
                setSilence(
                    deadline: silentDeadline
                        ?? t.addingTimeInterval(max(h.confirmationSeconds, h.silenceConfirmationSeconds)),
                    latestFix: fix)
            } else if isSilent {
                setSilence(deadline: nil, latestFix: nil)
            }
            return h.confirms(self, at: t)
        }

        /// The count the run would hold after a fix at `t` that is evidence for its side, from a
        /// tracker whose silence promises nothing and that names no stay; `nil` when
        /// ``add(evidence:at:fix:silenceHolds:hysteresis:)`` must weigh that fix: it confirms the
        /// run, or the run holds a silent tracker's deadline or fix to clear. Otherwise
        /// ``extend(to:at:)`` with this count does what `add` would, without the fix.
        @inline(__always)
        func countExtended(at t: Date, hysteresis h: Hysteresis) -> Int? {
            guard silence == nil else { return nil }
            let count = Int(Int32(clamping: self.count + 1))
            // Either way of confirming needs `confirmationSeconds` since the first evidence (the span
            // asks at least as long, and the span to a fix at `t` is that same time): a dense run
            // is extended here on this one comparison until its last fix.
            guard t.timeIntervalSince(firstEvidence) >= h.confirmationSeconds else { return count }
            guard !h.confirms(count: count, firstEvidence: firstEvidence, lastEvidence: t, at: t) else {
                return nil
            }
            return count
        }

        /// Counts an evidence fix at `t`, `count` being ``countExtended(at:hysteresis:)``.
        @inline(__always)
        mutating func extend(to count: Int, at t: Date) {
            countStorage = Int32(clamping: count)
            lastEvidence = t
        }

        static func == (a: Pending, b: Pending) -> Bool {
            a.side == b.side && a.firstEvidence == b.firstEvidence && a.count == b.count
                && a.lastEvidence == b.lastEvidence && a.crossing == b.crossing
                && a.silentDeadline == b.silentDeadline && a.latestFix == b.latestFix
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(side)
            hasher.combine(firstEvidence)
            hasher.combine(count)
            hasher.combine(lastEvidence)
            hasher.combine(crossing)
            hasher.combine(silentDeadline)
            hasher.combine(latestFix)
        }

        private enum CodingKeys: String, CodingKey {
            case side, firstEvidence, count, lastEvidence, crossing, silentDeadline, latestFix
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                side: try c.decode(Hysteresis.Side.self, forKey: .side),
                firstEvidence: try c.decode(Date.self, forKey: .firstEvidence),
                count: try c.decode(Int.self, forKey: .count),
                lastEvidence: try c.decodeIfPresent(Date.self, forKey: .lastEvidence),
                crossing: try c.decode(CrossingEstimate.self, forKey: .crossing))
            setSilence(
                deadline: try c.decodeIfPresent(Date.self, forKey: .silentDeadline),
                latestFix: try c.decodeIfPresent(Fix.self, forKey: .latestFix))
        }

        /// Encodes the fields in the order and with the keys the run had when they were all inline.
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(side, forKey: .side)
            try c.encode(firstEvidence, forKey: .firstEvidence)
            try c.encode(count, forKey: .count)
            try c.encodeIfPresent(lastEvidence, forKey: .lastEvidence)
            try c.encode(crossing, forKey: .crossing)
            try c.encodeIfPresent(silentDeadline, forKey: .silentDeadline)
            try c.encodeIfPresent(latestFix, forKey: .latestFix)
        }
    }

    /// When the fixes' positions crossed the boundary, and the fix time it was found after.
    struct CrossingEstimate: Codable, Sendable, Hashable {
        /// The interpolated crossing time.
        var date: Date
        /// The time of the last fix on the old side (equal to `date` when nothing was
        /// interpolated): crossings dated after the same fix cannot be ordered by the data.
        var after: Date
    }

    /// What the condition is, which never changes once added: kept out of line and shared by
    /// every copy of the tracker (a template engine copied for each of ten thousand devices holds
    /// one copy of each polygon, not ten thousand).
    final class Definition: Sendable {
        let identifier: String
        let condition: Condition
        let hysteresis: Hysteresis
        /// `false` for a condition added past the limit: it is kept, never evaluated.
        let evaluated: Bool
        let bound: DistanceBound
        /// The hysteresis numbers every fix needs, as plain fields: reading them out of
        /// `hysteresis` would copy the whole struct for each condition and fix.
        let assumedAccuracyMeters: Double
        let maxGapSeconds: Double
        let accuracyWeight: Double
        let exitMarginMeters: Double
        let enterMarginMeters: Double
        let dwellSeconds: Double?
        let confirmationSeconds: Double

        init(identifier: String, condition: Condition, hysteresis: Hysteresis, evaluated: Bool) {
            self.identifier = identifier
            self.condition = condition
            self.hysteresis = hysteresis
            self.evaluated = evaluated
            bound = DistanceBound(condition)
            assumedAccuracyMeters = hysteresis.assumedAccuracyMeters
            maxGapSeconds = hysteresis.maxGapSeconds
            accuracyWeight = hysteresis.accuracyWeight
            exitMarginMeters = hysteresis.exitMarginMeters
            enterMarginMeters = hysteresis.enterMarginMeters
            dwellSeconds = hysteresis.dwellSeconds
            confirmationSeconds = hysteresis.confirmationSeconds
        }
    }

    /// The last event without what the definition already holds (its identifier): a device keeps
    /// one for each of its twenty conditions.
    struct StoredEvent: Sendable {
        let date: Date
        let confirmedAt: Date
        let evidence: Event.Evidence?
        private let distance: CompactOptional
        let state: ConditionState
        let previousState: ConditionState?
        let kind: Event.Kind

        init(_ event: borrowing Event) {
            date = event.date
            confirmedAt = event.confirmedAt
            evidence = event.evidence
            distance = CompactOptional(event.signedDistanceMeters)
            state = event.state
            previousState = event.previousState
            kind = event.kind
        }

        func event(identifier: String) -> Event {
            Event(
                identifier: identifier, state: state, kind: kind, date: date, confirmedAt: confirmedAt,
                signedDistanceMeters: distance.double, evidence: evidence, previousState: previousState)
        }
    }

    // Swift lays a struct out in declaration order, and twenty of these are most of a device's
    // state: the one-byte fields follow the last event (which ends off an eight-byte boundary),
    // the pending run is inline (from a device's first fix to its first determination each of
    // its conditions holds one), and the optional dates are kept in eight bytes each
    // (``CompactOptional``).
    private let definition: Definition
    private var storedEvent: StoredEvent?
    /// `false` for a condition added past the limit: it is kept, never evaluated. Stored beside
    /// the definition because the engine asks it of every condition for every fix.
    let evaluated: Bool
    private(set) var state: ConditionState
    /// The side of the boundary the last observed fix lay on (its position, ignoring accuracy).
    private var lastSide: Hysteresis.Side?
    private var dwellReported = false
    /// An ongoing visit inside this condition keeps it satisfied until the visit ends.
    private var heldByVisit = false
    /// The run of evidence being weighed, changed where it is stored.
    private var pending: Pending?
    /// Whether this condition observed the engine's latest accepted fix, which is then also its
    /// own previous fix (the time of its last fix, as saved, is that fix's time): one added since
    /// has none to interpolate a crossing from.
    private var observedPreviousFix = false
    private var lastSideChangeDate = CompactOptional(nil as Date?)
    private var lastSideChangeAfter = Date(timeIntervalSinceReferenceDate: 0)
    private var dwellStartStorage = CompactOptional(nil as Date?)

    /// When the fixes' positions last changed side: interpolated between the fixes either side, or
    /// the first fix after a gap. This dates a crossing.
    private var lastSideChange: CrossingEstimate? {
        get { lastSideChangeDate.date.map { CrossingEstimate(date: $0, after: lastSideChangeAfter) } }
        set {
            lastSideChangeDate = CompactOptional(newValue?.date)
            lastSideChangeAfter = newValue?.after ?? Date(timeIntervalSinceReferenceDate: 0)
        }
    }
    /// When the current stay began, for dwell; `nil` until known.
    private var dwellStart: Date? {
        get { dwellStartStorage.date }
        set { dwellStartStorage = CompactOptional(newValue) }
    }

    var identifier: String { definition.identifier }
    var condition: Condition { definition.condition }
    var hysteresis: Hysteresis { definition.hysteresis }
    var lastEvent: Event? {
        get { storedEvent.map { $0.event(identifier: identifier) } }
        set { storedEvent = newValue.map(StoredEvent.init) }
    }

    init(
        identifier: String, condition: Condition, hysteresis: Hysteresis, evaluated: Bool,
        state: ConditionState
    ) {
        definition = Definition(
            identifier: identifier, condition: condition, hysteresis: hysteresis, evaluated: evaluated)
        self.evaluated = evaluated
        self.state = state
    }

    /// Whether a run is pending that silence would confirm at a deadline.
    var hasSilentDeadline: Bool { pending?.silence?.deadline != nil }

    /// Whether a run is pending, asked of a stored field: comparing the optional run with `nil`
    /// copied it, for every condition and fix.
    private var hasRun: Bool { pending?.side != nil }

    var record: MonitorRecord {
        MonitorRecord(
            identifier: identifier, condition: condition, hysteresis: hysteresis, state: state,
            lastEvent: lastEvent)
    }

    /// Records the event that reports this condition as past the limit.
    mutating func reportLimitExceeded(at date: Date) -> Event {
        let event = Event(
            identifier: identifier, state: .unmonitored, kind: .conditionLimitExceeded, date: date,
            confirmedAt: date)
        lastEvent = event
        return event
    }

    // MARK: Fixes

    /// Weighs one accepted fix; `previous` is the fix the engine accepted before it, `point` the
    /// fix's coordinate as an ``EarthPoint`` (computed once for all conditions).
    mutating func observe(
        _ fix: Fix, at point: EarthPoint, previous: MonitorEngine.PreviousFix?, into sink: inout EventSink
    ) {
        let mayClaim = fix.regions != nil
        let mayExtendRun = fix.silentWithinMeters == nil && fix.trigger != .stay
        let sincePrevious = previous.map { fix.timestamp.timeIntervalSince($0.timestamp) }
        if observeFarOutside(
            at: fix.timestamp, accuracy: fix.horizontalAccuracy, point: point,
            secondsSincePrevious: sincePrevious, mayClaim: mayClaim, mayExtendRun: mayExtendRun)
            || startsRunFarOutside(
                at: fix.timestamp, accuracy: fix.horizontalAccuracy, point: point,
                secondsSincePrevious: sincePrevious, mayClaim: mayClaim, mayExtendRun: mayExtendRun)
        {
            return
        }
        let definition = self.definition
        let t = fix.timestamp
        let accuracy = fix.horizontalAccuracy ?? definition.assumedAccuracyMeters
        let continuous =
            previous.map {
                observedPreviousFix && t.timeIntervalSince($0.timestamp) <= definition.maxGapSeconds
            } ?? false
        observedPreviousFix = true

        // The tracker says the device is in its region of this name (OwnTracks `inregions`).
        let claimed = fix.regions?.contains(definition.identifier) ?? false
        let h = definition.hysteresis

        // The exact distance is taken only where something needs the number: the side and the
        // evidence often follow from the cheap interval alone (far outside, or for a circle far
        // inside), and an undetermined place far away then costs no more than a determined one.
        var exact: Double?
        let side: Hysteresis.Side
        let evidence: Hysteresis.Side?
        if !claimed,
            let decided = definition.bound.decidedEvidence(
                point, accuracy: accuracy, accuracyWeight: definition.accuracyWeight,
                enterMarginMeters: definition.enterMarginMeters, exitMarginMeters: definition.exitMarginMeters
            )
        {
            side = decided
            evidence = decided
        } else {
            let d = definition.condition.signedDistance(to: fix.coordinate)
            // GEOS reports failure as NaN; such a fix tells nothing about this condition.
            guard d.isFinite else { return }
            exact = d
            // A region the tracker says it is in makes the fix evidence of inside, as strong as
            // one clearly inside: its region monitor decided on fixes we never got. It confirms
            // the way any evidence fix does (two far enough apart, or enough of them), never alone.
            side = claimed ? .inside : Hysteresis.Side(signedDistance: d)
            evidence = claimed ? .inside : h.evidence(signedDistance: d, accuracy: accuracy)
        }

        if let lastSide {
            if !continuous {
                lastSideChange = CrossingEstimate(date: t, after: t)
            } else if lastSide != side, let previous {
                let d = exact ?? definition.condition.signedDistance(to: fix.coordinate)
                exact = d
                let date = ConditionTracker.crossingTime(
                    from: previous.timestamp,
                    distance: definition.condition.signedDistance(to: previous.coordinate),
                    to: t, distance: d)
                lastSideChange = CrossingEstimate(date: date, after: previous.timestamp)
            }
        } else {
            lastSideChange = nil
        }
        lastSide = side

        if heldByVisit {
            // An ongoing visit keeps the condition satisfied; fixes cannot end it.
            pending = nil
            if dwellMayBeDue {
                reportDwellIfDue(
                    reachedBy: t, confirmedAt: t, distance: exact, fix: fix, visit: nil, into: &sink)
            }
            return
        }
        // Silence is not evidence: a pause keeps the run; only a fix on the old side ends it.
        if let runSide = pending?.side, runSide != side { pending = nil }
        if !hasRun, let evidence, evidence != state.side {
            // A first determination has no old side to cross from: it is dated by its first
            // evidence fix. A change is dated by when the positions crossed the boundary.
            let now = CrossingEstimate(date: t, after: t)
            let crossing = state == .unknown ? now : (lastSideChange ?? now)
            pending = Pending(
                side: evidence, firstEvidence: t, count: 0, lastEvidence: nil, crossing: crossing)
        }
        if let runSide = pending?.side {
            var silenceHolds = false
            if let reach = fix.silentWithinMeters {
                let d = exact ?? definition.condition.signedDistance(to: fix.coordinate)
                exact = d
                silenceHolds = holdsSide(distance: d, reach: reach, accuracy: accuracy, side: runSide)
            }
            // The run changes where it is stored (through `?.`): taken out and put back, or
            // compared with `nil`, it was copied, for every condition of every fix of a run.
            let confirmed = pending?.add(
                evidence: evidence, at: t, fix: fix, silenceHolds: silenceHolds, hysteresis: h)
            if confirmed == true || (fix.trigger == .stay && evidence == runSide),
                let crossing = pending?.crossing
            {
                transition(
                    to: runSide == .inside ? .satisfied : .unsatisfied, date: crossing.date,
                    confirmedAt: t, distance: exact, decidedBy: fix, into: &sink, orderKey: crossing.after)
            }
        }
        if dwellMayBeDue {
            reportDwellIfDue(reachedBy: t, confirmedAt: t, distance: exact, fix: fix, visit: nil, into: &sink)
        }
    }

    /// Whether a dwell event could be due: checked before building the call's arguments, which
    /// would copy the fix for every condition and fix.
    private var dwellMayBeDue: Bool {
        state == .satisfied && !dwellReported && !hasRun && definition.dwellSeconds != nil
    }

    /// Settles a fix far outside a condition whose last fix was outside, from plain numbers, where
    /// the full path would only note the side (and count the fix), and returns `true`: for a
    /// condition already outside with nothing pending, and for a run of evidence of outside (a
    /// new device's first determination, a departure) that the fix extends without confirming.
    /// Returns `false`, changing nothing, when ``startsRunFarOutside(at:accuracy:point:secondsSincePrevious:mayClaim:mayExtendRun:)``
    /// or ``observe(_:at:previous:into:)`` must weigh the fix.
    ///
    /// A bound that proves outside evidence lets the exact distance be skipped, exactly (the test is
    /// `Hysteresis.evidence(...) == .outside`, written out on the plain fields). The engine tries
    /// this first for every condition: it takes no `Fix`, which the full path copies on entry, and
    /// most of a fix's conditions are far away. `mayClaim` is whether the fix names regions
    /// (OwnTracks `inregions`), which only the full path judges; `mayExtendRun` is whether a run
    /// may be started or extended here: not by a fix whose tracker promises what its silence
    /// means (the run may keep it) or that names a stay (it confirms at once).
    @inline(__always)
    mutating func observeFarOutside(
        at t: Date, accuracy: Double?, point: EarthPoint, secondsSincePrevious: Double?, mayClaim: Bool,
        mayExtendRun: Bool
    ) -> Bool {
        guard lastSide == .outside, !mayClaim else { return false }
        if state == .unsatisfied, !hasRun {
            guard isFarOutside(point, accuracy: accuracy) else { return false }
        } else {
            // Asked and changed where the run is stored (through `?.`): a copy of the run would
            // retain its box.
            guard mayExtendRun, pending?.side == .outside, !heldByVisit,
                isFarOutside(point, accuracy: accuracy),
                let count = pending?.countExtended(at: t, hysteresis: definition.hysteresis)
            else { return false }
            pending?.extend(to: count, at: t)
        }
        let continuous =
            secondsSincePrevious.map { observedPreviousFix && $0 <= definition.maxGapSeconds } ?? false
        observedPreviousFix = true
        if !continuous { lastSideChange = CrossingEstimate(date: t, after: t) }
        return true
    }

    /// Starts, from plain numbers, the run of evidence of outside that a fix far outside begins
    /// for a condition not outside with nothing pending whose last fix was not inside (a new
    /// device's first fix), and returns `true`; returns `false`, changing nothing, when
    /// ``observe(_:at:previous:into:)`` must weigh the fix (as for
    /// ``observeFarOutside(at:accuracy:point:secondsSincePrevious:mayClaim:mayExtendRun:)``, whose arguments
    /// these are, or when the fix alone confirms the change). Tried after that, for the few
    /// conditions it leaves.
    @inline(__always)
    mutating func startsRunFarOutside(
        at t: Date, accuracy: Double?, point: EarthPoint, secondsSincePrevious: Double?, mayClaim: Bool,
        mayExtendRun: Bool
    ) -> Bool {
        guard mayExtendRun, !mayClaim, lastSide != .inside, state != .unsatisfied, !hasRun, !heldByVisit,
            isFarOutside(point, accuracy: accuracy),
            !definition.hysteresis.confirms(count: 1, firstEvidence: t, lastEvidence: t, at: t)
        else { return false }
        let continuous =
            secondsSincePrevious.map { observedPreviousFix && $0 <= definition.maxGapSeconds } ?? false
        observedPreviousFix = true
        if lastSide == nil {
            lastSideChange = nil
        } else if !continuous {
            lastSideChange = CrossingEstimate(date: t, after: t)
        }
        lastSide = .outside
        // As the full path starts a run: a first determination is dated by its first evidence fix,
        // a change by when the positions crossed (here no crossing is interpolated).
        let now = CrossingEstimate(date: t, after: t)
        pending = Pending(
            side: .outside, firstEvidence: t, count: 1, lastEvidence: t,
            crossing: state == .unknown ? now : (lastSideChange ?? now))
        return true
    }

    /// For a condition settled, how far a fix may lie from `point` (before its accuracy's spread)
    /// and still change nothing in it, whether it is settled inside, and for a run the time before
    /// which it cannot confirm; `nil` for any other condition. ``SettledSkip`` covers it with this
    /// room. `time` is the time of the fix at `point`, which the condition has just observed.
    ///
    /// - Settled outside (unsatisfied, nothing pending, its last fix outside and the engine's
    ///   previous one): how much its distance bound at `point` exceeds what a fix needs to be
    ///   evidence of outside (the exit margin, and more than zero).
    /// - Settled inside (satisfied, nothing pending, no dwell due, its last fix inside and the
    ///   engine's previous one): how far from `point` every point is provably inside (a circle's
    ///   ``DistanceBound/insideRoom(_:)``). A continuous fix there, naming no regions, only notes
    ///   again that its position is inside: its evidence (inside, or none) starts no run, and
    ///   the side does not change. A device standing at one of its places skips it, and with the
    ///   others settled outside, every condition.
    /// - Holding a run of evidence of outside whose tracker promised nothing of its silence, its
    ///   last fix outside and the engine's previous one, no visit holding it: the same room as
    ///   settled outside, until its first evidence plus its confirmation time (less
    ///   ``SettledSkip/runDeadlineMarginSeconds``), if that is still to come. A continuous fix
    ///   there, naming no regions and no stay, from a tracker whose silence promises nothing, only
    ///   extends the run by one (``extendRun(by:lastAt:)`` does that for the fixes skipped).
    ///
    /// Mutating though it changes nothing: called on a condition in the engine's buffer, a
    /// non-mutating method had the whole condition copied out and destroyed again (retains and
    /// releases of its references) for every condition of every fix.
    @inline(__always)
    mutating func settledSlack(at point: EarthPoint, time: Date) -> (
        slack: Double, inside: Bool, runDeadline: Double?
    )? {
        guard observedPreviousFix else { return nil }
        if hasRun { return runSlack(at: point, time: time) }
        if lastSide == .outside, state == .unsatisfied {
            let margin = definition.exitMarginMeters
            guard margin.isFinite else { return nil }
            return (definition.bound.lowerBound(point) - max(margin, 0), false, nil)
        }
        guard lastSide == .inside, state == .satisfied else { return nil }
        return settledInsideSlack(at: point).map { ($0, true, nil) }
    }

    /// The room and deadline of a condition holding a run, the rest of ``settledSlack(at:time:)``:
    /// apart, like ``settledInsideSlack(at:)``, and for the same reason.
    @inline(never)
    private func runSlack(at point: EarthPoint, time: Date) -> (
        slack: Double, inside: Bool, runDeadline: Double?
    )? {
        // Asked of the run where it is stored (through `?.`): a copy would retain its box.
        guard lastSide == .outside, !heldByVisit, pending?.side == .outside, pending?.isSilent == false,
            let firstEvidence = pending?.firstEvidence
        else { return nil }
        let margin = definition.exitMarginMeters
        let deadline =
            firstEvidence.timeIntervalSinceReferenceDate + definition.confirmationSeconds
            - SettledSkip.runDeadlineMarginSeconds
        // Not finite margins and deadlines fail here too (comparisons with NaN are false); a run
        // due already is asked on every fix, as before.
        guard margin.isFinite, deadline > time.timeIntervalSinceReferenceDate else { return nil }
        return (definition.bound.lowerBound(point) - max(margin, 0), false, deadline)
    }

    /// Counts in the run `fixes` evidence fixes of outside that the skip passed over while it
    /// covered the run, the latest at `latest`: what
    /// ``observeFarOutside(at:accuracy:point:secondsSincePrevious:mayClaim:mayExtendRun:)`` does
    /// for each continuous one (the count kept to 32 bits, the last evidence moved).
    mutating func extendRun(by fixes: UInt32, lastAt latest: Date) {
        guard fixes > 0, let count = pending?.count else { return }
        pending?.extend(to: count + Int(fixes), at: latest)
    }

    /// The room of a condition settled inside, the rest of ``settledSlack(at:)``: apart, so
    /// that what the engine asks of every condition it observes stays small enough to be inlined
    /// there (with this inlined too, that was called as a function of its own, 6.2 million times
    /// in 400,000 fixes of ten thousand devices: 2.6% more instructions on the pipeline's thread).
    @inline(never)
    private func settledInsideSlack(at point: EarthPoint) -> Double? {
        guard !dwellMayBeDue else { return nil }
        return definition.bound.insideRoom(point)
    }

    /// Whether the bound alone proves a fix at `point` evidence of outside.
    @inline(__always)
    private func isFarOutside(_ point: EarthPoint, accuracy: Double?) -> Bool {
        let definition = self.definition
        let bound = definition.bound.lowerBound(point)
        let spread = definition.accuracyWeight * (accuracy ?? definition.assumedAccuracyMeters)
        return bound > 0 && bound - spread >= definition.exitMarginMeters
    }

    /// Whether the tracker's promise (another fix before the device moves farther than `reach`,
    /// ``Fix/silentWithinMeters``) keeps it on `side` with evidence to spare while it is silent.
    private func holdsSide(distance d: Double, reach: Double, accuracy: Double, side: Hysteresis.Side) -> Bool
    {
        let worst = side == .inside ? d + reach : d - reach
        return hysteresis.evidence(signedDistance: worst, accuracy: accuracy) == side
    }

    /// Confirms, at its deadline, a change whose tracker has stayed silent long enough since a fix
    /// that its silence keeps on the new side; `date` is the engine's clock.
    mutating func advance(to date: Date, into sink: inout EventSink) {
        guard let deadline = pending?.silence?.deadline, deadline <= date, !heldByVisit, let run = pending
        else {
            return
        }
        let fix = run.latestFix
        transition(
            to: run.side == .inside ? .satisfied : .unsatisfied, date: run.crossing.date,
            confirmedAt: deadline,
            distance: nil, fix: fix, visit: nil,
            into: &sink, orderKey: run.crossing.after)
    }

    /// Takes the tracker's own decision that the device is inside (or outside) this condition: a
    /// region transition or region list naming it. It is strong evidence and confirms at once.
    mutating func observeClaim(inside: Bool, at date: Date, into sink: inout EventSink) {
        guard !heldByVisit || !inside else { return }
        if let last = storedEvent?.date, date < last { return }
        let newState: ConditionState = inside ? .satisfied : .unsatisfied
        guard state != newState else {
            pending = nil
            return
        }
        transition(
            to: newState, date: date, confirmedAt: date, distance: .nan, fix: nil, visit: nil, into: &sink)
    }

    /// The time the signed distance crosses zero, interpolated linearly between two fixes on
    /// opposite sides.
    static func crossingTime(from t0: Date, distance d0: Double, to t1: Date, distance d1: Double) -> Date {
        let fraction = d0 / (d0 - d1)
        guard fraction.isFinite else { return t1 }
        return t0.addingTimeInterval(t1.timeIntervalSince(t0) * min(1, max(0, fraction)))
    }

    // MARK: Visits

    /// Applies a visit. `start` is its arrival (or its delivery when the arrival is unknown),
    /// `delivered` the engine's time when it came in.
    mutating func observe(_ visit: Visit, start: Date, delivered: Date, into sink: inout EventSink) {
        let h = hysteresis
        let d = definition.condition.signedDistance(to: visit.coordinate)
        guard d.isFinite else { return }
        // A visit that ended before this condition's last event is older news than what was
        // already reported; replaying it would move dates backwards.
        if let departure = visit.departure, let last = storedEvent?.date, departure <= last { return }
        let accuracy =
            visit.horizontalAccuracy.isFinite && visit.horizontalAccuracy >= 0
            ? visit.horizontalAccuracy : h.assumedAccuracyMeters
        pending = nil
        switch h.evidence(signedDistance: d, accuracy: accuracy) {
        case .inside:
            if state != .satisfied {
                transition(
                    to: .satisfied, date: start, confirmedAt: delivered, distance: d, fix: nil, visit: visit,
                    into: &sink)
            }
            if let departure = visit.departure {
                reportDwellIfDue(
                    reachedBy: departure, confirmedAt: delivered, distance: d, fix: nil, visit: visit,
                    into: &sink)
                heldByVisit = false
                transition(
                    to: .unsatisfied, date: departure, confirmedAt: delivered, distance: d, fix: nil,
                    visit: visit,
                    into: &sink)
            } else {
                heldByVisit = true
                reportDwellIfDue(
                    reachedBy: delivered, confirmedAt: delivered, distance: d, fix: nil, visit: visit,
                    into: &sink)
            }
        case .outside:
            heldByVisit = false
            if state != .unsatisfied {
                transition(
                    to: .unsatisfied, date: start, confirmedAt: delivered, distance: d, fix: nil,
                    visit: visit,
                    into: &sink)
            }
        case nil:
            // Neither clearly inside nor outside: only the end of a visit that holds the condition
            // counts (the centre of a stay often moves a little between its two reports).
            if heldByVisit, let departure = visit.departure {
                heldByVisit = false
                transition(
                    to: .unsatisfied, date: departure, confirmedAt: delivered, distance: d, fix: nil,
                    visit: visit,
                    into: &sink)
            }
        }
    }

    // MARK: Changes

    /// Changes the state and reports it; a `nil` distance is measured from `fix` (none without one).
    private mutating func transition(
        to newState: ConditionState, date: Date, confirmedAt: Date, distance: Double?, fix: Fix?,
        visit: Visit?,
        into sink: inout EventSink, orderKey: Date? = nil
    ) {
        let distance = distance ?? fix.map { definition.condition.signedDistance(to: $0.coordinate) } ?? .nan
        change(
            to: newState, date: date, confirmedAt: confirmedAt, distance: distance,
            evidence: sink.evidence(fix: fix, visit: visit), into: &sink, orderKey: orderKey)
    }

    /// ``transition(to:date:confirmedAt:distance:fix:visit:into:orderKey:)`` decided by a fix
    /// alone, as most are: the fix is read where it is, not wrapped in an optional (a copy of the
    /// whole fix, and its destruction, for every event).
    private mutating func transition(
        to newState: ConditionState, date: Date, confirmedAt: Date, distance: Double?,
        decidedBy fix: borrowing Fix, into sink: inout EventSink, orderKey: Date
    ) {
        let distance = distance ?? definition.condition.signedDistance(to: fix.coordinate)
        change(
            to: newState, date: date, confirmedAt: confirmedAt, distance: distance,
            evidence: sink.evidence(of: fix), into: &sink, orderKey: orderKey)
    }

    /// Changes the state to `newState` and reports it with `evidence`; a distance that is not
    /// finite is reported as none.
    private mutating func change(
        to newState: ConditionState, date: Date, confirmedAt: Date, distance: Double,
        evidence: Event.Evidence?, into sink: inout EventSink, orderKey: Date?
    ) {
        // Dates of one condition never go backwards, whatever mix of fixes and visits came in.
        var date = date
        if let last = storedEvent?.date, date < last { date = last }
        let event = Event(
            identifier: identifier, state: newState, kind: .transition, date: date, confirmedAt: confirmedAt,
            signedDistanceMeters: distance.isFinite ? distance : nil, evidence: evidence,
            previousState: state)
        state = newState
        // The stored event reads the event where it is, and the sink takes it over, rather than
        // each taking a copy (a copy of an event, and its destruction, retain and release its
        // identifier and its evidence).
        storedEvent = StoredEvent(event)
        pending = nil
        dwellReported = false
        dwellStart = newState == .satisfied ? date : nil
        if newState != .satisfied { heldByVisit = false }
        sink.append(consume event, orderKey: min(orderKey ?? date, date))
    }

    /// Reports the dwell event once the stay has lasted long enough; a `nil` distance is measured
    /// from `fix` when the event is made.
    private mutating func reportDwellIfDue(
        reachedBy now: Date, confirmedAt: Date, distance: Double?, fix: Fix?, visit: Visit?,
        into sink: inout EventSink
    ) {
        guard state == .satisfied, !dwellReported, !hasRun,
            let dwell = definition.dwellSeconds
        else {
            return
        }
        // A condition assumed satisfied has no known start: its stay is counted from the first
        // input after it was added.
        let start = dwellStart ?? now
        dwellStart = start
        guard now.timeIntervalSince(start) >= dwell else { return }
        dwellReported = true
        let distance = distance ?? fix.map { definition.condition.signedDistance(to: $0.coordinate) } ?? .nan
        let event = Event(
            identifier: identifier, state: .satisfied, kind: .dwell, date: start.addingTimeInterval(dwell),
            confirmedAt: confirmedAt, signedDistanceMeters: distance,
            evidence: sink.evidence(fix: fix, visit: visit),
            previousState: .satisfied)
        storedEvent = StoredEvent(event)
        let orderKey = event.date
        sink.append(consume event, orderKey: orderKey)
    }

    // MARK: Codable

    private enum CodingKeys: String, CodingKey {
        case identifier, condition, hysteresis, evaluated, state, lastEvent, lastSide, lastSeen,
            lastSideChange
        case pending, dwellStart, dwellReported, heldByVisit
    }

    /// Decodes a tracker, but for whether it observed its engine's previous fix (see ``Saved``).
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        evaluated = try c.decode(Bool.self, forKey: .evaluated)
        definition = Definition(
            identifier: try c.decode(String.self, forKey: .identifier),
            condition: try c.decode(Condition.self, forKey: .condition),
            hysteresis: try c.decode(Hysteresis.self, forKey: .hysteresis),
            evaluated: evaluated)
        state = try c.decode(ConditionState.self, forKey: .state)
        lastEvent = try c.decodeIfPresent(Event.self, forKey: .lastEvent)
        lastSide = try c.decodeIfPresent(Hysteresis.Side.self, forKey: .lastSide)
        lastSideChange = try c.decodeIfPresent(CrossingEstimate.self, forKey: .lastSideChange)
        pending = try c.decodeIfPresent(Pending.self, forKey: .pending)
        dwellStart = try c.decodeIfPresent(Date.self, forKey: .dwellStart)
        dwellReported = try c.decode(Bool.self, forKey: .dwellReported)
        heldByVisit = try c.decode(Bool.self, forKey: .heldByVisit)
    }

    /// Encodes the tracker of an engine whose latest accepted fix was at `previousFix`.
    func encode(to encoder: any Encoder, previousFix: Date?) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(identifier, forKey: .identifier)
        try c.encode(condition, forKey: .condition)
        try c.encode(hysteresis, forKey: .hysteresis)
        try c.encode(evaluated, forKey: .evaluated)
        try c.encode(state, forKey: .state)
        try c.encodeIfPresent(lastEvent, forKey: .lastEvent)
        try c.encodeIfPresent(lastSide, forKey: .lastSide)
        try c.encodeIfPresent(observedPreviousFix ? previousFix : nil, forKey: .lastSeen)
        try c.encodeIfPresent(lastSideChange, forKey: .lastSideChange)
        try c.encodeIfPresent(pending, forKey: .pending)
        try c.encodeIfPresent(dwellStart, forKey: .dwellStart)
        try c.encode(dwellReported, forKey: .dwellReported)
        try c.encode(heldByVisit, forKey: .heldByVisit)
    }
}

extension ConditionTracker {
    /// A tracker as an element of its engine's saved array: the engine's previous fix supplies
    /// the time of the last fix the tracker observed, which it keeps as a flag.
    struct Saved: Codable {
        var tracker: ConditionTracker
        /// The time of the last fix the tracker observed, as saved.
        var lastSeen: Date?
        /// The time of the engine's previous fix, when encoding.
        private var previousFix: Date?

        private enum CodingKeys: String, CodingKey { case lastSeen }

        init(_ tracker: ConditionTracker, previousFix: Date?) {
            self.tracker = tracker
            self.previousFix = previousFix
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            lastSeen = try c.decodeIfPresent(Date.self, forKey: .lastSeen)
            tracker = try ConditionTracker(from: decoder)
        }

        func encode(to encoder: any Encoder) throws {
            try tracker.encode(to: encoder, previousFix: previousFix)
        }

        /// The tracker of an engine whose latest accepted fix was at `previousFix`.
        func tracker(previousFix: Date?) -> ConditionTracker {
            var tracker = self.tracker
            tracker.observedPreviousFix = lastSeen != nil && lastSeen == previousFix
            return tracker
        }
    }
}

extension Hysteresis {
    /// Whether a run of evidence confirms its change at `t`: enough fixes over enough time (dense
    /// trackers), or two evidence fixes far enough apart (sparse ones).
    func confirms(_ run: ConditionTracker.Pending, at t: Date) -> Bool {
        confirms(count: run.count, firstEvidence: run.firstEvidence, lastEvidence: run.lastEvidence, at: t)
    }

    /// Whether a run of `count` evidence fixes from `firstEvidence` to `lastEvidence` confirms its
    /// change at `t`, asked from plain numbers.
    @inline(__always)
    func confirms(count: Int, firstEvidence: Date, lastEvidence: Date?, at t: Date) -> Bool {
        if count >= max(1, confirmationFixes), t.timeIntervalSince(firstEvidence) >= confirmationSeconds {
            return true
        }
        let span = (lastEvidence ?? firstEvidence).timeIntervalSince(firstEvidence)
        return count >= 2 && span >= max(confirmationSeconds, confirmationSpanSeconds)
    }
}

extension ConditionState {
    /// The side of the boundary this state stands for; `nil` when it stands for neither.
    var side: Hysteresis.Side? {
        switch self {
        case .satisfied: .inside
        case .unsatisfied: .outside
        case .unknown, .unmonitored: nil
        }
    }
}
