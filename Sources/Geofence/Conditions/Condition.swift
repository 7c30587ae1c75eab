/// A region the monitor watches: a circle or a polygon.
///
/// Every condition answers one question: the signed distance in metres from a point to its
/// boundary, negative inside. Every margin and every test in the monitor is written in terms of
/// that one number, so circles and polygons behave the same.
public enum Condition: Hashable, Sendable, Codable, CustomStringConvertible {
    /// A circle around a centre.
    case circle(CircularCondition)
    /// A polygon or multipolygon, holes allowed.
    case polygon(PolygonCondition)

    /// Distance in metres from the coordinate to the boundary, negative inside; zero is inside.
    public func signedDistance(to coordinate: Coordinate) -> Double {
        switch self {
        case .circle(let circle): circle.signedDistance(to: coordinate)
        case .polygon(let polygon): polygon.signedDistance(to: coordinate)
        }
    }

    /// Whether the coordinate is inside or on the boundary.
    public func contains(_ coordinate: Coordinate) -> Bool { signedDistance(to: coordinate) <= 0 }

    /// A readable form, for logs and messages.
    public var description: String {
        switch self {
        case .circle(let circle):
            "circle of \(circle.radiusMeters) m around \(circle.center)"
        case .polygon(let polygon):
            polygon.description
        }
    }
}
