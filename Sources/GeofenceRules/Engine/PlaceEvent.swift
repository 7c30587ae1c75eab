public import Foundation
public import Geofence

/// A monitor event as the engine logs it: which device, which place, what changed and why.
public struct PlaceEvent: Sendable, Hashable, Codable {
    /// A stable identifier: the same event in every replay of the same data. It is made from the
    /// device, the place, the transition and the date when asked (see `StableID`) unless one was
    /// set: an event read back keeps the id it was written with.
    ///
    /// Made when asked, not kept: replay writes it straight into the event's line, and a fleet's
    /// first determinations made a text of it (an allocation, and its release) for every place.
    public var id: String {
        get { assignedID ?? stableID.text }
        set { assignedID = newValue }
    }
    /// The device.
    public var device: String
    /// The place (the condition's identifier).
    public var place: String
    /// The new state: satisfied, unsatisfied, unmonitored.
    public var state: ConditionState
    /// What the event means: ``Transition/enter``, ``Transition/exit``,
    /// ``Transition/determined`` (a first determination, not a crossing), ``Transition/dwell`` or
    /// ``Transition/conditionLimitExceeded``.
    public var transition: Transition
    /// The estimated time of the real crossing.
    public var date: Date
    /// When the change was confirmed.
    public var confirmedAt: Date
    /// The signed distance of the deciding fix or visit, metres, negative inside.
    public var distance: Double?
    /// The deciding position.
    public var latitude: Double?
    /// The deciding position.
    public var longitude: Double?
    /// The deciding position's accuracy.
    public var accuracy: Double?
    /// The id set (or decoded), which ``id`` gives instead of the one made from the event.
    private(set) var assignedID: String?

    init(_ event: borrowing Event, device: String) {
        self.init(event, transition: Transition(event), device: device)
    }

    /// ``init(_:device:)`` with the event's ``Transition`` already found.
    init(_ event: borrowing Event, transition: Transition, device: String) {
        self.device = device
        self.place = event.identifier
        self.state = event.state
        self.transition = transition
        self.date = event.date
        self.confirmedAt = event.confirmedAt
        self.distance = event.signedDistanceMeters.map { ($0 * 10).rounded() / 10 }
        let coordinate = event.evidenceCoordinate
        self.latitude = coordinate?.latitude
        self.longitude = coordinate?.longitude
        self.accuracy = event.evidenceAccuracy
    }

    /// The hash ``id`` is the text of when none was set.
    var stableID: StableID {
        var id = StableID()
        id.add(device)
        id.add(place)
        id.add(transition.rawValue)
        id.add(milliseconds: date)
        return id
    }

    private enum CodingKeys: String, CodingKey {
        case id, device, place, state, transition, date, confirmedAt, distance, latitude, longitude, accuracy
    }

    /// Reads an event as ``encode(to:)`` writes it, keeping its id as it was written.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        assignedID = try container.decode(String.self, forKey: .id)
        device = try container.decode(String.self, forKey: .device)
        place = try container.decode(String.self, forKey: .place)
        state = try container.decode(ConditionState.self, forKey: .state)
        transition = try container.decode(Transition.self, forKey: .transition)
        date = try container.decode(Date.self, forKey: .date)
        confirmedAt = try container.decode(Date.self, forKey: .confirmedAt)
        distance = try container.decodeIfPresent(Double.self, forKey: .distance)
        latitude = try container.decodeIfPresent(Double.self, forKey: .latitude)
        longitude = try container.decodeIfPresent(Double.self, forKey: .longitude)
        accuracy = try container.decodeIfPresent(Double.self, forKey: .accuracy)
    }

    /// Writes the event's members, its ``id`` among them (set or made).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(device, forKey: .device)
        try container.encode(place, forKey: .place)
        try container.encode(state, forKey: .state)
        try container.encode(transition, forKey: .transition)
        try container.encode(date, forKey: .date)
        try container.encode(confirmedAt, forKey: .confirmedAt)
        try container.encodeIfPresent(distance, forKey: .distance)
        try container.encodeIfPresent(latitude, forKey: .latitude)
        try container.encodeIfPresent(longitude, forKey: .longitude)
        try container.encodeIfPresent(accuracy, forKey: .accuracy)
    }

    /// Whether two events are the same, their ids compared as the texts they are (set or made):
    /// an event read back equals the one written.
    public static func == (a: PlaceEvent, b: PlaceEvent) -> Bool {
        a.device == b.device && a.place == b.place && a.state == b.state && a.transition == b.transition
            && a.date == b.date && a.confirmedAt == b.confirmedAt && a.distance == b.distance
            && a.latitude == b.latitude && a.longitude == b.longitude && a.accuracy == b.accuracy
            && a.id == b.id
    }

    /// Hashes what ``==(a:b:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(device)
        hasher.combine(place)
        hasher.combine(state)
        hasher.combine(transition)
        hasher.combine(date)
        hasher.combine(confirmedAt)
        hasher.combine(distance)
        hasher.combine(latitude)
        hasher.combine(longitude)
        hasher.combine(accuracy)
    }
}
