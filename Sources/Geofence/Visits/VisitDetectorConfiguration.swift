extension VisitDetector {
    /// The parameters of stay-point detection: how far, how long, how many stray fixes and how long
    /// a silence a stay survives, and which fixes are too imprecise to judge.
    ///
    /// The defaults are those of the stay-point literature (Li et al. 2008 used 200 m and 20 min on
    /// GeoLife; trackintel ships the same) and suit a phone sampled every few seconds to every
    /// twenty minutes.
    public struct Configuration: Codable, Sendable, Hashable {
        /// D: how far, in metres, a fix may be from the stay and still count as being there.
        ///
        /// The distance is measured from the running centroid of the stay's fixes (for the second
        /// fix, from the first), a far better estimate of the place than one noisy fix at its edge.
        public var radiusMeters: Double = 200
        /// T: how long, in seconds, fixes must stay within ``radiusMeters`` to make a stay.
        public var minimumStaySeconds: Double = 1200
        /// How many consecutive fixes outside ``radiusMeters`` a stay tolerates when the next fix
        /// comes back inside.
        ///
        /// Such strays are wild fixes (a reflection, a bad Wi-Fi match); they neither move the
        /// centroid nor extend the stay. A run of strays also ends the stay as soon as it spans
        /// ``minimumStaySeconds``, because fixes that agree for that long could be a stay of their
        /// own somewhere else (a lunch 300 m from work sampled every 20 minutes is two such fixes).
        public var maxStrays: Int = 2
        /// The longest silence, in seconds, a stay survives when the fixes either side of it agree
        /// on the place; a longer one ends the stay at its last fix.
        ///
        /// Silence is not movement: a phone indoors loses its fixes for hours, and trackers that
        /// save battery (OwnTracks' significant mode, a distance filter) send nothing while the
        /// person is still, so a stay ends when a fix leaves it, not when the fixes pause. Twelve
        /// hours bridges a night at home; only a silence longer than that, or a fix away, ends a
        /// stay. The price: someone who leaves and comes back within the silence, leaving no fix
        /// elsewhere, shows as one stay. Use a short limit (30 minutes was the old default) to
        /// split stays at every gap.
        public var maxGapSeconds: Double = 43_200
        /// Fixes whose `horizontalAccuracy` is worse (larger) than this, in metres, are skipped.
        ///
        /// Such a fix cannot tell inside from outside a circle of ``radiusMeters``, so it neither
        /// starts, extends, moves nor ends a stay: a cell-tower fix with 500 m accuracy half a
        /// kilometre away does not end the stay at home. Fixes that carry no accuracy (GPX, most
        /// CSV) are taken as precise.
        public var accuracyLimitMeters: Double = 200

        /// Makes a configuration; every parameter has the documented default.
        public init(
            radiusMeters: Double = 200, minimumStaySeconds: Double = 1200, maxStrays: Int = 2,
            maxGapSeconds: Double = 43_200, accuracyLimitMeters: Double = 200
        ) {
            self.radiusMeters = radiusMeters
            self.minimumStaySeconds = minimumStaySeconds
            self.maxStrays = maxStrays
            self.maxGapSeconds = maxGapSeconds
            self.accuracyLimitMeters = accuracyLimitMeters
        }

        private enum CodingKeys: String, CodingKey {
            case radiusMeters, minimumStaySeconds, maxStrays, maxGapSeconds, accuracyLimitMeters
        }

        /// Reads a configuration; a missing field takes its default, so a saved detector keeps
        /// decoding after a parameter is added.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let defaults = Configuration()
            radiusMeters = try c.decodeIfPresent(Double.self, forKey: .radiusMeters) ?? defaults.radiusMeters
            minimumStaySeconds =
                try c.decodeIfPresent(Double.self, forKey: .minimumStaySeconds) ?? defaults.minimumStaySeconds
            maxStrays = try c.decodeIfPresent(Int.self, forKey: .maxStrays) ?? defaults.maxStrays
            maxGapSeconds =
                try c.decodeIfPresent(Double.self, forKey: .maxGapSeconds) ?? defaults.maxGapSeconds
            accuracyLimitMeters =
                try c.decodeIfPresent(Double.self, forKey: .accuracyLimitMeters)
                ?? defaults.accuracyLimitMeters
        }

        /// The same configuration with every value made usable: NaN takes the default and
        /// negative values become zero, so that no input can make the detector misbehave.
        var sanitized: Configuration {
            let defaults = Configuration()
            func clean(_ value: Double, _ fallback: Double) -> Double {
                value.isNaN ? fallback : Swift.max(0, value)
            }
            return Configuration(
                radiusMeters: clean(radiusMeters, defaults.radiusMeters),
                minimumStaySeconds: clean(minimumStaySeconds, defaults.minimumStaySeconds),
                maxStrays: Swift.max(0, maxStrays),
                maxGapSeconds: clean(maxGapSeconds, defaults.maxGapSeconds),
                accuracyLimitMeters: clean(accuracyLimitMeters, defaults.accuracyLimitMeters))
        }
    }
}
