public import Foundation

/// One position report from a tracker: the fields of a Core Location fix and of an AWARE
/// location record.
///
/// Only the time and the coordinate are always known. Everything else is optional because real
/// trackers leave it out: OwnTracks may send no accuracy, GPX has no speed, CSV exports vary.
public struct Fix: Hashable, Sendable, Codable {
    // What every fix of a logger has (time, position, accuracy, device) is kept inline; the rest,
    // which most fixes lack, in one shared box that is not there at all when all of it is absent.
    // A fix is moved between every stage of reading and deciding: 56 bytes are moved in a few
    // registers, where the 128 of every field inline went through `memcpy`, several times a fix.
    // No default values: the initialisers set each field once.

    /// When the position was measured (not when it arrived).
    public var timestamp: Date
    /// Where the device was.
    public var coordinate: Coordinate
    @usableFromInline var accuracyStorage: CompactOptional
    /// Which device sent the fix, for inputs that carry several.
    public var deviceId: String?
    /// The other fields, when any is present.
    @usableFromInline var extras: Extras?

    /// Radius of the 68% confidence circle in metres, if the tracker sent one.
    public var horizontalAccuracy: Double? {
        get { accuracyStorage.double }
        set { accuracyStorage = CompactOptional(newValue) }
    }
    /// Altitude above the WGS84 ellipsoid or sea level, as the tracker reports it, in metres.
    public var altitude: Double? {
        get { extras?.fields.altitude.double }
        set { changeExtras { $0.altitude = CompactOptional(newValue) } }
    }
    /// Altitude uncertainty in metres.
    public var verticalAccuracy: Double? {
        get { extras?.fields.verticalAccuracy.double }
        set { changeExtras { $0.verticalAccuracy = CompactOptional(newValue) } }
    }
    /// Ground speed in metres per second.
    public var speed: Double? {
        get { extras?.fields.speed.double }
        set { changeExtras { $0.speed = CompactOptional(newValue) } }
    }
    /// Direction of travel in degrees clockwise from true north.
    public var course: Double? {
        get { extras?.fields.course.double }
        set { changeExtras { $0.course = CompactOptional(newValue) } }
    }
    /// Building floor, where known.
    public var floor: Int? {
        get { extras?.fields.floor }
        set { changeExtras { $0.floor = newValue } }
    }
    /// A free-form label from the tracker (OwnTracks `tid`, a logger's tag).
    public var label: String? {
        get { extras?.fields.label }
        set { changeExtras { $0.label = newValue } }
    }
    /// How far the device can move from here without the tracker sending another fix, in metres;
    /// `nil` when the tracker's silence promises nothing (a timer, most loggers).
    ///
    /// A distance-triggered tracker reports once the device has moved this far, so its silence is
    /// evidence that the device stayed within it: OwnTracks on iOS in move mode (`m: 2`) reports
    /// every 100 m, in significant-changes mode (`m: 1`) after 500 m.
    public var silentWithinMeters: Double? {
        get { extras?.fields.silentWithinMeters.double }
        set { changeExtras { $0.silentWithinMeters = CompactOptional(newValue) } }
    }
    /// Why the tracker sent this fix, when it says; `nil` when it does not.
    public var trigger: Trigger? {
        get { extras?.fields.trigger }
        set { changeExtras { $0.trigger = newValue } }
    }
    /// The tracker's own regions it says the device is in (OwnTracks `inregions`, by name); `nil`
    /// when it does not say. A condition named here takes the fix as evidence of inside whatever
    /// its position; one not named learns nothing from the list (the tracker may not watch it).
    public var regions: [String]? {
        get { extras?.fields.regions }
        set { changeExtras { $0.regions = newValue } }
    }

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
    @inlinable
    public init(
        timestamp: Date, coordinate: Coordinate, horizontalAccuracy: Double? = nil,
        altitude: Double? = nil, verticalAccuracy: Double? = nil, speed: Double? = nil,
        course: Double? = nil, floor: Int? = nil, deviceId: String? = nil, label: String? = nil,
        silentWithinMeters: Double? = nil, trigger: Trigger? = nil, regions: [String]? = nil
    ) {
        self.timestamp = timestamp
        self.coordinate = coordinate
        self.accuracyStorage = CompactOptional(Fix.known(horizontalAccuracy))
        self.deviceId = deviceId
        // Inlinable, and the box made only when something goes in it, decided on the plain values
        // (a set of fields made first, to ask it, was copied and destroyed for every fix):
        // compiled in this module, the initialiser built the fix, copied it and destroyed the
        // original (a retain and a release of each of its references), for every fix decoded.
        let altitude = CompactOptional(altitude.flatMap { $0.isFinite ? $0 : nil })
        let verticalAccuracy = CompactOptional(Fix.known(verticalAccuracy))
        let speed = CompactOptional(Fix.known(speed))
        let course = CompactOptional(Fix.known(course))
        let silentWithinMeters = CompactOptional(Fix.known(silentWithinMeters))
        if altitude.isNone, verticalAccuracy.isNone, speed.isNone, course.isNone, silentWithinMeters.isNone,
            floor == nil, trigger == nil, label == nil, regions == nil
        {
            self.extras = nil
        } else {
            self.extras = Extras(
                Extras.Fields(
                    altitude: altitude, verticalAccuracy: verticalAccuracy, speed: speed, course: course,
                    silentWithinMeters: silentWithinMeters, floor: floor, trigger: trigger, label: label,
                    regions: regions))
        }
    }

