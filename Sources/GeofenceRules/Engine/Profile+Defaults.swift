public import Geofence

extension Profile {
    /// The hysteresis this profile starts from, before the rules file's own settings.
    ///
    /// | profile | confirm | fixes | margins | max gap | why |
    /// |---|---|---|---|---|---|
    /// | default | 30 s | 3 | 10 m | 1 h | a phone through an ordinary day, dense or sparse (the monitor's defaults) |
    /// | automotiveNavigation | 10 s | 2 | 10 m | 5 min | a car crosses a fence in seconds; confirm quickly |
    /// | otherNavigation | 20 s | 2 | 10 m | 1 h | trains and boats: fast, but fixes drop out more |
    /// | fitness | 30 s | 3 | 5 m | 1 h | walking and cycling: slow, close to the boundary |
    /// | airborne | 10 s | 2 | 50 m | 15 min | fast and far; only large places make sense |
    ///
    /// Every profile keeps the monitor's span rule (two evidence fixes 3 minutes apart confirm),
    /// so sparse trackers need no profile of their own.
    public var hysteresis: Hysteresis {
        var base = Hysteresis.default
        switch self {
        case .default:
            break
        case .automotiveNavigation:
            base.confirmationSeconds = 10
            base.confirmationFixes = 2
            base.maxGapSeconds = 300
        case .otherNavigation:
            base.confirmationSeconds = 20
            base.confirmationFixes = 2
        case .fitness:
            base.enterMarginMeters = 5
            base.exitMarginMeters = 5
        case .airborne:
            base.confirmationSeconds = 10
            base.confirmationFixes = 2
            base.enterMarginMeters = 50
            base.exitMarginMeters = 50
            base.maxGapSeconds = 900
        }
        return base
    }

    /// The fastest plausible speed in km/h: fixes implying more are dropped as jumps.
    ///
    /// default and automotiveNavigation 250 (faster than any car on a public road),
    /// otherNavigation 350 (high-speed trains), fitness 60 (a fast descent on a bicycle),
    /// airborne 1000 (an airliner).
    public var maxSpeedKilometresPerHour: Double {
        switch self {
        case .default, .automotiveNavigation: 250
        case .otherNavigation: 350
        case .fitness: 60
        case .airborne: 1000
        }
    }
}

extension HysteresisSettings {
    /// `base` with these overrides applied.
    public func applied(to base: Hysteresis) -> Hysteresis {
        var result = base
        if let enterMarginMeters { result.enterMarginMeters = enterMarginMeters }
        if let exitMarginMeters { result.exitMarginMeters = exitMarginMeters }
        if let accuracyWeight { result.accuracyWeight = accuracyWeight }
        if let confirmationSeconds { result.confirmationSeconds = confirmationSeconds }
        if let confirmationFixes { result.confirmationFixes = confirmationFixes }
        if let confirmationSpanSeconds { result.confirmationSpanSeconds = confirmationSpanSeconds }
        if let silenceConfirmationSeconds { result.silenceConfirmationSeconds = silenceConfirmationSeconds }
        if let maxGapSeconds { result.maxGapSeconds = maxGapSeconds }
        return result
    }
}

extension RulesFile {
    /// The hysteresis of a place: the profile's, then the file's settings, then the place's own.
    public func hysteresis(for place: Place) -> Hysteresis {
        place.hysteresis.applied(to: hysteresis.applied(to: profile.hysteresis))
    }

    /// The fix filter's configuration: the defaults, the profile's speed limit, the file's settings.
    public var filterConfiguration: FixFilter.Configuration {
        var configuration = FixFilter.Configuration()
        configuration.maxSpeedMetersPerSecond =
            (filter.maxSpeedKilometresPerHour ?? profile.maxSpeedKilometresPerHour) / 3.6
        if let maxAccuracy = filter.maxAccuracyMeters { configuration.maxAccuracyMeters = maxAccuracy }
        if let expiration = filter.expirationSeconds { configuration.expirationSeconds = expiration }
        return configuration
    }

    /// The visit detector's configuration, if the file asks for visits.
    public var visitConfiguration: VisitDetector.Configuration? {
        guard let visits else { return nil }
        var configuration = VisitDetector.Configuration()
        if let radius = visits.radiusMeters { configuration.radiusMeters = radius }
        if let minimum = visits.minimumStaySeconds { configuration.minimumStaySeconds = minimum }
        if let strays = visits.maxStrays { configuration.maxStrays = strays }
        if let gap = visits.maxGapSeconds { configuration.maxGapSeconds = gap }
        return configuration
    }

    /// The visit detector each device runs: the file's `visits:` when it has them, otherwise the
    /// defaults when a commute must see the stops on its way; `nil` when nothing needs stays.
    /// Visits are reported (and visit rules fire) only with `visits:` (or a visit rule).
    public var stayDetectorConfiguration: VisitDetector.Configuration? {
        if let visitConfiguration { return visitConfiguration }
        let hasCommutes = rules.contains { if case .commute = $0.trigger { true } else { false } }
        return hasCommutes ? VisitDetector.Configuration() : nil
    }
}
