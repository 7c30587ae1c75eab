import Foundation
import Testing

@testable import Geofence
import GeofenceSimulation

/// The cheap bound that lets the monitor skip far places must never exceed the exact signed
/// distance: if it did, a fix could be taken as clearly outside a place it is near or in.
@Suite struct DistanceBoundTests {
    /// Origins from the equator to near the poles and beside the ±180° meridian.
    static let origins: [(Double, Double)] = [
        (0, 0), (51.5, -0.12), (-54.8, -68.3), (78.2, 15.6), (89.5, 12), (10, 179.99),
    ]

    @Test(arguments: origins)
    func neverExceedsACirclesSignedDistance(latitude: Double, longitude: Double) throws {
        let map = try MetricMap(latitude: latitude, longitude: longitude)
        var random = SeededGenerator(seed: 11)
        for radius in [5.0, 150, 2000, 40_000] {
            let circle = try CircularCondition(center: map.at(0, 0), radiusMeters: radius)
            let bound = DistanceBound(.circle(circle))
            for scale in [10.0, 300, 3000, 30_000, 300_000] {
                for _ in 0..<200 {
                    let point = map.at(
                        Double.random(in: -scale...scale, using: &random),
                        Double.random(in: -scale...scale, using: &random))
                    let exact = circle.signedDistance(to: point)
                    let lower = bound.lowerBound(EarthPoint(point))
                    #expect(lower <= exact, "radius \(radius), \(point): bound \(lower) > \(exact)")
                    // Far from the circle the bound is within a fraction of the distance, or it
                    // would reject nothing.
                    if exact > 1000, exact < 50_000 { #expect(exact - lower < 0.01 * exact + 1) }
                }
            }
        }
    }

    @Test(arguments: origins)
    func neverExceedsAPolygonsSignedDistance(latitude: Double, longitude: Double) throws {
        let map = try MetricMap(latitude: latitude, longitude: longitude)
        var random = SeededGenerator(seed: 12)
        let star = (0...64).map { vertex -> Coordinate in
            let angle = Double(vertex % 64) / 64 * 2 * .pi
            let r: Double = vertex % 2 == 0 ? 500 : 350
            return map.at(300 + r * cos(angle), -200 + r * sin(angle))
        }
        let polygon = try PolygonCondition(polygons: [[star]])
        let bound = DistanceBound(.polygon(polygon))
        for scale in [100.0, 1000, 10_000, 100_000] {
            for _ in 0..<150 {
                let point = map.at(
                    Double.random(in: -scale...scale, using: &random),
                    Double.random(in: -scale...scale, using: &random))
                let exact = polygon.signedDistance(to: point)
                let lower = bound.lowerBound(EarthPoint(point))
                #expect(lower <= exact, "\(point): bound \(lower) > \(exact)")
            }
        }
    }

    @Test(arguments: origins)
    func neverFallsBelowACirclesSignedDistance(latitude: Double, longitude: Double) throws {
        let map = try MetricMap(latitude: latitude, longitude: longitude)
        var random = SeededGenerator(seed: 14)
        var bounded = 0
        for radius in [5.0, 150, 2000, 40_000] {
            let circle = try CircularCondition(center: map.at(0, 0), radiusMeters: radius)
            let bound = DistanceBound(.circle(circle))
            for scale in [10.0, 300, 3000, 30_000, 300_000] {
                for _ in 0..<200 {
                    let point = map.at(
                        Double.random(in: -scale...scale, using: &random),
                        Double.random(in: -scale...scale, using: &random))
                    let exact = circle.signedDistance(to: point)
                    let upper = bound.upperBound(EarthPoint(point))
                    #expect(upper >= exact, "radius \(radius), \(point): bound \(upper) < \(exact)")
                    if upper.isFinite {
                        bounded += 1
                        // Loose by the slack, 1e-4 of the distance to the centre, and no more.
                        #expect(upper - exact < 2e-4 * (exact + radius) + 0.01, "a bound too loose to decide anything")
                    }
                }
            }
        }
        #expect(bounded > 1000)
    }

    /// Whatever the bounds decide must be what the exact distance decides, for every kind of
    /// shape, accuracy and margin.
    @Test(arguments: origins)
    func decidedEvidenceIsTheExactEvidence(latitude: Double, longitude: Double) throws {
        let map = try MetricMap(latitude: latitude, longitude: longitude)
        var random = SeededGenerator(seed: 15)
        let star = (0...64).map { vertex -> Coordinate in
            let angle = Double(vertex % 64) / 64 * 2 * .pi
            let r: Double = vertex % 2 == 0 ? 500 : 350
            return map.at(r * cos(angle), r * sin(angle))
        }
        let conditions: [Condition] = [
            .circle(try CircularCondition(center: map.at(0, 0), radiusMeters: 150)),
            .circle(try CircularCondition(center: map.at(0, 0), radiusMeters: 3000)),
            .polygon(try PolygonCondition(polygons: [[star]])),
        ]
        var decided = (inside: 0, outside: 0)
        for condition in conditions {
            let bound = DistanceBound(condition)
            for hysteresis in [Hysteresis.default, Hysteresis(enterMarginMeters: 0, exitMarginMeters: 0, accuracyWeight: 0)] {
                for scale in [200.0, 1000, 5000] {
                    for _ in 0..<300 {
                        let point = map.at(
                            Double.random(in: -scale...scale, using: &random),
                            Double.random(in: -scale...scale, using: &random))
                        let accuracy = Double.random(in: 0...80, using: &random)
                        let exact = condition.signedDistance(to: point)
                        guard
                            let side = bound.decidedEvidence(
                                EarthPoint(point), accuracy: accuracy, accuracyWeight: hysteresis.accuracyWeight,
                                enterMarginMeters: hysteresis.enterMarginMeters,
                                exitMarginMeters: hysteresis.exitMarginMeters)
                        else { continue }
                        #expect(side == hysteresis.evidence(signedDistance: exact, accuracy: accuracy))
                        #expect(side == Hysteresis.Side(signedDistance: exact), "never the wrong side")
                        if side == .inside { decided.inside += 1 } else { decided.outside += 1 }
                    }
                }
            }
        }
        // Both directions must be exercised, or the comparison above proves little.
        #expect(decided.inside > 100)
        #expect(decided.outside > 100)
    }

    @Test func aChordIsNeverLongerThanTheGeodesic() throws {
        var random = SeededGenerator(seed: 13)
        for _ in 0..<2000 {
            let a = try Coordinate(
                latitude: Double.random(in: -89.9...89.9, using: &random),
                longitude: Double.random(in: -180...180, using: &random))
            let b = try Coordinate(
                latitude: Double.random(in: -89.9...89.9, using: &random),
                longitude: Double.random(in: -180...180, using: &random))
            let chord = EarthPoint(a).chord(to: EarthPoint(b))
            #expect(chord <= a.distance(to: b) + 0.001, "\(a) to \(b)")
        }
    }
}