    /// Core Location marks unknown accuracies, speeds and courses with negative numbers.
    @inlinable
    static func known(_ value: Double?) -> Double? {
        guard let value, value.isFinite, value >= 0 else { return nil }
        return value
    }

    /// Changes the fields kept out of line: the box is shared by copies of the fix, so a changed
    /// one is a new box (or none, when nothing is left in it).
    private mutating func changeExtras(_ change: (inout Extras.Fields) -> Void) {
        var fields = extras?.fields ?? Extras.Fields()
        change(&fields)
        extras = fields.isEmpty ? nil : Extras(fields)
    }

    /// The fields most fixes lack, in a box of their own that copies of a fix share; never changed
    /// once made.
    @usableFromInline
    final class Extras: Sendable, CustomStringConvertible {
        @usableFromInline
        struct Fields: Sendable {
            @usableFromInline var altitude = CompactOptional(nil as Double?)
            @usableFromInline var verticalAccuracy = CompactOptional(nil as Double?)
            @usableFromInline var speed = CompactOptional(nil as Double?)
            @usableFromInline var course = CompactOptional(nil as Double?)
            @usableFromInline var silentWithinMeters = CompactOptional(nil as Double?)
            @usableFromInline var floor: Int?
            @usableFromInline var trigger: Trigger?
            @usableFromInline var label: String?
            @usableFromInline var regions: [String]?

            @inlinable
            init(
                altitude: CompactOptional, verticalAccuracy: CompactOptional, speed: CompactOptional,
                course: CompactOptional, silentWithinMeters: CompactOptional, floor: Int?, trigger: Trigger?,
                label: String?, regions: [String]?
            ) {
                self.altitude = altitude
                self.verticalAccuracy = verticalAccuracy
                self.speed = speed
                self.course = course
                self.silentWithinMeters = silentWithinMeters
                self.floor = floor
                self.trigger = trigger
                self.label = label
                self.regions = regions
            }

            @inlinable
            init() {}

            /// Whether every field is absent.
            @inlinable
            var isEmpty: Bool {
                altitude.isNone && verticalAccuracy.isNone && speed.isNone && course.isNone
                    && silentWithinMeters.isNone && floor == nil && trigger == nil && label == nil
                    && regions == nil
            }
        }

        @usableFromInline let fields: Fields

        @inlinable
        init(_ fields: Fields) {
            self.fields = fields
        }

