import Foundation
import Testing

@testable import Geofence
import GeofenceSimulation

/// The polygon distance measured in Swift must give GEOS's numbers bit for bit (replay output
/// prints them), and must hand every point it cannot be sure of to GEOS.
@Suite struct PlanarPolygonTests {
    /// Shapes that exercise stars, holes, concave notches and several parts, in metres.
    static func shapes(_ map: MetricMap) throws -> [(String, PolygonCondition)] {
        let star = (0...64).map { vertex -> Coordinate in
            let angle = Double(vertex % 64) / 64 * 2 * .pi
            let r: Double = vertex % 2 == 0 ? 500 : 350
            return map.at(300 + r * cos(angle), -200 + r * sin(angle))
        }
        let notch = map.ring([
            (0, 0), (400, 0), (400, 400), (300, 400), (300, 100), (100, 100), (100, 400), (0, 400),
        ])
        return [
            ("star", try PolygonCondition(polygons: [[star]])),
            ("square with holes", try PolygonCondition(polygons: [
                [map.square(-500, -500, 500, 500), map.square(-100, -100, 100, 100),
                 map.square(200, 200, 300, 420)]
            ])),
            ("concave", try PolygonCondition(polygons: [[notch]])),
            ("two parts", try PolygonCondition(polygons: [
                [map.square(0, 0, 100, 100)], [map.square(1000, 0, 1100, 100), map.square(1040, 40, 1060, 60)],
            ])),
        ]
    }

    static let origins: [(Double, Double)] = [(47.37, 8.54), (0, 0), (-54.8, -68.3), (78.2, 15.6), (10, 179.99)]

    @Test(arguments: origins)
    func randomPointsGiveGEOSsDistanceExactly(latitude: Double, longitude: Double) throws {
        let map = try MetricMap(latitude: latitude, longitude: longitude)
        var random = SeededGenerator(seed: 21)
        for (name, polygon) in try PlanarPolygonTests.shapes(map) {
            var answered = 0, total = 0
            for scale in [2.0, 50, 600, 5000, 80_000] {
                for _ in 0..<400 {
                    let point = map.at(
                        300 + Double.random(in: -scale...scale, using: &random),
                        -100 + Double.random(in: -scale...scale, using: &random))
                    let geos = polygon.geosSignedDistance(to: point)
                    let combined = polygon.signedDistance(to: point)
                    #expect(combined.bitPattern == geos.bitPattern, "\(name) at \(point): \(combined) != GEOS \(geos)")
                    let plane = polygon.frame.project(point)
                    if polygon.planarSignedDistance(x: plane.x, y: plane.y) != nil { answered += 1 }
                    total += 1
                }
            }
            // Deferring everything to GEOS would pass the comparison and gain nothing.
            #expect(answered >= total * 99 / 100, "\(name): only \(answered) of \(total) answered without GEOS")
        }
    }

    /// Vertices, points on edges, points a hair off them, and points level with a vertex (where a
    /// ray-crossing count must not count a vertex twice).
    @Test(arguments: origins)
    func pointsOnAndBesideTheBoundaryGiveGEOSsAnswer(latitude: Double, longitude: Double) throws {
        let map = try MetricMap(latitude: latitude, longitude: longitude)
        var random = SeededGenerator(seed: 22)
        for (name, polygon) in try PlanarPolygonTests.shapes(map) {
            let vertices = polygon.polygons.flatMap { $0.flatMap { $0.map(polygon.frame.project) } }
            var points: [PlanePoint] = []
            for (a, b) in zip(vertices, vertices.dropFirst()) {
                points.append(a)
                let t = Double.random(in: 0...1, using: &random)
                let on = PlanePoint(x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y))
                points.append(on)
                let length = ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot()
                for offset in [1e-9, 1e-6, 1e-3, 0.5, 20] {
                    for sign in [-1.0, 1.0] {
                        points.append(
                            PlanePoint(
                                x: on.x - sign * offset * (b.y - a.y) / length,
                                y: on.y + sign * offset * (b.x - a.x) / length))
                    }
                }
                // Level with a vertex, either side of it, left and right of the shape.
                for dx in [-700.0, -3, 3, 700] { points.append(PlanePoint(x: a.x + dx, y: a.y)) }
            }
            for point in points {
                let geos = polygon.geosSignedDistance(x: point.x, y: point.y)
                guard let planar = polygon.planarSignedDistance(x: point.x, y: point.y) else {
                    // Deferred points must be the ones near an edge, never ones plainly apart.
                    #expect(abs(geos) < 1e-5, "\(name) deferred \(point) at \(geos) m")
                    continue
                }
                #expect(planar.bitPattern == geos.bitPattern, "\(name) at \(point): \(planar) != GEOS \(geos)")
            }
            for vertex in polygon.polygons.flatMap({ $0.flatMap { $0 } }) {
                #expect(polygon.signedDistance(to: vertex).bitPattern == polygon.geosSignedDistance(to: vertex).bitPattern)
                #expect(polygon.signedDistance(to: vertex) <= 0, "\(name): a vertex is on the boundary, so inside")
            }
        }
    }

    @Test func segmentDistanceMatchesTheGeometry() {
        // Beyond either end, the distance to the end; beside the middle, the perpendicular.
        #expect(PlanarPolygon.segmentDistance(x: -3, y: 4, ax: 0, ay: 0, bx: 10, by: 0) == 5)
        #expect(PlanarPolygon.segmentDistance(x: 13, y: -4, ax: 0, ay: 0, bx: 10, by: 0) == 5)
        #expect(PlanarPolygon.segmentDistance(x: 5, y: 2, ax: 0, ay: 0, bx: 10, by: 0) == 2)
        // A degenerate segment is a point.
        #expect(PlanarPolygon.segmentDistance(x: 3, y: 4, ax: 0, ay: 0, bx: 0, by: 0) == 5)
    }
}
