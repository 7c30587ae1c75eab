import Foundation

/// A point in a ``LocalFrame``, in metres east and north of the frame's origin.
package struct PlanePoint: Hashable, Sendable {
    package var x: Double
    package var y: Double

    package init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// A local metric plane around a place: an azimuthal equidistant projection centred on an origin.
///
/// Distances and bearings from the origin are kept (up to the difference between the ellipsoid and
/// the local sphere), and distortion elsewhere grows with the square of the distance from the
/// origin: under a part per million within 10 km. It works the same at the poles and across
/// the ±180° meridian because it goes through Earth-centred coordinates rather than degrees.
package struct LocalFrame: Sendable, Hashable {
    let origin: Coordinate
    private let sinLat0: Double, cosLat0: Double, sinLon0: Double, cosLon0: Double
    private let originECEF: (x: Double, y: Double, z: Double)
    /// Radius of the sphere that best fits the ellipsoid at the origin (Gaussian mean radius).
    private let radius: Double

    package init(origin: Coordinate) {
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

    package static func == (lhs: LocalFrame, rhs: LocalFrame) -> Bool { lhs.origin == rhs.origin }
    package func hash(into hasher: inout Hasher) { hasher.combine(origin) }

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

    /// The coordinate that projects to a plane point: the inverse of ``project(_:)``, to well
    /// under a millimetre within tens of kilometres of the origin.
    ///
    /// It walks the arc on the local sphere, drops the result onto the ellipsoid, and then
    /// corrects twice by the residual of projecting it forward.
    package func unproject(_ point: PlanePoint) -> Coordinate {
        var target = point
        var result = origin
        for _ in 0..<3 {
            result = sphericalUnproject(target)
            let back = project(result)
            let error = PlanePoint(x: point.x - back.x, y: point.y - back.y)
            if abs(error.x) < 1e-7, abs(error.y) < 1e-7 { break }
            target = PlanePoint(x: target.x + error.x, y: target.y + error.y)
        }
        return result
    }

    private func sphericalUnproject(_ point: PlanePoint) -> Coordinate {
        let distance = (point.x * point.x + point.y * point.y).squareRoot()
        guard distance > 0 else { return origin }
        let theta = distance / radius
        let horizontal = radius * sin(theta)
        let east = point.x / distance * horizontal
        let north = point.y / distance * horizontal
        let up = -radius * (1 - cos(theta))
        // East-north-up back to Earth-centred.
        let x = originECEF.x - sinLon0 * east - sinLat0 * cosLon0 * north + cosLat0 * cosLon0 * up
        let y = originECEF.y + cosLon0 * east - sinLat0 * sinLon0 * north + cosLat0 * sinLon0 * up
        let z = originECEF.z + cosLat0 * north + sinLat0 * up
        return LocalFrame.geodetic(x: x, y: y, z: z)
    }

    /// Earth-centred coordinates to latitude and longitude on the ellipsoid (height dropped), by
    /// fixed-point iteration on the latitude.
    private static func geodetic(x: Double, y: Double, z: Double) -> Coordinate {
        let p = (x * x + y * y).squareRoot()
        let lambda = atan2(y, x)
        var phi = atan2(z, p * (1 - WGS84.e2))
        for _ in 0..<6 {
            let sinPhi = sin(phi)
            let n = WGS84.primeVerticalRadius(sin2: sinPhi * sinPhi)
            // Near the poles p / cos(phi) loses precision; use z / sin(phi) there.
            let height = abs(phi) < .pi / 4 ? p / cos(phi) - n : z / sinPhi - n * (1 - WGS84.e2)
            phi = atan2(z, p * (1 - WGS84.e2 * n / (n + height)))
        }
        return Coordinate(uncheckedLatitude: degrees(phi), longitude: degrees(lambda))
    }
}
