/// How much evidence a condition needs before its state changes, in space and in time.
///
/// A fix of signed distance `d` (metres to the boundary, negative inside) and accuracy `a` is
///
/// - evidence of **inside** when `d + accuracyWeight * a <= -enterMarginMeters` (and `d <= 0`),
/// - evidence of **outside** when `d - accuracyWeight * a >= exitMarginMeters` (and `d > 0`),
/// - no evidence otherwise.
///
/// The state changes when evidence for the other side has held without contradiction either for
/// ``confirmationSeconds`` and at least ``confirmationFixes`` evidence fixes (dense trackers), or
/// over two evidence fixes at least ``confirmationSpanSeconds`` apart (sparse and
/// distance-triggered trackers). A fix whose position lies on the old side of the boundary
/// contradicts and restarts the count; a fix on the new side that is not evidence (it is in the
/// band around the boundary) neither counts nor contradicts; silence (no fix at all, however long)
/// neither counts nor contradicts.
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
/// | ``confirmationSpanSeconds`` | 180 s | two fixes of a 5-to-30-minute timer confirm; at a fix a minute two wild fixes this far apart would need the real fixes between them not to contradict |
/// | ``silenceConfirmationSeconds`` | 600 s | longer than the 5-minute keep-alive of OwnTracks' move mode, so a wild fix is contradicted by the next timed fix before its silence confirms it |
/// | ``dwellSeconds`` | `nil` | dwell events only when asked for |
/// | ``maxGapSeconds`` | 3600 s | a fix every 30 minutes still has its crossings interpolated; across longer silences the path says too little |
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
    /// Two evidence fixes at least this many seconds apart, with nothing contradicting them in
    /// between, confirm a change even when they are fewer than ``confirmationFixes``.
    ///
    /// This is what lets a tracker that reports every 15 or 30 minutes, or only after moving
    /// 100 m, have its changes confirmed; a single fix never confirms one.
    public var confirmationSpanSeconds: Double
    /// After a fix whose tracker promises to report any move of ``Fix/silentWithinMeters``, and
    /// whose position keeps the new side even that far away, this long a silence confirms the
    /// change on its own (on the clock, see ``MonitorEngine/advance(to:)``).
    public var silenceConfirmationSeconds: Double
    /// After this long satisfied, one dwell event is reported per stay; `nil` for no dwell events.
    public var dwellSeconds: Double?
    /// No crossing time is interpolated across a pause between fixes longer than this: the first
    /// fix after it dates the crossing. A pause never discards evidence (silence is not a change).
    public var maxGapSeconds: Double
    /// The accuracy assumed for fixes that carry none, in metres.
    public var assumedAccuracyMeters: Double

    /// Makes a hysteresis; every argument has the default documented in the table above.
    public init(
        enterMarginMeters: Double = 10, exitMarginMeters: Double = 10, accuracyWeight: Double = 1,
        confirmationSeconds: Double = 30, confirmationFixes: Int = 3, confirmationSpanSeconds: Double = 180,
        silenceConfirmationSeconds: Double = 600, dwellSeconds: Double? = nil, maxGapSeconds: Double = 3600,
        assumedAccuracyMeters: Double = 20
    ) {
        self.enterMarginMeters = enterMarginMeters
        self.exitMarginMeters = exitMarginMeters
        self.accuracyWeight = accuracyWeight
        self.confirmationSeconds = confirmationSeconds
        self.confirmationFixes = confirmationFixes
        self.confirmationSpanSeconds = confirmationSpanSeconds
        self.silenceConfirmationSeconds = silenceConfirmationSeconds
        self.dwellSeconds = dwellSeconds
        self.maxGapSeconds = maxGapSeconds
        self.assumedAccuracyMeters = assumedAccuracyMeters
    }

    /// The documented defaults.
    public static let `default` = Hysteresis()

    private enum CodingKeys: String, CodingKey {
        case enterMarginMeters, exitMarginMeters, accuracyWeight, confirmationSeconds, confirmationFixes,
            confirmationSpanSeconds, silenceConfirmationSeconds, dwellSeconds, maxGapSeconds,
            assumedAccuracyMeters
    }

    /// Decodes a hysteresis; a state saved before ``confirmationSpanSeconds`` and
    /// ``silenceConfirmationSeconds`` existed gets their defaults.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = Hysteresis()
        enterMarginMeters = try c.decode(Double.self, forKey: .enterMarginMeters)
        exitMarginMeters = try c.decode(Double.self, forKey: .exitMarginMeters)
        accuracyWeight = try c.decode(Double.self, forKey: .accuracyWeight)
        confirmationSeconds = try c.decode(Double.self, forKey: .confirmationSeconds)
        confirmationFixes = try c.decode(Int.self, forKey: .confirmationFixes)
        confirmationSpanSeconds =
            try c.decodeIfPresent(Double.self, forKey: .confirmationSpanSeconds)
            ?? defaults.confirmationSpanSeconds
        silenceConfirmationSeconds =
            try c.decodeIfPresent(Double.self, forKey: .silenceConfirmationSeconds)
            ?? defaults.silenceConfirmationSeconds
        dwellSeconds = try c.decodeIfPresent(Double.self, forKey: .dwellSeconds)
        maxGapSeconds = try c.decode(Double.self, forKey: .maxGapSeconds)
        assumedAccuracyMeters = try c.decode(Double.self, forKey: .assumedAccuracyMeters)
    }

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
