import Foundation
import Geofence

/// Douglas-Peucker simplification of a track in a local metric frame, to a number of points.
///
/// A day at one fix a second is 86,400 points; drawn on a 600-pixel map most of them fall on the
/// same pixel. The tolerance starts at one metre and doubles until the track fits its budget, so
/// a short track keeps every fix and a long one keeps its shape.
enum TrackSimplifier {
    /// The indices of the points kept, first and last always among them, in order.
    static func simplify(_ points: [Coordinate], maxPoints: Int) -> [Int] {
        guard points.count > max(2, maxPoints) else { return Array(points.indices) }
        let origin = points[points.count / 2]
        let metresPerDegreeLatitude = 111_132.0
        let metresPerDegreeLongitude = 111_320.0 * cos(origin.latitude * .pi / 180)
        let xs = points.map { ($0.longitude - origin.longitude) * metresPerDegreeLongitude }
        let ys = points.map { ($0.latitude - origin.latitude) * metresPerDegreeLatitude }
        var tolerance = 1.0
        while true {
            let kept = douglasPeucker(xs, ys, tolerance: tolerance)
            if kept.count <= maxPoints || tolerance > 1e7 { return kept }
            tolerance *= 2
        }
    }

    private static func douglasPeucker(_ xs: [Double], _ ys: [Double], tolerance: Double) -> [Int] {
        var keep = [Bool](repeating: false, count: xs.count)
        keep[0] = true
        keep[xs.count - 1] = true
        var stack = [(0, xs.count - 1)]
        while let (start, end) = stack.popLast() {
            guard end > start + 1 else { continue }
            let dx = xs[end] - xs[start]
            let dy = ys[end] - ys[start]
            let length = (dx * dx + dy * dy).squareRoot()
            var farthest = start
            var farthestDistance = -1.0
            for index in (start + 1)..<end {
                let px = xs[index] - xs[start]
                let py = ys[index] - ys[start]
                let distance = length > 0 ? abs(dx * py - dy * px) / length : (px * px + py * py).squareRoot()
                if distance > farthestDistance {
                    farthestDistance = distance
                    farthest = index
                }
            }
            if farthestDistance > tolerance {
                keep[farthest] = true
                stack.append((start, farthest))
                stack.append((farthest, end))
            }
        }
        return keep.indices.filter { keep[$0] }
    }
}
