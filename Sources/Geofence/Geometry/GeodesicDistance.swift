import Foundation

extension Coordinate {
    /// The geodesic distance in metres to another coordinate on the WGS84 ellipsoid.
    ///
    /// Short distances away from the poles use the ellipsoidal flat-earth formula with the radii of
    /// curvature at the mean latitude, which is within a few parts per million of the geodesic
    /// there; everything else uses Vincenty's inverse formula (sub-millimetre), falling back to a
    /// spherical estimate only for nearly antipodal points where Vincenty does not converge.
    public func distance(to other: Coordinate) -> Double {
        let phi1 = radians(latitude)
        let phi2 = radians(other.latitude)
        let dPhi = phi2 - phi1
        let dLambda = wrappedLongitudeDelta(longitude, other.longitude)
        let meanPhi = (phi1 + phi2) / 2
        let sinMean = sin(meanPhi)
        // The flat formula ignores the convergence of meridians (an error of about
        // (dLambda * sin(meanPhi))^2 / 24) and the curvature of the meridian (about dPhi^2 / 8
        // times e^2 terms); keep both far below the 0.1 % budget.
        if abs(dPhi) < 0.008, abs(dLambda * sinMean) < 0.004, abs(meanPhi) < radians(89.5) {
            let sin2 = sinMean * sinMean
            let north = WGS84.meridionalRadius(sin2: sin2) * dPhi
            let east = WGS84.primeVerticalRadius(sin2: sin2) * cos(meanPhi) * dLambda
            return (north * north + east * east).squareRoot()
        }
        return Geodesic.vincentyDistance(phi1: phi1, phi2: phi2, dLambda: dLambda)
    }
}

/// Geodesic computations on the ellipsoid that are too slow for the common short case.
enum Geodesic {
    /// Vincenty's inverse formula (1975) for the distance between two points, in metres.
    static func vincentyDistance(phi1: Double, phi2: Double, dLambda: Double) -> Double {
        let a = WGS84.a, b = WGS84.b, f = WGS84.f
        let u1 = atan((1 - f) * tan(phi1))
        let u2 = atan((1 - f) * tan(phi2))
        let sinU1 = sin(u1), cosU1 = cos(u1), sinU2 = sin(u2), cosU2 = cos(u2)
        var lambda = dLambda
        for _ in 0..<200 {
            let sinLambda = sin(lambda), cosLambda = cos(lambda)
            let t1 = cosU2 * sinLambda
            let t2 = cosU1 * sinU2 - sinU1 * cosU2 * cosLambda
            let sinSigma = (t1 * t1 + t2 * t2).squareRoot()
            if sinSigma == 0 { return 0 }
            let cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda
            let sigma = atan2(sinSigma, cosSigma)
            let sinAlpha = cosU1 * cosU2 * sinLambda / sinSigma
            let cos2Alpha = 1 - sinAlpha * sinAlpha
            let cos2SigmaM = cos2Alpha != 0 ? cosSigma - 2 * sinU1 * sinU2 / cos2Alpha : 0
            let c = f / 16 * cos2Alpha * (4 + f * (4 - 3 * cos2Alpha))
            let previous = lambda
            lambda =
                dLambda + (1 - c) * f * sinAlpha
                * (sigma + c * sinSigma * (cos2SigmaM + c * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
            if abs(lambda - previous) < 1e-12 {
                let uSq = cos2Alpha * (a * a - b * b) / (b * b)
                let bigA = 1 + uSq / 16384 * (4096 + uSq * (-768 + uSq * (320 - 175 * uSq)))
                let bigB = uSq / 1024 * (256 + uSq * (-128 + uSq * (74 - 47 * uSq)))
                let deltaSigma =
                    bigB * sinSigma
                    * (cos2SigmaM + bigB / 4
                        * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM) - bigB / 6 * cos2SigmaM
                            * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
                return b * bigA * (sigma - deltaSigma)
            }
        }
        // Nearly antipodal: Vincenty does not converge. A great-circle distance on the mean
        // sphere is within 0.5 % there, far beyond any place this program monitors.
        let h =
            sin((phi2 - phi1) / 2) * sin((phi2 - phi1) / 2) + cos(phi1) * cos(phi2) * sin(dLambda / 2)
            * sin(dLambda / 2)
        return 2 * 6_371_008.8 * asin(min(1, h.squareRoot()))
    }
}
