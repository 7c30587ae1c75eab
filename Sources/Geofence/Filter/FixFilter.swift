public import Foundation

/// The gate in front of the monitor: it drops fixes that must not move a fence and counts why.
///
/// The filter keeps only what it needs to judge the next fix (the last accepted fix) and its
/// counters, so it is a small `Codable` value that is saved and restored with the monitor: a
/// restarted monitor refuses a fix it has already accepted instead of acting on it twice.
///
/// The rules, in the order they are checked (the first that applies is the reason):
///
/// | reason | a fix is dropped when | default |
/// |---|---|---|
/// | ``Reason/invalidCoordinate`` | its raw latitude or longitude is NaN, infinite or out of range (counted by ``coordinate(latitude:longitude:)``) | |
/// | ``Reason/nullIsland`` | it is at (0, 0), within ``Configuration/nullIslandToleranceDegrees`` | 1e-5° (about 1 m) |
/// | ``Reason/inaccurate`` | its horizontal accuracy is worse than ``Configuration/maxAccuracyMeters`` | 100 m |
/// | ``Reason/fromTheFuture`` | live only: it is dated later than its arrival plus ``Configuration/futureToleranceSeconds`` | 60 s |
/// | ``Reason/expired`` | live only: it was older than ``Configuration/expirationSeconds`` when it arrived | 300 s |
/// | ``Reason/tooFarAhead`` | history only: it is dated more than ``Configuration/maxForwardJumpSeconds`` after the last accepted fix | 2 days |
/// | ``Reason/duplicate`` | it equals the last accepted fix in every field | |
/// | ``Reason/notNewer`` | it is not newer than the last accepted fix | |
/// | ``Reason/tooFast`` | reaching it from the last accepted fix needs more than ``Configuration/maxSpeedMetersPerSecond`` | 69.4 m/s (250 km/h) |
///
/// Times are bounded where they enter: readers refuse times before 2000 or after 2100
/// (GeofenceInput's `TimeBounds`), and this filter refuses a fix dated far ahead of the fixes
/// before it, against the clock when live (``Reason/fromTheFuture``) and against the last
/// accepted fix in history (``Reason/tooFarAhead``). Without that, one fix dated 2090 (a broken
/// clock, microseconds read as milliseconds) would become the last accepted fix and every honest
/// fix after it would be dropped as ``Reason/notNewer``.
///
/// Re-anchoring is one rule for both kinds of disagreement: when ``Configuration/reanchorAfterFixes``
/// consecutive fixes are dropped as ``Reason/tooFast`` or ``Reason/tooFarAhead`` and each is
/// plausible from the one before it, the last accepted fix (not they) is taken to be wrong and the
/// newest of them is accepted. So a tracker silent for a month loses the first two fixes after the
/// gap and goes on, while a lone fix far ahead is dropped and never blocks the rest.
///
/// A fix without an accuracy is not dropped as inaccurate: an unknown accuracy is not a bad one
/// (GPX and many CSV exports carry none).
public struct FixFilter: Codable, Sendable {
    /// The limits the filter applies; every field has a documented default.
    public struct Configuration: Codable, Sendable, Hashable {
        /// Fixes whose horizontal accuracy (68% radius) is worse than this are dropped.
        ///
        /// Default 100 m: a phone's GPS reports 5 to 30 m and Wi-Fi positioning 30 to 65 m; beyond
        /// 100 m the fix is a cell-tower guess that can place a person in the wrong street.
        public var maxAccuracyMeters: Double
        /// Fixes implying a faster movement from the last accepted fix are dropped.
        ///
        /// Default 69.4 m/s (250 km/h): faster than any car on a public road, so a real drive is
        /// never cut, while a fix that jumps kilometres in seconds is. Trains above 250 km/h and
        /// planes need a higher limit. The distance is reduced by both fixes' accuracies before
        /// dividing by the time between them, so that two honest but noisy fixes a second apart
        /// are not mistaken for a jump.
        public var maxSpeedMetersPerSecond: Double
        /// Live fixes that were already older than this when they arrived are dropped.
        ///
        /// Default 300 s: a tracker's first fix after waking is often a cached position from
        /// another place; five minutes is long enough for a queued fix sent after a short loss of
        /// network, and short enough that a stale one does not fire a fence.
        public var expirationSeconds: Double
        /// Live fixes dated later than their arrival by more than this are dropped.
        ///
        /// Default 60 s: the phone and the server clocks disagree by a few seconds when both use
        /// NTP; a fix a minute ahead of the server is a broken clock, and accepting it would make
        /// every later honest fix "not newer".
        public var futureToleranceSeconds: Double
        /// A fix whose latitude and longitude are both within this of zero is at "null island".
        ///
        /// Default 1e-5° (about a metre): trackers that have no position write (0, 0), sometimes
        /// with rounding noise; nobody is tracked in the Gulf of Guinea at exactly that point.
        public var nullIslandToleranceDegrees: Double
        /// After this many consecutive fixes too fast to reach from the last accepted fix, but each
        /// plausible from the one before it, the last accepted fix was the outlier: the filter
        /// accepts the newest of them and judges from there.
        ///
        /// Default 3. Without it, one wild fix that happens to be accepted (the first of a stream,
        /// a cached position from a trip) would make every real fix "too fast" for as long as the
        /// speed limit needs to cover the distance: four hours for a fix 1,000 km off. Three fixes
        /// agreeing with each other is the same evidence the monitor asks before it moves a state.
        public var reanchorAfterFixes: Int
        /// In history, fixes dated more than this after the last accepted fix are held back as
        /// ``Reason/tooFarAhead`` until re-anchoring confirms them.
        ///
        /// Default 2 days: a phone switched off for a weekend costs two fixes (see
        /// ``reanchorAfterFixes``), while a fix from a clock years or days ahead is never accepted
        /// on its own. Live input is judged against the clock instead
        /// (``futureToleranceSeconds``).
        public var maxForwardJumpSeconds: Double

