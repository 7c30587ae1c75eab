/// A point on the WGS84 ellipsoid, in degrees.
///
/// A `Coordinate` is always valid: the throwing initialiser and the decoder refuse NaN, infinities
/// and values out of range, so code that holds one never has to check again.
public struct Coordinate: Hashable, Sendable {
    /// Latitude in degrees, -90 through 90, positive north.
    public let latitude: Double
    /// Longitude in degrees, -180 through 180, positive east.
    public let longitude: Double

    /// Makes a coordinate, refusing values that are not a place on Earth.
    public init(latitude: Double, longitude: Double) throws(CoordinateError) {
        guard latitude.isFinite else { throw .notFinite(field: "latitude", value: latitude) }
        guard longitude.isFinite else { throw .notFinite(field: "longitude", value: longitude) }
        guard (-90...90).contains(latitude) else {
            throw .outOfRange(field: "latitude", value: latitude, range: -90...90)
        }
        guard (-180...180).contains(longitude) else {
            throw .outOfRange(field: "longitude", value: longitude, range: -180...180)
        }
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Makes a coordinate from values already known to be valid (constants, values computed from
    /// valid coordinates). Out-of-range input is clamped and wrapped rather than trapping.
    package init(uncheckedLatitude latitude: Double, longitude: Double) {
        self.latitude = min(90, max(-90, latitude))
        var lon = longitude.truncatingRemainder(dividingBy: 360)
        if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        self.longitude = lon
    }
}

/// Why a pair of numbers is not a coordinate.
public enum CoordinateError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The value is NaN or infinite.
    case notFinite(field: String, value: Double)
    /// The value is outside the range the field allows.
    case outOfRange(field: String, value: Double, range: ClosedRange<Double>)

    /// A readable form, for logs and messages.
    public var description: String {
        switch self {
        case .notFinite(let field, let value):
            return "\(field) must be a finite number, not \(value)"
        case .outOfRange(let field, let value, let range):
            return "\(field) \(value) is outside \(range.lowerBound)...\(range.upperBound)"
        }
    }
}

extension Coordinate: Codable {
    private enum CodingKeys: String, CodingKey { case latitude, longitude }

    /// Decodes and checks a value written by `encode(to:)`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let latitude = try container.decode(Double.self, forKey: .latitude)
        let longitude = try container.decode(Double.self, forKey: .longitude)
        do {
            try self.init(latitude: latitude, longitude: longitude)
        } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    /// Encodes the value in the form `init(from:)` reads.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(latitude, forKey: .latitude)
        try container.encode(longitude, forKey: .longitude)
    }
}

extension Coordinate: CustomStringConvertible {
    /// A readable form, for logs and messages.
    public var description: String {
        // Six decimals is 11 cm: finer digits are noise from arithmetic, not position.
        func short(_ value: Double) -> Double { (value * 1e6).rounded() / 1e6 }
        return "(\(short(latitude)), \(short(longitude)))"
    }
}
