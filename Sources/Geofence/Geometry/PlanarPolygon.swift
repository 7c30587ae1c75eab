/// A polygon's rings in a local plane, answering the signed distance to its boundary without GEOS.
///
/// It gives the numbers GEOS gives for the same plane coordinates: the distance is the minimum
/// over every edge of the same point-to-segment formula GEOS's facet distance uses (the one in
/// the comp.graphics.algorithms FAQ), and the minimum of the same values is the same value, so
/// the results are bit-identical. Containment is an even-odd ray-crossing count over all rings,
/// which for a valid polygon (GEOS validated it) is "inside a shell and in none of its holes".
/// Its orientation test is plain floating point, so it can err only for points within rounding
/// of an edge; for those (``signedDistance(x:y:)`` returns `nil`) the caller asks GEOS, whose
/// test is robust.
///
/// Edges are kept in chunks with a bounding box each, so a point far from most of the boundary
/// measures only the few edges whose box is near it; nothing is allocated per call.
struct PlanarPolygon: Sendable {
    /// Edge endpoints, four numbers an edge (x0, y0, x1, y1), ring after ring.
    private let edges: [Double]
    /// Bounding boxes of consecutive runs of ``chunkSize`` edges (min x, min y, max x, max y).
    private let boxes: [Double]
    /// The whole shape's box, to answer "outside" for points beyond it without a crossing count.
    private let minX: Double, minY: Double, maxX: Double, maxY: Double
    /// Below this distance the containment test may be wrong, so the answer is left to GEOS.
    private let ambiguousBelow: Double

    private static let chunkSize = 8

    /// Takes rings as GEOS was given them: `polygons[i][0]` a shell, the rest its holes, each ring
    /// closed (its last point repeats its first).
    init(polygons: [[[PlanePoint]]]) {
        var edges: [Double] = []
        var extent = 0.0
        for rings in polygons {
            for ring in rings where ring.count >= 2 {
                for index in 1..<ring.count {
                    let a = ring[index - 1], b = ring[index]
                    edges += [a.x, a.y, b.x, b.y]
                    extent = max(extent, abs(a.x), abs(a.y))
                }
            }
        }
        var boxes: [Double] = []
        var minX = Double.infinity, minY = Double.infinity
        var maxX = -Double.infinity, maxY = -Double.infinity
        let count = edges.count / 4
        var start = 0
        while start < count {
            let end = min(count, start + PlanarPolygon.chunkSize)
            var box = (Double.infinity, Double.infinity, -Double.infinity, -Double.infinity)
            for edge in start..<end {
                for (x, y) in [(edges[4 * edge], edges[4 * edge + 1]), (edges[4 * edge + 2], edges[4 * edge + 3])] {
                    box = (min(box.0, x), min(box.1, y), max(box.2, x), max(box.3, y))
                }
            }
            boxes += [box.0, box.1, box.2, box.3]
            minX = min(minX, box.0)
            minY = min(minY, box.1)
            maxX = max(maxX, box.2)
            maxY = max(maxY, box.3)
            start = end
        }
        self.edges = edges
        self.boxes = boxes
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
        // The orientation's rounding error is a few units in the last place of products of
        // coordinates, about 1e-16 of the extent squared over an edge's length: far below a
        // micrometre for any place on Earth, which is where the condition's own boundary
        // tolerance starts. A point nearer than either to an edge is left to GEOS.
        ambiguousBelow = max(1e-6, extent * 1e-11)
    }

    /// The signed distance (negative inside, on the boundary inside) as GEOS computes it, or `nil`
    /// when the point is so near an edge that only GEOS's robust test can tell the side.
    func signedDistance(x: Double, y: Double) -> Double? {
        guard x.isFinite, y.isFinite else { return nil }
        let distance = edges.withUnsafeBufferPointer { edges in
            boxes.withUnsafeBufferPointer { boxes in
                PlanarPolygon.distance(x: x, y: y, edges: edges, boxes: boxes)
            }
        }
        guard distance >= ambiguousBelow else { return nil }
        if x < minX || x > maxX || y < minY || y > maxY { return distance }
        return contains(x: x, y: y) ? -distance : distance
    }

