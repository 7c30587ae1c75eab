/// A cheap lower bound on a condition's signed distance, so that fixes far from a place skip its
/// exact distance (GEOS for a polygon, the geodesic for a circle).
///
/// Every condition lies within a disc: a circle is one, and a polygon's edges are straight lines
/// in its local plane, so the whole shape lies in the disc around the plane's origin that holds
/// every vertex. A point farther from the disc's centre than its radius is outside, at least
/// `distance - radius` from the boundary. The distance to the centre is bounded below by the
/// chord between the two ``EarthPoint``s: a straight line is never longer than the geodesic
/// (circles), nor than the arc the polygon's projection stretches the chord to (polygons).
///
/// A circle is also bounded above: within tens of kilometres the geodesic exceeds the chord by
/// under ten parts per million (the arc over the chord is about 1 + c²/24R²), and the circle's
/// distance formula is within a few parts per million of the geodesic, so the chord plus the same
/// slack is never shorter than the distance the circle computes. A fix deep inside a circle then
/// needs no trigonometry either.
struct DistanceBound: Sendable {
    private let center: EarthPoint
    private let radius: Double
    /// What the exact distance may lose to rounding or approximation, per metre from the centre.
    private let relativeSlack: Double
    /// Whether the shape is a circle, the only one with an upper bound.
    private let isCircle: Bool
    /// Chords up to this long have an upper bound (the slack argument holds well beyond it).
    private static let upperBoundChordMeters = 50_000.0

    /// The bound for a condition.
    init(_ condition: Condition) {
        switch condition {
        case .circle(let circle):
            center = EarthPoint(circle.center)
            radius = circle.radiusMeters
            // The circle's distance is the flat-earth formula within a few parts per million of
            // the geodesic (or Vincenty, sub-millimetre); 100 ppm leaves a wide margin.
            relativeSlack = 1e-4
            isCircle = true
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
            isCircle = false
        }
    }

    /// A number never larger than the condition's signed distance to the point.
    @inline(__always)
    func lowerBound(_ point: EarthPoint) -> Double {
        lower(chord: center.chord(to: point))
    }

    /// The lower bound at a point `chord` metres from the centre.
    @inline(__always)
    private func lower(chord: Double) -> Double {
        chord - radius - 0.001 - chord * relativeSlack
    }

    /// The upper bound (a circle's, within ``upperBoundChordMeters``) at a point `chord` metres
    /// from the centre.
    @inline(__always)
    private func upper(chord: Double) -> Double {
        chord + chord * relativeSlack + 0.001 - radius
    }

    /// A number never smaller than the condition's signed distance to the point: infinity where
    /// nothing cheap is known (a polygon, or a point far from a circle).
    @inline(__always)
    func upperBound(_ point: EarthPoint) -> Double {
        guard isCircle else { return .infinity }
        let chord = center.chord(to: point)
        guard chord < DistanceBound.upperBoundChordMeters else { return .infinity }
        return upper(chord: chord)
    }

    /// How far from `point` every point is still provably inside the condition (a signed
    /// distance of zero or less): `nil` unless the upper bound proves `point` inside. A circle's
    /// upper bound at `q` exceeds the one at `point` by at most the chord between them times
    /// (1 + slack) (the triangle inequality on the chords to the centre), and the room keeps `q`
    /// within the chords the bound holds for.
    @inline(__always)
    func insideRoom(_ point: EarthPoint) -> Double? {
        guard isCircle else { return nil }
        let chord = center.chord(to: point)
        guard chord < DistanceBound.upperBoundChordMeters else { return nil }
        let upper = self.upper(chord: chord)
        guard upper < 0 else { return nil }
        return min(-upper / (1 + relativeSlack), DistanceBound.upperBoundChordMeters - chord)
    }

    /// The side and evidence a fix at `point` has for certain by the bounds alone (they are the
    /// same: clear evidence lies beyond the margin on its own side), or `nil` when the exact
    /// distance must decide. It is ``Hysteresis/evidence(signedDistance:accuracy:)`` applied to
    /// the interval: every distance in it would give the same answer.
    @inline(__always)
    func decidedEvidence(
        _ point: EarthPoint, accuracy: Double, accuracyWeight: Double, enterMarginMeters: Double,
        exitMarginMeters: Double
    ) -> Hysteresis.Side? {
        let chord = center.chord(to: point)
        let spread = accuracyWeight * accuracy
        let lower = self.lower(chord: chord)
        if lower > 0, lower - spread >= exitMarginMeters { return .outside }
        guard isCircle, chord < DistanceBound.upperBoundChordMeters else { return nil }
        let upper = self.upper(chord: chord)
        if upper <= 0, upper + spread <= -enterMarginMeters { return .inside }
        return nil
    }
}
