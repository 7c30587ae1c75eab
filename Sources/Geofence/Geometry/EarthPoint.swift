import Foundation

/// A point on the WGS84 ellipsoid in Earth-centred, Earth-fixed coordinates, in metres.
///
/// The straight line between two points is never longer than any path on the surface between
/// them, so the distance between two `EarthPoint`s (a chord) is a lower bound on their geodesic
/// distance. The monitor computes one per fix (two sines and two cosines) and then bounds its
/// distance to every place with a few multiplications, so that places far from the fix need no
/// trigonometry at all.
struct EarthPoint: Sendable, Hashable {
    var x: Double
    var y: Double
    var z: Double

    /// The point with these coordinates, in metres.
    init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The point at a coordinate, on the ellipsoid's surface, to a few nanometres (the angles'
    /// sines and cosines through ``QuickTrig``).
    init(_ coordinate: Coordinate) {
        let ((sinPhi, cosPhi), (sinLambda, cosLambda)) = QuickTrig.sinCos(
            latitude: coordinate.latitude, longitude: coordinate.longitude)
        let n = WGS84.primeVerticalRadius(sin2: sinPhi * sinPhi)
        x = n * cosPhi * cosLambda
        y = n * cosPhi * sinLambda
        z = n * (1 - WGS84.e2) * sinPhi
    }

    /// The straight-line distance in metres to another point.
    @inline(__always)
    func chord(to other: EarthPoint) -> Double {
        let dx = x - other.x, dy = y - other.y, dz = z - other.z
        return (dx * dx + dy * dy + dz * dz).squareRoot()
    }
}
