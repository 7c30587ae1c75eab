/// A cheap lower bound on a condition's signed distance, so that fixes far from a place skip its
/// exact distance (GEOS for a polygon, the geodesic for a circle).
///
/// Every condition lies within a disc: a circle is one, and a polygon's edges are straight lines
/// in its local plane, so the whole shape lies in the disc around the plane's origin that holds
/// every vertex. A point farther from the disc's centre than its radius is outside, at least
/// `distance - radius` from the boundary. The distance to the centre is bounded below by the
/// chord between the two ``EarthPoint``s: a straight line is never longer than the geodesic
/// (circles), nor than the arc the polygon's projection stretches the chord to (polygons).
struct DistanceBound: Sendable {
    private let center: EarthPoint
    private let radius: Double
    /// What the exact distance may lose to rounding or approximation, per metre from the centre.
    private let relativeSlack: Double

    /// The bound for a condition.
    init(_ condition: Condition) {
        switch condition {
        case .circle(let circle):
            center = EarthPoint(circle.center)
            radius = circle.radiusMeters
            // The circle's distance is the flat-earth formula within a few parts per million of
            // the geodesic (or Vincenty, sub-millimetre); 100 ppm leaves a wide margin.
            relativeSlack = 1e-4
        case .polygon(let polygon):
            let frame = polygon.frame
            var radius = 0.0
            for rings in polygon.polygons {
                for ring in rings {
                    for vertex in ring {
                        let p = frame.project(vertex)
                        radius = max(radius, (p.x * p.x + p.y * p.y).squareRoot())
                    }
                }
            }
            center = EarthPoint(frame.origin)
            self.radius = radius
            // GEOS and the projection round at about 1e-9 m per metre here.
            relativeSlack = 1e-9
        }
    }

    /// A number never larger than the condition's signed distance to the point.
    @inline(__always)
    func lowerBound(_ point: EarthPoint) -> Double {
        let chord = center.chord(to: point)
        return chord - radius - 0.001 - chord * relativeSlack
    }
}
