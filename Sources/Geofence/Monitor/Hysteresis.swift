/// How much evidence a condition needs before its state changes, in space and in time.
///
/// A fix of signed distance `d` (metres to the boundary, negative inside) and accuracy `a` is
///
/// - evidence of **inside** when `d + accuracyWeight * a <= -enterMarginMeters` (and `d <= 0`),
/// - evidence of **outside** when `d - accuracyWeight * a >= exitMarginMeters` (and `d > 0`),
/// - no evidence otherwise.
///
/// The state changes when evidence for the other side has held without contradiction for
/// ``confirmationSeconds`` and at least ``confirmationFixes`` evidence fixes. A fix whose position
/// lies on the old side of the boundary contradicts and restarts the count; a fix on the new side
/// that is not evidence (it is in the band around the boundary) neither counts nor contradicts.
///
/// The defaults (``default``) are chosen so that a phone lying still with 20 m of noise per axis and
/// 1% of wild fixes, 100 m or more from the boundary, never flaps, and so that two fences 300 m
/// apart (work and a lunch place) are told apart:
///
/// | field | default | why |
/// |---|---|---|
/// | ``enterMarginMeters`` | 10 m | a cushion beyond the accuracy circle for over-confident fixes |
/// | ``exitMarginMeters`` | 10 m | the same as enter, so leaving one fence and entering its neighbour are confirmed by the same fix |
/// | ``accuracyWeight`` | 1.0 | the whole 68% circle must be on the new side (Android asks 85% of it) |
/// | ``confirmationSeconds`` | 30 s | longer than the multipath bursts of a 1 Hz receiver (Apple waits about 20 s) |
/// | ``confirmationFixes`` | 3 | two wild fixes in a row happen about weekly at 1% outliers and a fix a minute; three do not |
/// | ``dwellSeconds`` | `nil` | dwell events only when asked for |
/// | ``maxGapSeconds`` | 600 s | ten missed fixes at one a minute; raise it for sparse trackers |
/// | ``assumedAccuracyMeters`` | 20 m | a phone's GPS outdoors in a town, for fixes that carry no accuracy |
public struct Hysteresis: Codable, Sendable, Hashable {
    /// How far inside, beyond the weighted accuracy, a fix must be to count as evidence of inside.
    public var enterMarginMeters: Double
    /// How far outside, beyond the weighted accuracy, a fix must be to count as evidence of outside.
    public var exitMarginMeters: Double
    /// How many accuracy radii (`k`) the fix's uncertainty counts for.
    public var accuracyWeight: Double
    /// How long the new evidence must hold, from the first evidence fix, before the state changes.
    public var confirmationSeconds: Double
    /// How many evidence fixes the change needs, counting the first.
    public var confirmationFixes: Int
    /// After this long satisfied, one dwell event is reported per stay; `nil` for no dwell events.
    public var dwellSeconds: Double?
    /// A pause between fixes longer than this breaks evidence and dating: evidence from before it
    /// does not count towards a change after it, and no crossing time is interpolated across it.
    public var maxGapSeconds: Double
    /// The accuracy assumed for fixes that carry none, in metres.
    public var assumedAccuracyMeters: Double

    /// Makes a hysteresis; every argument has the default documented in the table above.
    public init(
        enterMarginMeters: Double = 10, exitMarginMeters: Double = 10, accuracyWeight: Double = 1,
        confirmationSeconds: Double = 30, confirmationFixes: Int = 3, dwellSeconds: Double? = nil,
        maxGapSeconds: Double = 600, assumedAccuracyMeters: Double = 20
    ) {
        self.enterMarginMeters = enterMarginMeters
        self.exitMarginMeters = exitMarginMeters
        self.accuracyWeight = accuracyWeight
        self.confirmationSeconds = confirmationSeconds
        self.confirmationFixes = confirmationFixes
        self.dwellSeconds = dwellSeconds
        self.maxGapSeconds = maxGapSeconds
        self.assumedAccuracyMeters = assumedAccuracyMeters
    }

    /// The documented defaults.
    public static let `default` = Hysteresis()

    /// Which side of the boundary a measurement is evidence for, if any.
    ///
    /// The sign conditions keep evidence on the same side as the point itself even for negative
    /// margins or a zero weight, which the contradiction rule relies on.
    @inlinable
    public func evidence(signedDistance d: Double, accuracy: Double) -> Side? {
        let spread = accuracyWeight * accuracy
        if d <= 0, d + spread <= -enterMarginMeters { return .inside }
        if d > 0, d - spread >= exitMarginMeters { return .outside }
        return nil
    }

    /// A side of a condition's boundary.
    public enum Side: String, Codable, Sendable, Hashable {
        /// Inside or on the boundary.
        case inside
        /// Outside.
        case outside

        /// The side a signed distance lies on; zero is inside, as in ``Condition/contains(_:)``.
        @inlinable
        public init(signedDistance d: Double) { self = d <= 0 ? .inside : .outside }
    }
}
