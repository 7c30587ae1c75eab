public import Foundation

/// A streaming stay-point detector that turns fixes into visits, one fix at a time, the way Core
/// Location reports `CLVisit`.
///
/// Each stay is reported twice: once as soon as it has lasted ``Configuration/minimumStaySeconds``
/// (arrival known, departure `nil`), and again as soon as leaving is certain (both known). The two
/// reports of one stay carry the same coordinate and arrival, so a consumer can pair them.
///
/// # The algorithm
/// Stay-point detection after Li et al. (2008): from an anchor fix, a window grows while later fixes
/// stay within ``Configuration/radiusMeters`` (D); a window that lasts
/// ``Configuration/minimumStaySeconds`` (T) is a stay, placed at the centroid of its fixes. Three
/// changes make it survive real traces and run as a stream:
/// - **Strays.** Up to ``Configuration/maxStrays`` consecutive fixes outside D are held back; if the
///   next fix comes back inside they are dropped as wild fixes, without moving the centroid. A run of
///   strays longer than that, or one spanning T, means the person left.
/// - **Boundaries.** The arrival is the time of the stay's first fix and the departure the time of
///   its last fix inside: with a fix every I seconds, either is off the truth by up to about I
///   (the first fix at the place comes up to I after the arrival; a commute fix within D of the
///   place can count as the first), and no better is knowable. A pause between two fixes that
///   agree on the place does not end a stay (silence is not movement); only a gap longer than
///   ``Configuration/maxGapSeconds`` (12 hours by default) ends the stay at its last fix. The arrival is never `nil`: a stay that begins with the first fix of the
///   input arrives at that fix, since nothing says the person was there before.
/// - **Streaming.** The opening report comes with the fix that makes the window last T; the closing
///   report with the fix that makes leaving certain (the stray that exceeds the tolerance, or the
///   first fix after a gap). When a stay ends, the strays are replayed from the first of them as the
///   next anchor, so the next stay starts where the last one was left.
///
/// A fix is judged by its distance to the running centroid of the window rather than to the anchor
/// (for the first fix after the anchor the two are the same). The anchor is one noisy fix, often a
/// commute fix at the edge of the place; judged by it, the fixes at the place fall in and out of D
/// and the arrival slips by minutes or the stay splits (on the synthetic day at a fix a minute, 34
/// seeds in 300 reported an arrival more than 5 minutes late). The centroid moves onto the place
/// within a few fixes. The price: a window judged by its centroid follows a very slow drift, so a
/// stroll slower than about 2D/T (0.33 m/s at the defaults) can make a stay, where the anchor rule
/// stops at D/T.
///
/// Fixes less precise than ``Configuration/accuracyLimitMeters`` are skipped, as are fixes not later
/// than the last one taken (fixes must come in time order; the fix filter drops late ones before).
///
/// Every fix costs O(1) amortised: running sums hold the centroid and spread, and a fix is replayed
/// at most ``Configuration/maxStrays`` + 1 times.
///
/// The detector is a value; its `Codable` form is its whole state, so a process that saves it and
/// decodes it after a restart goes on exactly where it stopped.
public struct VisitDetector: Codable, Sendable {
    /// The parameters in use, with any NaN or negative value already replaced (see
    /// ``Configuration``).
    public let configuration: Configuration
    /// The current candidate or stay; `nil` before the first fix and after a gap or ``finish()``.
    private var window: StayWindow?
    /// The time of the last fix taken, to skip fixes out of order and to notice gaps.
    private var lastTimestamp: Date?

    /// Makes a detector with no fixes seen.
    public init(configuration: Configuration = .init()) {
        self.configuration = configuration.sanitized
    }

    /// The opening report of the stay going on now, if the fixes so far make one.
    public var currentVisit: Visit? { window?.visit }

    /// The time of the last fix inside the stay going on: how long it has lasted so far, as the
    /// fixes show it (a commute judges its stops by this); `nil` when no stay is going on.
    public var currentVisitLastFix: Date? { window?.isStay == true ? window?.lastInside : nil }

    /// Takes the next fix and returns the visits it reveals, in order: none; an opening or a closing
    /// report; or, rarely, the closing report of one stay and the opening report of the next.
    ///
    /// A fix less precise than ``Configuration/accuracyLimitMeters``, or not later than the last fix
    /// taken, is skipped and returns no visits.
    public mutating func ingest(_ fix: Fix) -> [Visit] {
        if let accuracy = fix.horizontalAccuracy, accuracy > configuration.accuracyLimitMeters { return [] }
        var visits: [Visit] = []
        if let last = lastTimestamp {
            guard fix.timestamp > last else { return [] }
            if fix.timestamp.timeIntervalSince(last) > configuration.maxGapSeconds {
                // Nothing is known about the gap: the stay ends at its last fix, and strays held
                // back before it are too few and too short to be a stay of their own.
                if let closed = window?.closedVisit() { visits.append(closed) }
                window = nil
            }
        }
        lastTimestamp = fix.timestamp
        place(fix, into: &visits)
        return visits
    }

    /// Takes fixes in order and returns the visits they reveal; the same as taking them one by one.
    public mutating func ingest(_ fixes: [Fix]) -> [Visit] {
        var visits: [Visit] = []
        for fix in fixes { visits.append(contentsOf: ingest(fix)) }
        return visits
    }

    /// Ends the input: closes the stay going on, if any, and returns to the state of a new detector.
    ///
    /// A stay still open is closed at its last fix inside, because a finished trace is a finished
    /// history: as far as the record goes the person was last seen there then, and a consumer that
    /// pairs opening and closing reports (a commute, a log of the day) needs every stay closed. A
    /// candidate shorter than ``Configuration/minimumStaySeconds`` is dropped, as it would be had the
    /// person left. Call this only when the input has truly ended (a replay, a file); a process that
    /// stops to restart should save the detector instead, so the stay stays open.
    public mutating func finish() -> [Visit] {
        let closed = window?.closedVisit()
        window = nil
        lastTimestamp = nil
        return closed.map { [$0] } ?? []
    }

    /// Puts a fix into the current window, ending the window and starting the next when the fix makes
    /// leaving certain.
    ///
    /// The window is changed where it lies: taking it out and putting it back copied it (its anchor,
    /// strays and visit, a few hundred bytes) for every fix.
    private mutating func place(_ fix: Fix, into visits: inout [Visit]) {
        guard let step = window?.take(fix, configuration: configuration) else {
            window = StayWindow(anchor: fix)
            return
        }
        switch step {
        case .kept:
            return
        case .confirmed(let visit):
            visits.append(visit)
        case .left:
            // Leaving is certain. The first stray is the first fix after the stay, so it anchors the
            // next window and the others are judged again from it; this replays at most maxStrays + 1
            // fixes.
            guard let left = window.take() else { return }
            if let closed = left.closedVisit() { visits.append(closed) }
            for stray in left.strays { place(stray, into: &visits) }
        }
    }

    private enum CodingKeys: String, CodingKey { case configuration, window, lastTimestamp }

    /// Restores a saved detector.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        configuration = try c.decode(Configuration.self, forKey: .configuration).sanitized
        window = try c.decodeIfPresent(StayWindow.self, forKey: .window)
        lastTimestamp = try c.decodeIfPresent(Date.self, forKey: .lastTimestamp)
    }

    /// Saves the detector's whole state.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(configuration, forKey: .configuration)
        try c.encodeIfPresent(window, forKey: .window)
        try c.encodeIfPresent(lastTimestamp, forKey: .lastTimestamp)
    }
}
