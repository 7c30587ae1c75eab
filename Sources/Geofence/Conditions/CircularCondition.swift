/// A circle on the ground: every point within `radiusMeters` (geodesic) of `center`.
public struct CircularCondition: Hashable, Sendable, Codable {
    /// The centre of the circle.
    public let center: Coordinate
    /// The radius in metres, positive.
    public let radiusMeters: Double

    /// Makes a circle; the radius must be a positive, finite number of metres.
    public init(center: Coordinate, radiusMeters: Double) throws(ConditionError) {
        guard radiusMeters.isFinite, radiusMeters > 0 else { throw .badRadius(radiusMeters) }
        self.center = center
        self.radiusMeters = radiusMeters
    }

    /// Geodesic distance in metres from the coordinate to the circle's edge, negative inside.
    @inlinable
    public func signedDistance(to coordinate: Coordinate) -> Double {
        center.distance(to: coordinate) - radiusMeters
    }

    private enum CodingKeys: String, CodingKey { case center, radiusMeters }

    /// Decodes and checks a value written by `encode(to:)`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let center = try container.decode(Coordinate.self, forKey: .center)
        let radius = try container.decode(Double.self, forKey: .radiusMeters)
        do {
            try self.init(center: center, radiusMeters: radius)
        } catch {
            throw DecodingError.dataCorruptedError(
                forKey: .radiusMeters, in: container, debugDescription: error.description)
        }
    }
}

/// Why a condition cannot be made.
public enum ConditionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A circle's radius must be a positive, finite number of metres.
    case badRadius(Double)
    /// A polygon was refused.
    case polygon(PolygonError)

    /// A readable form, for logs and messages.
    public var description: String {
        switch self {
        case .badRadius(let radius): "radius must be a positive number of metres, not \(radius)"
        case .polygon(let error): error.description
        }
    }
}
