import Foundation

/// The conditions a device is settled far outside of, or well inside, skipped together while its
/// fixes stay near the point where that was last proved.
///
/// A condition is *settled outside* when it is unsatisfied, nothing is pending for it, its last
/// fix lay outside and it observed the engine's previous fix. For such a condition, a fix that its
/// distance bound proves evidence of outside, continuous with the previous fix and naming no
/// regions, changes nothing at all (``ConditionTracker/observeFarOutside(at:accuracy:point:secondsSincePrevious:mayClaim:mayExtendRun:)``
/// only notes again what it already holds). Most of a device's conditions are in that state for
/// most of its fixes, and asking each of them costs a distance bound per condition per fix.
///
/// The bound moves no faster than the device: a condition's lower bound at a point `q` is at least
/// its bound at `p` less the chord from `p` to `q` (the triangle inequality; the bound is the
/// chord to the condition's disc less a radius and a slack proportional to the chord, and that
/// proportion only shrinks the change). So a condition whose bound at `p` exceeds its exit margin
/// by `s` stays provably far outside at every `q` within `s` of `p`, less the fix's accuracy
/// spread. The skip keeps one `anchor`, the conditions it covers (`mask`, by index) and the least
/// such room (`room`, already less the distance from the anchor to where each was measured); a
/// fix within `room` of the anchor, less its spread, skips every covered condition at the cost of
/// one chord. Otherwise the skip is emptied, anchored at the fix, and refilled by the conditions
/// that fix leaves settled.
///
/// A circle is *settled inside* when it is satisfied, nothing is pending for it, no dwell is due,
/// its last fix lay inside and it observed the engine's previous fix: a continuous fix naming no
/// regions whose position is inside changes nothing in it either, and the circle's upper bound
/// proves that within a room of the fix it was measured at, in the same way
/// (``DistanceBound/insideRoom(_:)``). A device standing at one of its places then skips every
/// condition, and most fixes of a phone are taken standing somewhere.
///
/// A condition holding a run of evidence of outside (a new device's first determination, a
/// departure) is covered the same way until the run could confirm: a fix far outside only extends
/// such a run by one evidence fix (``ConditionTracker/observeFarOutside(at:accuracy:point:secondsSincePrevious:mayClaim:mayExtendRun:)``),
/// and before its confirmation time has passed it cannot confirm it. The skip counts the fixes it
/// passes over for these runs (``owed``) and the engine adds them to the runs
/// (``ConditionTracker/extendRun(by:lastAt:)``) before anything reads them: before it observes
/// them again, before it changes the skip's runs, and on a copy when the engine is saved. A fleet
/// whose devices start together otherwise weighs twenty conditions for each of every device's
/// first thirty fixes.
///
/// Not saved: an engine decoded, or changed in any other way than by a fix, starts empty.
struct SettledSkip: Sendable {
    /// Where the room was measured from.
    private var anchor = EarthPoint(x: 0, y: 0, z: 0)
    /// How far from the anchor, spread included, every covered condition is still proved far
    /// outside.
    private var room = 0.0
    /// The covered conditions: bit `i` for the tracker at index `i` (only the first 64 are covered).
    private(set) var mask: UInt64 = 0
    /// The anchor's latitude and longitude in degrees, and the cosine of its latitude: enough to
    /// bound a fix's distance from the anchor without its ``EarthPoint`` (``coversAll(_:near:spread:continuous:mayClaim:time:mayExtendRun:)``).
    private var anchorLatitude = 0.0
    private var anchorLongitude = 0.0
    private var anchorCosLatitude = 1.0
    /// Before this time (seconds from the reference date) no covered run can confirm; infinite
    /// when the skip covers no run (a run's is kept finite). Whether the skip covers runs is told
    /// by this alone, and which of its conditions hold them by the conditions themselves: a
    /// device keeps one skip inline, ten thousand devices as many.
    private var runDeadline = Double.infinity
    /// The fixes skipped since the runs were last told (``owed``); the latest of them is the
    /// engine's previous fix, or the fix being weighed when it skipped the runs.
    private var skippedForRuns: UInt32 = 0

