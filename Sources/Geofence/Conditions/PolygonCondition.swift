import Foundation

/// A polygon or multipolygon on the ground, holes allowed, tested through GEOS.
///
/// The shape is projected once, when the condition is made, into a local metric plane around it
/// (an azimuthal equidistant projection through Earth-centred coordinates, so the ±180° meridian
/// and the poles need no special care), validated and prepared. Each fix is projected into the
/// same plane, and GEOS answers containment and the distance to the boundary in metres.
///
/// Edges are straight lines in that plane: for places up to tens of kilometres across, this is
/// indistinguishable from geodesic edges. A polygon crossing the ±180° meridian is written with
/// its longitudes as they are (179.9 then -179.9); its edges take the short way across.
public struct PolygonCondition: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The polygons as given: each is a list of rings, the first the outer ring, the rest holes;
    /// each ring is closed (its last vertex repeats the first).
    public let polygons: [[[Coordinate]]]
    /// The local plane the polygon is projected into; the monitor bounds distances in it too.
    let frame: LocalFrame
    /// GEOS's form: it validated the shape and answers the rare points within rounding of an edge.
    private let shape: GEOSPolygon
    /// The same rings for the common case, measured without a call into GEOS.
    private let planar: PlanarPolygon

    /// Makes a condition from rings of coordinates.
    public init(polygons: [[[Coordinate]]]) throws(PolygonError) {
        guard !polygons.isEmpty else { throw .empty }
        let frame = LocalFrame(origin: PolygonCondition.center(of: polygons))
        let projected = polygons.map { rings in rings.map { ring in ring.map(frame.project) } }
        self.shape = try GEOSPolygon(polygons: projected) { point in
            let coordinate = frame.unproject(point)
            return String(format: "latitude %.6f, longitude %.6f", coordinate.latitude, coordinate.longitude)
        }
        self.planar = PlanarPolygon(polygons: projected)
        self.polygons = polygons
        self.frame = frame
    }

    /// Makes a condition from well-known text: a `POLYGON` or `MULTIPOLYGON` in longitude,
    /// latitude order. Longitudes just past ±180 in a ring that crosses the antimeridian are
    /// wrapped (see ``reading(wkt:axisOrder:near:)``, which also says so).
    public init(wkt: String) throws(PolygonError) {
        self = try PolygonCondition.reading(wkt: wkt, axisOrder: .longitudeFirst).condition
    }

    /// Makes a condition from GeoJSON text: a Polygon, a MultiPolygon, a Feature holding one, or a
    /// FeatureCollection of such features (taken together).
    public init(geoJSON: String) throws(PolygonError) {
        self = try PolygonCondition.reading(geoJSON: geoJSON).condition
    }

    /// Distance in metres from the coordinate to the nearest edge, negative inside.
    ///
    /// A point within a micrometre of an edge counts as on the boundary, and so inside: that is
    /// below the rounding of the projection, and without it a point given exactly on an edge could
    /// land either side of it.
    public func signedDistance(to coordinate: Coordinate) -> Double {
        let point = frame.project(coordinate)
        let distance = planar.signedDistance(x: point.x, y: point.y) ?? shape.signedDistance(x: point.x, y: point.y)
        return distance > 0 && distance < PolygonCondition.boundaryToleranceMeters ? 0 : distance
    }

    /// The signed distance as GEOS alone computes it, which ``signedDistance(to:)`` must equal.
    func geosSignedDistance(to coordinate: Coordinate) -> Double {
        let point = frame.project(coordinate)
        let distance = shape.signedDistance(x: point.x, y: point.y)
        return distance > 0 && distance < PolygonCondition.boundaryToleranceMeters ? 0 : distance
    }

    /// The signed distance from a point of the local plane, by the Swift path alone, or `nil` where
    /// it defers to GEOS: for tests that compare the two.
    func planarSignedDistance(x: Double, y: Double) -> Double? { planar.signedDistance(x: x, y: y) }

    /// The signed distance from a point of the local plane by GEOS alone.
    func geosSignedDistance(x: Double, y: Double) -> Double { shape.signedDistance(x: x, y: y) }

    /// Points closer than this to an edge are on the boundary.
    static let boundaryToleranceMeters = 1e-6

    /// Number of vertices over all rings, counting each ring's closing vertex once.
    public var vertexCount: Int { polygons.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count - 1 } } }

    /// A readable form, for logs and messages.
    public var description: String {
        let holes = polygons.reduce(0) { $0 + $1.count - 1 }
        let parts = polygons.count == 1 ? "polygon" : "multipolygon of \(polygons.count) parts"
        return "\(parts), \(vertexCount) vertices, \(holes) holes, around \(frame.origin)"
    }

    /// Whether two values are the same.
    public static func == (lhs: PolygonCondition, rhs: PolygonCondition) -> Bool {
        lhs.polygons == rhs.polygons
    }
    /// Hashes what equality compares.
    public func hash(into hasher: inout Hasher) { hasher.combine(polygons) }

    private enum CodingKeys: String, CodingKey { case polygons }

    /// Decodes and checks a value written by `encode(to:)`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let polygons = try container.decode([[[Coordinate]]].self, forKey: .polygons)
        do {
            try self.init(polygons: polygons)
        } catch {
            throw DecodingError.dataCorruptedError(
                forKey: .polygons, in: container, debugDescription: error.description)
        }
    }

    /// Encodes the value in the form `init(from:)` reads.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(polygons, forKey: .polygons)
    }

    /// The direction of the mean of the outer rings' vertices, as a coordinate: the centre of the
    /// projection. Averaging Earth-centred unit vectors rather than degrees keeps it right across
    /// the ±180° meridian and around a pole.
    private static func center(of polygons: [[[Coordinate]]]) -> Coordinate {
        var x = 0.0, y = 0.0, z = 0.0
        for ring in polygons.compactMap(\.first) {
            for point in ring.dropLast() {
                let phi = radians(point.latitude), lambda = radians(point.longitude)
                x += cos(phi) * cos(lambda)
                y += cos(phi) * sin(lambda)
                z += sin(phi)
            }
        }
        let horizontal = (x * x + y * y).squareRoot()
        guard horizontal > 0 || z != 0 else {
            return polygons.first?.first?.first ?? Coordinate(uncheckedLatitude: 0, longitude: 0)
        }
        return Coordinate(uncheckedLatitude: degrees(atan2(z, horizontal)), longitude: degrees(atan2(y, x)))
    }
}

