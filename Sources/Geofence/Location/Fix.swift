public import Foundation

/// One position report from a tracker: the fields of a Core Location fix and of an AWARE
/// location record.
///
/// Only the time and the coordinate are always known. Everything else is optional because real
/// trackers leave it out: OwnTracks may send no accuracy, GPX has no speed, CSV exports vary.
public struct Fix: Hashable, Sendable, Codable {
    /// When the position was measured (not when it arrived).
    public var timestamp: Date
    /// Where the device was.
    public var coordinate: Coordinate
    /// Radius of the 68% confidence circle in metres, if the tracker sent one.
    public var horizontalAccuracy: Double?
    /// Altitude above the WGS84 ellipsoid or sea level, as the tracker reports it, in metres.
    public var altitude: Double?
    /// Altitude uncertainty in metres.
    public var verticalAccuracy: Double?
    /// Ground speed in metres per second.
    public var speed: Double?
    /// Direction of travel in degrees clockwise from true north.
    public var course: Double?
    /// Building floor, where known.
    public var floor: Int?
    /// Which device sent the fix, for inputs that carry several.
    public var deviceId: String?
    /// A free-form label from the tracker (OwnTracks `tid`, a logger's tag).
    public var label: String?
    /// How far the device can move from here without the tracker sending another fix, in metres;
    /// `nil` when the tracker's silence promises nothing (a timer, most loggers).
    ///
    /// A distance-triggered tracker reports once the device has moved this far, so its silence is
    /// evidence that the device stayed within it: OwnTracks on iOS in move mode (`m: 2`) reports
    /// every 100 m, in significant-changes mode (`m: 1`) after 500 m.
    public var silentWithinMeters: Double?
    /// Why the tracker sent this fix, when it says; `nil` when it does not.
    public var trigger: Trigger?
    /// The tracker's own regions it says the device is in (OwnTracks `inregions`, by name); `nil`
    /// when it does not say. A condition named here takes the fix as evidence of inside whatever
    /// its position; one not named learns nothing from the list (the tracker may not watch it).
    public var regions: [String]?

    /// Why a tracker sent a fix, as OwnTracks' `t` says it.
    public enum Trigger: String, Codable, Sendable, Hashable {
        /// The tracker judged the device to be staying here (OwnTracks `t: "v"`, an iOS visit):
        /// strong evidence, confirming on its own.
        case stay
        /// The tracker crossed one of its own regions (OwnTracks `t: "c"` or `"b"`).
        case region
        /// A timer or a ping (OwnTracks `t: "t"` or `"p"`).
        case timer
        /// The user or a remote request asked for it (OwnTracks `t: "u"` or `"r"`).
        case request
    }

    /// Makes a fix. Negative accuracies (Core Location's "invalid") become `nil`.
    public init(
        timestamp: Date, coordinate: Coordinate, horizontalAccuracy: Double? = nil,
        altitude: Double? = nil, verticalAccuracy: Double? = nil, speed: Double? = nil,
        course: Double? = nil, floor: Int? = nil, deviceId: String? = nil, label: String? = nil,
        silentWithinMeters: Double? = nil, trigger: Trigger? = nil, regions: [String]? = nil
    ) {
        self.timestamp = timestamp
        self.coordinate = coordinate
        self.horizontalAccuracy = Fix.known(horizontalAccuracy)
        self.altitude = altitude.flatMap { $0.isFinite ? $0 : nil }
        self.verticalAccuracy = Fix.known(verticalAccuracy)
        self.speed = Fix.known(speed)
        self.course = Fix.known(course)
        self.floor = floor
        self.deviceId = deviceId
        self.label = label
        self.silentWithinMeters = Fix.known(silentWithinMeters)
        self.trigger = trigger
        self.regions = regions
    }

    /// Core Location marks unknown accuracies, speeds and courses with negative numbers.
    private static func known(_ value: Double?) -> Double? {
        guard let value, value.isFinite, value >= 0 else { return nil }
        return value
    }
}
