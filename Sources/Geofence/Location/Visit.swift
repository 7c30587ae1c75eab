public import Foundation

/// A stay at one place, as Core Location reports a CLVisit: either end may be unknown.
///
/// A visit is reported twice: once when it starts (arrival known, departure `nil`) and again
/// when it ends (both known). `nil` is the only representation of "unknown" here; the sentinels
/// Core Location uses (`Date.distantPast`, `Date.distantFuture`) are converted where a raw visit
/// is read, by ``init(coordinate:horizontalAccuracy:rawArrival:rawDeparture:)``.
public struct Visit: Hashable, Sendable, Codable {
    /// The centre of the stay.
    public var coordinate: Coordinate
    /// Radius of the stay's uncertainty circle in metres.
    public var horizontalAccuracy: Double
    /// When the stay began; `nil` if it began before tracking did.
    public var arrival: Date?
    /// When the stay ended; `nil` while it goes on.
    public var departure: Date?

    /// Makes a visit from values already in this library's terms.
    public init(coordinate: Coordinate, horizontalAccuracy: Double, arrival: Date?, departure: Date?) {
        self.coordinate = coordinate
        self.horizontalAccuracy = horizontalAccuracy
        self.arrival = arrival
        self.departure = departure
    }

    /// Makes a visit from Core Location's raw values: `Date.distantPast` as arrival means the
    /// arrival is unknown, `Date.distantFuture` as departure means the visit is still going on.
    public init(coordinate: Coordinate, horizontalAccuracy: Double, rawArrival: Date, rawDeparture: Date) {
        self.init(
            coordinate: coordinate,
            horizontalAccuracy: horizontalAccuracy,
            arrival: rawArrival <= Visit.unknownArrivalBound ? nil : rawArrival,
            departure: rawDeparture >= Visit.ongoingDepartureBound ? nil : rawDeparture)
    }

    /// Any date this early stands for "unknown": `distantPast` and dates near it.
    private static let unknownArrivalBound = Date.distantPast.addingTimeInterval(86_400 * 365)
    /// Any date this late stands for "still going on": `distantFuture` and dates near it.
    private static let ongoingDepartureBound = Date.distantFuture.addingTimeInterval(-86_400 * 365)

    /// How long the stay lasted, or `nil` unless both ends are known.
    public var duration: TimeInterval? {
        guard let arrival, let departure else { return nil }
        return departure.timeIntervalSince(arrival)
    }

    /// Whether the stay is still going on.
    public var isOngoing: Bool { departure == nil }
}
