public import Foundation
public import Geofence

/// An OwnTracks `_type: transition` message: the phone decided it entered or left one of its
/// own regions.
///
/// The engine makes its own decisions from fixes, so a transition never moves a condition; it is
/// read so that it can be logged and compared.
public struct OwnTracksTransition: Sendable, Hashable {
    /// When the transition happened (`tst`).
    public var timestamp: Date
    /// What happened, as OwnTracks spells it: `enter` or `leave`.
    public var event: String
    /// The region's name (`desc`), if sent.
    public var regionName: String?
    /// The creation time of the region (`wtst`), which OwnTracks uses as the region's key.
    public var regionTimestamp: Date?
    /// Where the device was (`lat`, `lon`), if sent.
    public var coordinate: Coordinate?
    /// Accuracy of that position in metres (`acc`), if sent and positive.
    public var horizontalAccuracy: Double?
    /// What triggered it (`t`): `c` a circular region, `b` a beacon, `l` a location update.
    public var trigger: String?
    /// Which device sent it: from `topic` (`owntracks/USER/DEVICE` gives `USER/DEVICE`), else the
    /// reader's default device, else `tid`.
    public var deviceId: String?
    /// The tracker id (`tid`).
    public var label: String?

    /// Makes a transition from values already in this library's terms.
    public init(
        timestamp: Date, event: String, regionName: String? = nil, regionTimestamp: Date? = nil,
        coordinate: Coordinate? = nil, horizontalAccuracy: Double? = nil, trigger: String? = nil,
        deviceId: String? = nil, label: String? = nil
    ) {
        self.timestamp = timestamp
        self.event = event
        self.regionName = regionName
        self.regionTimestamp = regionTimestamp
        self.coordinate = coordinate
        self.horizontalAccuracy = horizontalAccuracy
        self.trigger = trigger
        self.deviceId = deviceId
        self.label = label
    }
}
