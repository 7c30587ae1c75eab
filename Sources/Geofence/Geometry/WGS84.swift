import Foundation

/// The WGS84 ellipsoid and the few radii of curvature the geometry needs.
enum WGS84 {
    /// Semi-major axis in metres.
    static let a = 6_378_137.0
    /// Flattening.
    static let f = 1 / 298.257_223_563
    /// Semi-minor axis in metres.
    static let b = a * (1 - f)
    /// First eccentricity squared.
    static let e2 = f * (2 - f)

    /// Meridional radius of curvature at a latitude whose sine squared is given.
    @inline(__always)
    static func meridionalRadius(sin2: Double) -> Double {
        let w2 = 1 - e2 * sin2
        return a * (1 - e2) / (w2 * w2.squareRoot())
    }

    /// Prime-vertical radius of curvature at a latitude whose sine squared is given.
    @inline(__always)
    static func primeVerticalRadius(sin2: Double) -> Double {
        a / (1 - e2 * sin2).squareRoot()
    }
}

@inline(__always) func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }
@inline(__always) func degrees(_ radians: Double) -> Double { radians * 180 / .pi }

/// Longitude difference in radians, wrapped into -π...π so that 179.9° and -179.9° are close.
@inline(__always) func wrappedLongitudeDelta(_ from: Double, _ to: Double) -> Double {
    var delta = radians(to - from)
    if delta > .pi { delta -= 2 * .pi } else if delta < -.pi { delta += 2 * .pi }
    return delta
}