    /// The fixes the skip passed over that the covered runs have not counted yet.
    struct Owed {
        /// The covered conditions, bit `i` for index `i`, when runs are among them, else none:
        /// those holding a run are owed the fixes; the others hold nothing to count them in.
        var runs: UInt64
        /// How many fixes.
        var fixes: UInt32
    }

    /// What the covered runs are owed; ``paid()`` once they are told.
    var owed: Owed { Owed(runs: runDeadline == .infinity ? 0 : mask, fixes: skippedForRuns) }

    /// Notes that the covered runs have counted every fix skipped so far.
    mutating func paid() { skippedForRuns = 0 }

    /// A condition is covered only with this much room beyond the fix that settles it: one that
    /// is nearer is asked on every fix anyway, and would empty the skip soon after (every fix of a
    /// device driving past). It was 300 m while only conditions settled outside were covered; a
    /// device standing at a place with another a few hundred metres off (work, and lunch 300 m
    /// away) then had that one asked on every fix. At 50 m: commute days' pipeline thread 12%
    /// fewer instructions, one device's 2%, ten thousand devices' and a drive at 17 m/s the same.
    static let minimumRoomMeters = 50.0
    /// Taken off every room for rounding: the chords are computed to about a nanometre on an
    /// Earth of six million metres, so a centimetre is far more than any rounding can lose.
    static let roundingMeters = 0.01
    /// Taken off a run's confirmation time for rounding: a run is covered only for fixes this much
    /// before its first evidence plus its confirmation time, so that the sum, rounded, can never
    /// let through a fix at which ``ConditionTracker/Pending/countExtended(at:hysteresis:)`` would
    /// ask whether the run confirms (dates are kept to about a ten-millionth of a second).
    static let runDeadlineMarginSeconds = 0.001

    /// Empties the skip (after anything but a fix changes the conditions); what it owes runs must
    /// have been paid.
    mutating func clear() {
        mask = 0
        skippedForRuns = 0
        runDeadline = .infinity
    }

    /// Whether the covered runs let a fix at `time` (seconds from the reference date) be skipped:
    /// it comes before any of them could confirm, and may extend a run (`mayExtendRun`: it comes
    /// from a tracker whose silence promises nothing and names no stay).
    @inline(__always)
    private func runsAllow(time: Double, mayExtendRun: Bool) -> Bool {
        runDeadline == .infinity || (mayExtendRun && time < runDeadline)
    }

    /// Counts a fix that skipped the covered conditions, for the runs among them. The count stops
    /// at its largest value, which no run can tell from more: a run's own count stops at
    /// `Int32.max`, below it.
    @inline(__always)
    mutating func countSkipped() {
        guard runDeadline != .infinity, skippedForRuns < .max else { return }
        skippedForRuns += 1
    }

    /// The conditions the fix at `point` may skip, having checked that it lies within the room
    /// (its weighted accuracy `spread` included): `mask`, or `0` after emptying the skip and
    /// anchoring it at `point`. `continuous` is whether every covered condition sees the fix as
    /// continuous with the previous one, and `mayClaim` whether the fix names regions (both send a
    /// fix down the full path); `time` and `mayExtendRun` are the fix's, for the covered runs.
    /// Returns, with the mask, the fix's distance from the anchor. When it returns `0`, what was
    /// ``owed`` before the call is owed still, and only the caller can pay it.
    mutating func covered(
        by point: EarthPoint, at coordinate: Coordinate, spread: Double, continuous: Bool, mayClaim: Bool,
        time: Double, mayExtendRun: Bool
    ) -> (mask: UInt64, fromAnchor: Double) {
        if mask != 0, continuous, !mayClaim, spread.isFinite,
            runsAllow(time: time, mayExtendRun: mayExtendRun)
        {
            let fromAnchor = anchor.chord(to: point)
            if fromAnchor + max(spread, 0) <= room { return (mask, fromAnchor) }
        }
        clear()
        room = .infinity
        anchor = point
        anchorLatitude = coordinate.latitude
        anchorLongitude = coordinate.longitude
        anchorCosLatitude = abs(cos(radians(coordinate.latitude)))
        return (0, 0)
    }

