import Foundation

/// A point in a ``LocalFrame``, in metres east and north of the frame's origin.
struct PlanePoint: Hashable, Sendable {
    var x: Double
    var y: Double
}

/// A local metric plane around a place: an azimuthal equidistant projection centred on an origin.
///
/// Distances and bearings from the origin are kept (up to the difference between the ellipsoid and
/// the local sphere), and distortion elsewhere grows with the square of the distance from the
/// origin: under a part per million within 10 km. It works the same at the poles and across
/// the ±180° meridian because it goes through Earth-centred coordinates rather than degrees.
struct LocalFrame: Sendable, Hashable {
    let origin: Coordinate
    private let sinLat0: Double, cosLat0: Double, sinLon0: Double, cosLon0: Double
    private let originECEF: (x: Double, y: Double, z: Double)
    /// Radius of the sphere that best fits the ellipsoid at the origin (Gaussian mean radius).
    private let radius: Double

    init(origin: Coordinate) {
        self.origin = origin
        let phi = radians(origin.latitude), lambda = radians(origin.longitude)
        sinLat0 = sin(phi)
        cosLat0 = cos(phi)
        sinLon0 = sin(lambda)
        cosLon0 = cos(lambda)
        originECEF = LocalFrame.ecef(sinLat: sinLat0, cosLat: cosLat0, sinLon: sinLon0, cosLon: cosLon0)
        let sin2 = sinLat0 * sinLat0
        radius = (WGS84.meridionalRadius(sin2: sin2) * WGS84.primeVerticalRadius(sin2: sin2)).squareRoot()
    }

    static func == (lhs: LocalFrame, rhs: LocalFrame) -> Bool { lhs.origin == rhs.origin }
    func hash(into hasher: inout Hasher) { hasher.combine(origin) }

    @inline(__always)
    private static func ecef(sinLat: Double, cosLat: Double, sinLon: Double, cosLon: Double) -> (
        x: Double, y: Double, z: Double
    ) {
        let n = WGS84.primeVerticalRadius(sin2: sinLat * sinLat)
        return (n * cosLat * cosLon, n * cosLat * sinLon, n * (1 - WGS84.e2) * sinLat)
    }

    /// Projects a coordinate into the plane.
    func project(_ coordinate: Coordinate) -> PlanePoint {
        let phi = radians(coordinate.latitude), lambda = radians(coordinate.longitude)
        let p = LocalFrame.ecef(sinLat: sin(phi), cosLat: cos(phi), sinLon: sin(lambda), cosLon: cos(lambda))
        let dx = p.x - originECEF.x, dy = p.y - originECEF.y, dz = p.z - originECEF.z
        // East-north-up components of the chord from the origin.
        let east = -sinLon0 * dx + cosLon0 * dy
        let north = -sinLat0 * cosLon0 * dx - sinLat0 * sinLon0 * dy + cosLat0 * dz
        let up = cosLat0 * cosLon0 * dx + cosLat0 * sinLon0 * dy + sinLat0 * dz
        let horizontal = (east * east + north * north).squareRoot()
        guard horizontal > 0 else { return PlanePoint(x: 0, y: 0) }
        // Stretch the horizontal part of the chord to the arc length, so that the far side of the
        // Earth maps far away instead of folding back onto the origin.
        let chord = (horizontal * horizontal + up * up).squareRoot()
        let arc = 2 * radius * asin(min(1, chord / (2 * radius)))
        let scale = arc / horizontal
        return PlanePoint(x: east * scale, y: north * scale)
    }

    /// The coordinate of a plane point, for naming where something is in an error message.
    func unproject(_ point: PlanePoint) -> Coordinate {
        let distance = (point.x * point.x + point.y * point.y).squareRoot()
        guard distance > 0 else { return origin }
        let sigma = distance / radius
        let azimuth = atan2(point.x, point.y)
        let phi0 = radians(origin.latitude)
        let phi = asin(sin(phi0) * cos(sigma) + cos(phi0) * sin(sigma) * cos(azimuth))
        let lambda =
            radians(origin.longitude)
            + atan2(sin(azimuth) * sin(sigma) * cos(phi0), cos(sigma) - sin(phi0) * sin(phi))
        return Coordinate(uncheckedLatitude: degrees(phi), longitude: degrees(lambda))
    }
}
