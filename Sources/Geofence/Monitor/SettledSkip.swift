import Foundation

/// The conditions a device is settled far outside of, skipped together while its fixes stay near
/// the point where that was last proved.
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
/// Not saved: an engine decoded, or changed in any other way than by a fix, starts empty.
struct SettledSkip: Sendable {
    /// Where the room was measured from.
    private var anchor = EarthPoint(x: 0, y: 0, z: 0)
    /// How far from the anchor, spread included, every covered condition is still proved far
    /// outside.
    private var room = 0.0
    /// The covered conditions: bit `i` for the tracker at index `i` (only the first 64 are covered).
    private(set) var mask: UInt64 = 0

    /// A condition is covered only with this much room beyond the fix that settles it: one that
    /// is nearer is asked on every fix anyway, and would empty the skip soon after.
    static let minimumRoomMeters = 300.0
    /// Taken off every room for rounding: the chords are computed to about a nanometre on an
    /// Earth of six million metres, so a centimetre is far more than any rounding can lose.
    static let roundingMeters = 0.01

    /// Empties the skip (after anything but a fix changes the conditions).
    mutating func clear() { mask = 0 }

    /// The conditions the fix at `point` may skip, having checked that it lies within the room
    /// (its weighted accuracy `spread` included): `mask`, or `0` after emptying the skip and
    /// anchoring it at `point`. `continuous` is whether every covered condition sees the fix as
    /// continuous with the previous one, and `mayClaim` whether the fix names regions (both send a
    /// fix down the full path). Returns, with the mask, the fix's distance from the anchor.
    mutating func covered(
        by point: EarthPoint, spread: Double, continuous: Bool, mayClaim: Bool
    ) -> (mask: UInt64, fromAnchor: Double) {
        if mask != 0, continuous, !mayClaim, spread.isFinite {
            let fromAnchor = anchor.chord(to: point)
            if fromAnchor + max(spread, 0) <= room { return (mask, fromAnchor) }
        }
        mask = 0
        room = .infinity
        anchor = point
        return (0, 0)
    }

    /// Covers condition `index`, settled with `slack` metres of bound beyond its exit margin at a
    /// fix `fromAnchor` metres from the anchor whose spread was `spread`, when that leaves room.
    @inline(__always)
    mutating func cover(_ index: Int, slack: Double, fromAnchor: Double, spread: Double) {
        guard index < 64 else { return }
        let room = slack - fromAnchor - SettledSkip.roundingMeters
        // Not finite spreads and slacks fail here too (comparisons with NaN are false).
        guard room - max(spread, 0) >= SettledSkip.minimumRoomMeters else { return }
        mask |= 1 << UInt64(index)
        if room < self.room { self.room = room }
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