    /// Whether the skip covers every one of the `evaluated` conditions for a fix at `coordinate`,
    /// as ``covered(by:at:spread:continuous:mayClaim:time:mayExtendRun:)`` would say, from the coordinate's degrees
    /// alone: the fix then needs neither its ``EarthPoint`` nor any condition's attention, and
    /// nothing changes. `false` says only that the full test must be made.
    ///
    /// The chord from the anchor is at most the length of a walk along the anchor's parallel and
    /// then along the meridian, and no radius of curvature of the ellipsoid exceeds a/sqrt(1-e²)
    /// (6,399,593.6 m): at most (|Δφ| + cos φ₀ |Δλ|) times that, which is what is checked
    /// against the room (with a billionth over for rounding, and a micrometre for what the
    /// computed chord can be off by). Where it is not enough (the bound exceeds the chord by up to
    /// √2), the full test decides, as before.
    @inline(__always)
    func coversAll(
        _ evaluated: UInt64, near coordinate: Coordinate, spread: Double, continuous: Bool, mayClaim: Bool,
        time: Double, mayExtendRun: Bool
    ) -> Bool {
        guard mask != 0, evaluated & ~mask == 0, continuous, !mayClaim, spread.isFinite,
            runsAllow(time: time, mayExtendRun: mayExtendRun)
        else { return false }
        let reach = SettledSkip.reach(
            from: anchorLatitude, anchorLongitude, cosLatitude: anchorCosLatitude, to: coordinate)
        return reach + max(spread, 0) <= room
    }

    /// At least the chord from the point at (`latitude`, `longitude`), whose latitude's cosine is
    /// `cosLatitude`, to the point at `coordinate` (see ``coversAll(_:near:spread:continuous:mayClaim:time:mayExtendRun:)``).
    @inline(__always)
    static func reach(
        from latitude: Double, _ longitude: Double, cosLatitude: Double, to coordinate: Coordinate
    )
        -> Double
    {
        let latitudeDelta = abs(coordinate.latitude - latitude)
        var longitudeDelta = abs(coordinate.longitude - longitude)
        if longitudeDelta > 180 { longitudeDelta = 360 - longitudeDelta }
        return (latitudeDelta + cosLatitude * longitudeDelta) * metresPerDegree + chordErrorMeters
    }

    /// What the chord of two ``EarthPoint``s can be off by: their coordinates are computed to a
    /// few nanometres (``QuickTrig``'s sines within 2 units in the last place, times six million
    /// metres), so two points a nanometre apart can measure a little farther apart than any
    /// bound of the true distance; a micrometre is a hundred times that.
    static let chordErrorMeters = 1e-6

    /// Metres per degree of arc on a sphere of the ellipsoid's largest radius of curvature,
    /// a/sqrt(1-e²), rounded up by a billionth.
    private static let metresPerDegree = WGS84.a / (1 - WGS84.e2).squareRoot() * .pi / 180 * (1 + 1e-9)

    /// Covers condition `index`, settled with `slack` metres of room (``ConditionTracker/settledSlack(at:time:)``;
    /// `inside` for a condition settled inside) at a fix `fromAnchor` metres from the anchor whose
    /// spread was `spread`, when that leaves room enough. `runDeadline` is, for a condition holding
    /// a run, the time before which the run cannot confirm; the runs already covered must be owed
    /// nothing (they are then all owed the same fixes).
    @inline(__always)
    mutating func cover(
        _ index: Int, slack: Double, inside: Bool, runDeadline: Double?, fromAnchor: Double, spread: Double
    ) {
        guard index < 64 else { return }
        let room = SettledSkip.room(slack: slack, fromAnchor: fromAnchor)
        // Not finite spreads and slacks fail here too (comparisons with NaN are false).
        guard wouldCover(index, slack: slack, fromAnchor: fromAnchor, spread: spread) else {
            // A place the device stands in would be covered measured from this fix: anchored at a
            // fix far off (one of the place's scattered fixes, or one on the way there), the skip
            // would never cover it while the device stands there. The skip is left without room,
            // so that the next fix empties it and anchors it where it is. (Far outside, the skip
            // empties soon anyway, and emptying it early costs a moving device more than it saves.)
            if inside, SettledSkip.leavesEnough(SettledSkip.room(slack: slack, fromAnchor: 0), spread: spread)
            {
                self.room = -.infinity
            }
            return
        }
        assert(runDeadline == nil || skippedForRuns == 0, "a run covered beside runs owed fixes")
        mask |= 1 << UInt64(index)
        if room < self.room { self.room = room }
        if let runDeadline {
            self.runDeadline = min(self.runDeadline, runDeadline, .greatestFiniteMagnitude)
        }
    }

