/// A cheap lower bound on a polygon's signed distance, so that fixes far from a polygon skip GEOS.
///
/// The polygon's edges are straight lines in its local plane, so the whole shape lies in the disc
/// around the plane's origin that holds every vertex. A point farther from the origin than that
/// disc's radius is outside the polygon, at least `|p| - radius` from its boundary. The point is
/// projected with the very frame the polygon uses, so the bound holds exactly, up to rounding,
/// which the slack covers.
struct DistanceBound: Sendable {
    private let frame: LocalFrame
    private let radius: Double

    /// The bound for a polygon condition; `nil` for circles, whose exact distance is as cheap.
    init?(_ condition: Condition) {
        guard case .polygon(let polygon) = condition else { return nil }
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
        self.frame = frame
        self.radius = radius
    }

    /// A number never larger than the polygon's signed distance to the coordinate.
    @inline(__always)
    func lowerBound(_ coordinate: Coordinate) -> Double {
        let p = frame.project(coordinate)
        let fromOrigin = (p.x * p.x + p.y * p.y).squareRoot()
        // GEOS and the projection round at about 1e-9 m here; a millimetre is ample.
        return fromOrigin - radius - 0.001 - fromOrigin * 1e-9
    }
}
