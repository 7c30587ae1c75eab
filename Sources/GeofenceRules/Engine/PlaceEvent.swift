public import Foundation
public import Geofence

/// A monitor event as the engine logs it: which device, which place, what changed and why.
public struct PlaceEvent: Sendable, Hashable, Codable {
    /// A stable identifier: the same event in every replay of the same data.
    public var id: String
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

    init(_ event: Event, device: String) {
        let transition = Transition(event)
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
        var id = StableID()
        id.add(device)
        id.add(event.identifier)
        id.add(transition.rawValue)
        id.add(milliseconds: event.date)
        self.id = id.text
    }
}