    /// Whether ``cover(_:slack:inside:runDeadline:fromAnchor:spread:)`` would cover condition
    /// `index` with these numbers.
    @inline(__always)
    func wouldCover(_ index: Int, slack: Double, fromAnchor: Double, spread: Double) -> Bool {
        index < 64
            && SettledSkip.leavesEnough(
                SettledSkip.room(slack: slack, fromAnchor: fromAnchor), spread: spread)
    }

    /// The room a condition settled with `slack` metres leaves for fixes near the anchor, measured
    /// at a fix `fromAnchor` metres from it.
    @inline(__always)
    private static func room(slack: Double, fromAnchor: Double) -> Double {
        slack - fromAnchor - roundingMeters
    }

    /// Whether `room` is enough to cover a condition, beyond a fix's accuracy `spread`.
    @inline(__always)
    private static func leavesEnough(_ room: Double, spread: Double) -> Bool {
        room - max(spread, 0) >= minimumRoomMeters
    }
}

/// What the skip needs to know of all evaluated conditions together, worked out when a condition
/// is added or removed; shared by every copy of the engine (a template copied for many devices).
final class SettledSkipLimits: Sendable {
    /// The evaluated conditions among the first 64, bit `i` for index `i`.
    let evaluated: UInt64
    /// Whether an evaluated condition lies past index 63 (asked on every fix, never covered).
    let evaluatedBeyondMask: Bool
    /// The shortest gap any evaluated condition takes as continuous.
    let maxGapSeconds: Double
    /// The largest accuracy weight, and the largest spread of a fix without an accuracy: no
    /// condition spreads a fix wider (for accuracies of zero or more).
    let accuracyWeight: Double
    let assumedSpread: Double

    init<Trackers: Collection<ConditionTracker>>(_ trackers: Trackers) {
        var evaluated: UInt64 = 0
        var beyond = false
        var gap = Double.infinity
        var weight = -Double.infinity
        var assumed = -Double.infinity
        for (index, tracker) in trackers.enumerated() where tracker.evaluated {
            if index < 64 { evaluated |= 1 << UInt64(index) } else { beyond = true }
            let h = tracker.hysteresis
            // A number that is not a number would be passed over by `min` and `max`: it leaves
            // no gap continuous here, so that nothing is skipped.
            let spread = h.accuracyWeight * h.assumedAccuracyMeters
            if h.maxGapSeconds.isNaN || h.accuracyWeight.isNaN || spread.isNaN {
                gap = .nan
            } else if !gap.isNaN {
                gap = min(gap, h.maxGapSeconds)
                weight = max(weight, h.accuracyWeight)
                assumed = max(assumed, spread)
            }
        }
        self.evaluated = evaluated
        evaluatedBeyondMask = beyond
        maxGapSeconds = gap
        accuracyWeight = weight
        assumedSpread = assumed
    }

    /// The engine without conditions.
    static let none = SettledSkipLimits([ConditionTracker]())

    /// No evaluated condition spreads a fix of this accuracy wider than this; NaN when the
    /// accuracy is negative or not a number, where nothing is skipped.
    @inline(__always)
    func spread(accuracy: Double?) -> Double {
        guard let accuracy else { return assumedSpread }
        return accuracy >= 0 ? accuracyWeight * accuracy : .nan
    }
}