    /// The least distance from the point to any edge.
    private static func distance(
        x: Double, y: Double, edges: UnsafeBufferPointer<Double>, boxes: UnsafeBufferPointer<Double>
    ) -> Double {
        let chunks = boxes.count / 4
        let edgeCount = edges.count / 4
        // The nearest box first: its edges give a small bound that lets most boxes be skipped.
        var nearest = 0
        var nearestBox = Double.infinity
        for chunk in 0..<chunks {
            let d = boxDistanceSquared(x: x, y: y, boxes: boxes, chunk: chunk)
            if d < nearestBox {
                nearestBox = d
                nearest = chunk
            }
        }
        var best = Double.infinity
        func measure(_ chunk: Int) {
            let end = min(edgeCount, (chunk + 1) * chunkSize)
            for edge in (chunk * chunkSize)..<end {
                let d = segmentDistance(
                    x: x, y: y, ax: edges[4 * edge], ay: edges[4 * edge + 1], bx: edges[4 * edge + 2],
                    by: edges[4 * edge + 3])
                if d < best { best = d }
            }
        }
        measure(nearest)
        for chunk in 0..<chunks where chunk != nearest {
            // A box's distance is computed with rounding too: skip a chunk only when its box is
            // clearly farther than the best edge, so that no edge that could be the minimum is
            // skipped and the minimum stays exactly the one GEOS finds.
            let d = boxDistanceSquared(x: x, y: y, boxes: boxes, chunk: chunk)
            if d * (1 - 1e-9) - 1e-18 > best * best { continue }
            measure(chunk)
        }
        return best
    }

    @inline(__always)
    private static func boxDistanceSquared(
        x: Double, y: Double, boxes: UnsafeBufferPointer<Double>, chunk: Int
    ) -> Double {
        let dx = max(boxes[4 * chunk] - x, 0, x - boxes[4 * chunk + 2])
        let dy = max(boxes[4 * chunk + 1] - y, 0, y - boxes[4 * chunk + 3])
        return dx * dx + dy * dy
    }

    /// The distance from a point to a segment, written as GEOS's `Distance::pointToSegment` is
    /// (the comp.graphics.algorithms FAQ formula), operation for operation, so that it rounds the
    /// same way.
    @inline(__always)
    static func segmentDistance(x: Double, y: Double, ax: Double, ay: Double, bx: Double, by: Double)
        -> Double
    {
        if ax == bx, ay == by { return pointDistance(x, y, ax, ay) }
        let length2 = (bx - ax) * (bx - ax) + (by - ay) * (by - ay)
        let r = ((x - ax) * (bx - ax) + (y - ay) * (by - ay)) / length2
        if r <= 0 { return pointDistance(x, y, ax, ay) }
        if r >= 1 { return pointDistance(x, y, bx, by) }
        let s = ((ay - y) * (bx - ax) - (ax - x) * (by - ay)) / length2
        return abs(s) * length2.squareRoot()
    }

    @inline(__always)
    private static func pointDistance(_ x: Double, _ y: Double, _ ax: Double, _ ay: Double) -> Double {
        let dx = x - ax, dy = y - ay
        return (dx * dx + dy * dy).squareRoot()
    }

    /// Even-odd containment by a ray towards +x; only called for points not near any edge.
    private func contains(x: Double, y: Double) -> Bool {
        edges.withUnsafeBufferPointer { edges in
            var inside = false
            for edge in 0..<(edges.count / 4) {
                let ax = edges[4 * edge], ay = edges[4 * edge + 1]
                let bx = edges[4 * edge + 2], by = edges[4 * edge + 3]
                // Half-open in y, so a vertex at the ray's height is counted once.
                guard (ay > y) != (by > y) else { continue }
                if ax < x, bx < x { continue }
                // The side of the edge the point is on: the ray crosses an upward edge the point
                // is left of, or a downward edge the point is right of.
                let cross = (bx - ax) * (y - ay) - (x - ax) * (by - ay)
                if (by > ay) == (cross > 0) { inside.toggle() }
            }
            return inside
        }
    }
}