/// Reads polygons out of parsed GeoJSON, naming the path of anything malformed.
enum GeoJSONPolygonReader {
    static func polygons(in value: JSONValue, path: String, wrapped: inout Int) throws(PolygonError)
        -> [[[Coordinate]]]
    {
        guard let object = value.object else {
            throw .malformedGeoJSON(path: path, "expected an object, found \(value.kindName)")
        }
        guard let type = object["type"]?.string else {
            throw .malformedGeoJSON(path: path, "missing \"type\"")
        }
        func child(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
        switch type {
        case "Feature":
            guard let geometry = object["geometry"], geometry != .null else {
                throw .malformedGeoJSON(path: path, "Feature has no geometry")
            }
            return try polygons(in: geometry, path: child("geometry"), wrapped: &wrapped)
        case "FeatureCollection":
            guard let features = object["features"]?.array, !features.isEmpty else {
                throw .malformedGeoJSON(path: path, "FeatureCollection has no features")
            }
            var all: [[[Coordinate]]] = []
            for (index, feature) in features.enumerated() {
                all += try polygons(in: feature, path: child("features[\(index)]"), wrapped: &wrapped)
            }
            return all
        case "Polygon":
            return [try rings(object["coordinates"], path: child("coordinates"), wrapped: &wrapped)]
        case "MultiPolygon":
            guard let parts = object["coordinates"]?.array, !parts.isEmpty else {
                throw .malformedGeoJSON(path: path, "MultiPolygon needs a non-empty \"coordinates\" array")
            }
            var all: [[[Coordinate]]] = []
            for (index, part) in parts.enumerated() {
                all.append(try rings(part, path: child("coordinates[\(index)]"), wrapped: &wrapped))
            }
            return all
        default:
            throw .malformedGeoJSON(
                path: path, "expected Polygon, MultiPolygon, Feature or FeatureCollection, found \(type)")
        }
    }

    private static func rings(_ value: JSONValue?, path: String, wrapped: inout Int) throws(PolygonError)
        -> [[Coordinate]]
    {
        guard let rings = value?.array, !rings.isEmpty else {
            throw .malformedGeoJSON(path: path, "expected a non-empty array of rings")
        }
        var result: [[Coordinate]] = []
        for (r, ring) in rings.enumerated() {
            guard let positions = ring.array else {
                throw .malformedGeoJSON(
                    path: "\(path)[\(r)]", "expected an array of positions, found \(ring.kindName)")
            }
            var ringPoints: [(x: Double, y: Double)] = []
            for (v, position) in positions.enumerated() {
                let at = "\(path)[\(r)][\(v)]"
                guard let numbers = position.array, numbers.count >= 2,
                    let longitude = numbers[0].number, let latitude = numbers[1].number
                else { throw .malformedGeoJSON(path: at, "expected [longitude, latitude]") }
                ringPoints.append((longitude, latitude))
            }
            let points = try PolygonVertices.coordinates(ringPoints, wrapped: &wrapped) { v, detail in
                .malformedGeoJSON(path: "\(path)[\(r)][\(v)]", detail)
            }
            result.append(points)
        }
        return result
    }
}