        /// Makes a configuration; every argument has the default documented on its property.
        public init(
            maxAccuracyMeters: Double = 100, maxSpeedMetersPerSecond: Double = 250 / 3.6,
            expirationSeconds: Double = 300, futureToleranceSeconds: Double = 60,
            nullIslandToleranceDegrees: Double = 1e-5, reanchorAfterFixes: Int = 3,
            maxForwardJumpSeconds: Double = 2 * 86_400
        ) {
            self.maxForwardJumpSeconds = maxForwardJumpSeconds
            self.reanchorAfterFixes = max(1, reanchorAfterFixes)
            self.maxAccuracyMeters = maxAccuracyMeters
            self.maxSpeedMetersPerSecond = maxSpeedMetersPerSecond
            self.expirationSeconds = expirationSeconds
            self.futureToleranceSeconds = futureToleranceSeconds
            self.nullIslandToleranceDegrees = nullIslandToleranceDegrees
        }

        private enum CodingKeys: String, CodingKey {
            case maxAccuracyMeters, maxSpeedMetersPerSecond, expirationSeconds, futureToleranceSeconds
            case nullIslandToleranceDegrees, reanchorAfterFixes, maxForwardJumpSeconds
        }

        /// Decodes a configuration; a state saved before ``maxForwardJumpSeconds`` existed gets its
        /// default.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let defaults = Configuration()
            self.init(
                maxAccuracyMeters: try c.decode(Double.self, forKey: .maxAccuracyMeters),
                maxSpeedMetersPerSecond: try c.decode(Double.self, forKey: .maxSpeedMetersPerSecond),
                expirationSeconds: try c.decode(Double.self, forKey: .expirationSeconds),
                futureToleranceSeconds: try c.decode(Double.self, forKey: .futureToleranceSeconds),
                nullIslandToleranceDegrees: try c.decode(Double.self, forKey: .nullIslandToleranceDegrees),
                reanchorAfterFixes: try c.decode(Int.self, forKey: .reanchorAfterFixes),
                maxForwardJumpSeconds: try c.decodeIfPresent(Double.self, forKey: .maxForwardJumpSeconds)
                    ?? defaults.maxForwardJumpSeconds)
        }
    }

    /// Why a fix was dropped.
    public enum Reason: String, Codable, Sendable, CaseIterable, CodingKeyRepresentable {
        /// The raw latitude or longitude was NaN, infinite or out of range.
        case invalidCoordinate
        /// The fix was at (0, 0), the placeholder of trackers without a position.
        case nullIsland
        /// The horizontal accuracy was worse than the limit.
        case inaccurate
        /// Reaching the fix from the last accepted one needs an impossible speed.
        case tooFast
        /// The fix repeats the last accepted fix exactly.
        case duplicate
        /// The fix is not newer than the last accepted fix.
        case notNewer
        /// The fix is dated after its own arrival (live only).
        case fromTheFuture
        /// The fix was already stale when it arrived (live only).
        case expired
        /// The fix is dated too far after the last accepted fix (history only).
        case tooFarAhead
    }

    /// The limits in force.
    public var configuration: Configuration
    /// How many fixes were dropped, by reason; reasons never seen are absent.
    public private(set) var dropped: [Reason: Int] = [:]
    /// How many fixes were accepted.
    public private(set) var accepted: Int = 0
    /// The last fix accepted, against which the next is judged.
    public var lastAccepted: Fix? {
        guard let last else { return nil }
        if let whole = lastWhole { return whole.fix }
        // Set field by field, as they were read: the initialiser would normalise them.
        var fix = Fix(timestamp: last.timestamp, coordinate: last.coordinate)
        fix.horizontalAccuracy = last.accuracy.double
        fix.deviceId = last.deviceId
        return fix
    }
    /// What the filter reads of the last accepted fix, and its device (which every fix of an input
    /// of many devices names), inline: a device's engine is stored inline in its pipeline's
    /// dictionary, and a whole fix is 176 bytes of mostly absent fields.
    private var last: LastFix?
    /// The last accepted fix whole, only when it has more than `last` holds.
    private var lastWhole: WholeFix?
    /// Consecutive fixes dropped as too fast that agree with each other: the evidence that the
    /// last accepted fix, not they, was wrong (see ``Configuration/reanchorAfterFixes``).
    private var jumpRun: [Fix] = []
    /// How many times the filter re-anchored on a run of fixes that disagreed with the last
    /// accepted one.
    public private(set) var reanchored: Int = 0

    private struct LastFix: Sendable {
        var timestamp: Date
        var coordinate: Coordinate
        var accuracy: CompactOptional
        var deviceId: String?
    }

    /// A whole fix out of line, changed in place while one filter holds it (a tracker that sends
    /// altitude and speed would otherwise cost an allocation a fix).
    private final class WholeFix: @unchecked Sendable {
        @exclusivity(unchecked) var fix: Fix
        init(_ fix: Fix) { self.fix = fix }
    }

    /// Makes a filter that has seen nothing yet.
    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// Keeps `fix` as the last accepted one: its read fields inline, and the fix whole too when it
    /// has any other. It takes the fix itself, not an optional: wrapping it would copy the whole
    /// fix, and unwrapping copy it again, on every accepted fix.
    private mutating func remember(_ fix: Fix) {
        last = LastFix(
            timestamp: fix.timestamp, coordinate: fix.coordinate,
            accuracy: CompactOptional(fix.horizontalAccuracy),
            deviceId: fix.deviceId)
        let plain =
            fix.altitude == nil && fix.verticalAccuracy == nil && fix.speed == nil && fix.course == nil
            && fix.floor == nil && fix.label == nil && fix.silentWithinMeters == nil && fix.trigger == nil
            && fix.regions == nil
        if plain {
            lastWhole = nil
        } else if isKnownUniquelyReferenced(&lastWhole), let whole = lastWhole {
            whole.fix = fix
        } else {
            lastWhole = WholeFix(fix)
        }
    }

    private enum CodingKeys: String, CodingKey {
        case configuration, dropped, accepted, lastAccepted, jumpRun, reanchored
    }

    /// Decodes a filter saved by any version (the keys are those of its first form).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        configuration = try c.decode(Configuration.self, forKey: .configuration)
        dropped = try c.decode([Reason: Int].self, forKey: .dropped)
        accepted = try c.decode(Int.self, forKey: .accepted)
        jumpRun = try c.decode([Fix].self, forKey: .jumpRun)
        reanchored = try c.decode(Int.self, forKey: .reanchored)
        if let last = try c.decodeIfPresent(Fix.self, forKey: .lastAccepted) { remember(last) }
    }

    /// Encodes the filter with the keys, and in the order, it always had.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(configuration, forKey: .configuration)
        try c.encode(dropped, forKey: .dropped)
        try c.encode(accepted, forKey: .accepted)
        try c.encodeIfPresent(lastAccepted, forKey: .lastAccepted)
        try c.encode(jumpRun, forKey: .jumpRun)
        try c.encode(reanchored, forKey: .reanchored)
    }

    /// The number of fixes dropped for all reasons together.
    public var droppedTotal: Int { dropped.values.reduce(0, +) }

    /// Judges a fix, remembering it if accepted; returns `nil` when it is accepted, else why not.
    ///
    /// `arrivedAt` is the wall-clock time the fix reached this program, for live input; pass `nil`
    /// when replaying history, where the arrival time is the fix's own time and the expiry and
    /// future rules do not apply. This is the only place the wall clock enters the engine.
    public mutating func evaluate(_ fix: Fix, arrivedAt: Date?) -> Reason? {
        if let reason = firstBrokenRule(fix, arrivedAt: arrivedAt) {
            if reason == .tooFast || reason == .tooFarAhead {
                if let previous = jumpRun.last,
                    FixFilter.plausible(
                        from: previous.timestamp, previous.coordinate, accuracy: previous.horizontalAccuracy,
                        to: fix,
                        configuration)
                {
                    jumpRun.append(fix)
                } else {
                    jumpRun = [fix]
                }
                if jumpRun.count >= configuration.reanchorAfterFixes {
                    jumpRun.removeAll()
                    reanchored += 1
                    accepted += 1
                    remember(fix)
                    return nil
                }
            }
            dropped[reason, default: 0] += 1
            return reason
        }
        // An empty run is left alone: emptying it would release and replace its storage every fix.
        if !jumpRun.isEmpty { jumpRun.removeAll() }
        accepted += 1
        remember(fix)
        return nil
    }

    /// Whether `fix` can be reached from `last` within the speed limit (accuracies allowed for).
    private static func plausible(
        from lastTimestamp: Date, _ lastCoordinate: Coordinate, accuracy lastAccuracy: Double?, to fix: Fix,
        _ c: Configuration
    ) -> Bool {
        let seconds = fix.timestamp.timeIntervalSince(lastTimestamp)
        guard seconds > 0 else { return false }
        let slack = (fix.horizontalAccuracy ?? 0) + (lastAccuracy ?? 0)
        // Most fixes are plainly plausible, and the exact distance needs trigonometry. No radius of
        // curvature of the ellipsoid exceeds a/sqrt(1-e²) (6,399,594 m), so no path, and no
        // distance this program computes, is longer than that times |Δφ| + |Δλ| (a walk along the
        // meridian, then along a parallel); 6.41e6 and the 0.999 leave room for rounding.
        if c.maxSpeedMetersPerSecond >= 0 {
            let reach =
                6.41e6
                * (abs(radians(fix.coordinate.latitude - lastCoordinate.latitude))
                    + abs(wrappedLongitudeDelta(lastCoordinate.longitude, fix.coordinate.longitude)))
            if reach - slack <= 0.999 * c.maxSpeedMetersPerSecond * seconds { return true }
        }
        let meters = max(0, lastCoordinate.distance(to: fix.coordinate) - slack)
        return meters / seconds <= c.maxSpeedMetersPerSecond
    }

    /// Validates a raw latitude and longitude read from input; returns the coordinate, or `nil`
    /// after counting a drop as ``Reason/invalidCoordinate``.
    ///
    /// A ``Coordinate`` cannot hold NaN or out-of-range values, so such a fix never becomes a
    /// ``Fix``. Inputs call this where they parse numbers, so the drop is still counted and can be
    /// logged beside the others.
    public mutating func coordinate(latitude: Double, longitude: Double) -> Coordinate? {
        do {
            return try Coordinate(latitude: latitude, longitude: longitude)
        } catch {
            dropped[.invalidCoordinate, default: 0] += 1
            return nil
        }
    }

    /// The first rule the fix breaks, without changing any state.
    public func reason(for fix: Fix, arrivedAt: Date?) -> Reason? {
        var filter = self
        return filter.firstBrokenRule(fix, arrivedAt: arrivedAt)
    }

    /// ``reason(for:arrivedAt:)``, asked of the filter where it is stored. Mutating though it
    /// changes nothing: `evaluate`, itself mutating, copied the whole filter (144 bytes) to lend
    /// it to a non-mutating method, for every fix; with many devices that copy was also where the
    /// filter's memory first missed the cache.
    private mutating func firstBrokenRule(_ fix: Fix, arrivedAt: Date?) -> Reason? {
        let c = configuration
        if abs(fix.coordinate.latitude) <= c.nullIslandToleranceDegrees
            && abs(fix.coordinate.longitude) <= c.nullIslandToleranceDegrees
        {
            return .nullIsland
        }
        if let accuracy = fix.horizontalAccuracy, accuracy > c.maxAccuracyMeters { return .inaccurate }
        if let arrivedAt {
            let age = arrivedAt.timeIntervalSince(fix.timestamp)
            if age < -c.futureToleranceSeconds { return .fromTheFuture }
            if age > c.expirationSeconds { return .expired }
        }
        guard let last else { return nil }
        // Equal fixes have equal times: comparing every field is needed only then.
        if fix.timestamp == last.timestamp, fix == lastAccepted { return .duplicate }
        if fix.timestamp <= last.timestamp { return .notNewer }
        if arrivedAt == nil, fix.timestamp.timeIntervalSince(last.timestamp) > c.maxForwardJumpSeconds {
            return .tooFarAhead
        }
        if !FixFilter.plausible(
            from: last.timestamp, last.coordinate, accuracy: last.accuracy.double, to: fix, c)
        {
            return .tooFast
        }
        return nil
    }
}