        /// The fields, as the fix's own description showed them when they were stored in it.
        @usableFromInline var description: String { String(describing: fields) }
    }

    // Equality, hashing and coding are those the compiler gave the fix when every field was
    // stored as it is declared: fields compared as values (so 0 and -0 are equal), and coded under
    // their names in declaration order, the absent ones left out.

    /// Whether two fixes are equal field by field.
    public static func == (a: Fix, b: Fix) -> Bool {
        a.timestamp == b.timestamp && a.coordinate == b.coordinate
            && a.horizontalAccuracy == b.horizontalAccuracy && a.altitude == b.altitude
            && a.verticalAccuracy == b.verticalAccuracy && a.speed == b.speed && a.course == b.course
            && a.floor == b.floor && a.deviceId == b.deviceId && a.label == b.label
            && a.silentWithinMeters == b.silentWithinMeters && a.trigger == b.trigger
            && a.regions == b.regions
    }

    /// Hashes every field.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(timestamp)
        hasher.combine(coordinate)
        hasher.combine(horizontalAccuracy)
        hasher.combine(altitude)
        hasher.combine(verticalAccuracy)
        hasher.combine(speed)
        hasher.combine(course)
        hasher.combine(floor)
        hasher.combine(deviceId)
        hasher.combine(label)
        hasher.combine(silentWithinMeters)
        hasher.combine(trigger)
        hasher.combine(regions)
    }

    private enum CodingKeys: String, CodingKey {
        case timestamp, coordinate, horizontalAccuracy, altitude, verticalAccuracy, speed, course, floor
        case deviceId, label, silentWithinMeters, trigger, regions
    }

    /// Decodes a fix under the keys the compiler's coding used.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        accuracyStorage = CompactOptional(nil as Double?)
        extras = nil
        timestamp = try c.decode(Date.self, forKey: .timestamp)
        coordinate = try c.decode(Coordinate.self, forKey: .coordinate)
        // Set as decoded, as the compiler's decoding did: the initialiser's clean-up is not applied.
        horizontalAccuracy = try c.decodeIfPresent(Double.self, forKey: .horizontalAccuracy)
        altitude = try c.decodeIfPresent(Double.self, forKey: .altitude)
        verticalAccuracy = try c.decodeIfPresent(Double.self, forKey: .verticalAccuracy)
        speed = try c.decodeIfPresent(Double.self, forKey: .speed)
        course = try c.decodeIfPresent(Double.self, forKey: .course)
        floor = try c.decodeIfPresent(Int.self, forKey: .floor)
        deviceId = try c.decodeIfPresent(String.self, forKey: .deviceId)
        label = try c.decodeIfPresent(String.self, forKey: .label)
        silentWithinMeters = try c.decodeIfPresent(Double.self, forKey: .silentWithinMeters)
        trigger = try c.decodeIfPresent(Trigger.self, forKey: .trigger)
        regions = try c.decodeIfPresent([String].self, forKey: .regions)
    }

    /// Encodes the fields in declaration order, absent ones left out.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(timestamp, forKey: .timestamp)
        try c.encode(coordinate, forKey: .coordinate)
        try c.encodeIfPresent(horizontalAccuracy, forKey: .horizontalAccuracy)
        try c.encodeIfPresent(altitude, forKey: .altitude)
        try c.encodeIfPresent(verticalAccuracy, forKey: .verticalAccuracy)
        try c.encodeIfPresent(speed, forKey: .speed)
        try c.encodeIfPresent(course, forKey: .course)
        try c.encodeIfPresent(floor, forKey: .floor)
        try c.encodeIfPresent(deviceId, forKey: .deviceId)
        try c.encodeIfPresent(label, forKey: .label)
        try c.encodeIfPresent(silentWithinMeters, forKey: .silentWithinMeters)
        try c.encodeIfPresent(trigger, forKey: .trigger)
        try c.encodeIfPresent(regions, forKey: .regions)
    }
}
