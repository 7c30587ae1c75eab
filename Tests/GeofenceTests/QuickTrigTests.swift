import Foundation
import Testing

@testable import Geofence
import GeofenceSimulation

/// The monitor's per-fix point takes its sines and cosines from a table and a short series
/// (``QuickTrig``): they must stay within a few units in the last place of the C library's, over
/// every angle a coordinate has, so that a point is within nanometres of where the C library's
/// functions put it (the bounds that use it allow a millimetre).
@Suite struct QuickTrigTests {
    /// The C library's sine and cosine, the reference.
    static func reference(_ angle: Double) -> (sin: Double, cos: Double) { (sin(angle), cos(angle)) }

    /// Angles every fix may have (latitudes to ±π/2, longitudes to ±π), the table's edges and
    /// the points halfway between two of its entries, where the series reaches farthest.
    static func angles() -> [Double] {
        var random = SeededGenerator(seed: 29)
        var angles: [Double] = [
            0, -0.0, .pi / 2, -.pi / 2, .pi, -.pi, 1e-300, -1e-300, .ulpOfOne, 3.2, -3.2,
            radians(51.500736691437154), radians(-0.12451434652441414), radians(179.99999), radians(-180),
        ]
        for k in -205...204 {
            let middle = (Double(k) + 0.5) / 64
            angles += [middle, middle.nextUp, middle.nextDown, Double(k) / 64]
        }
        for _ in 0..<20_000 { angles.append(Double.random(in: -Double.pi...Double.pi, using: &random)) }
        return angles
    }

    @Test func sinesAndCosinesAreWithinAFewUnitsInTheLastPlace() {
        for angle in Self.angles() {
            let quick = QuickTrig.sinCos(angle)
            let exact = Self.reference(angle)
            // Measured in units of the last place of 1 (the largest either can be): what a
            // coordinate's point scales by the Earth's radius.
            let error = max(abs(quick.sin - exact.sin), abs(quick.cos - exact.cos)) / Double.ulpOfOne
            #expect(
                error <= 2,
                "angle \(angle): sin \(quick.sin) vs \(exact.sin), cos \(quick.cos) vs \(exact.cos)")
        }
    }

    @Test func anglesOutsideTheTableAndNotANumberGetTheCLibrarysValues() {
        for angle: Double in [3.3, -3.3, 100, -1e9, .infinity, -.infinity] {
            let quick = QuickTrig.sinCos(angle)
            let exact = Self.reference(angle)
            #expect(
                quick.sin.bitPattern == exact.sin.bitPattern && quick.cos.bitPattern == exact.cos.bitPattern)
        }
        let nan = QuickTrig.sinCos(.nan)
        #expect(nan.sin.isNaN && nan.cos.isNaN)
    }

    @Test func aCoordinatesPointIsWithinNanometresOfTheCLibrarys() throws {
        var random = SeededGenerator(seed: 31)
        for _ in 0..<20_000 {
            let coordinate = try Coordinate(
                latitude: Double.random(in: -90...90, using: &random),
                longitude: Double.random(in: -180...180, using: &random))
            let point = EarthPoint(coordinate)
            let phi = radians(coordinate.latitude), lambda = radians(coordinate.longitude)
            let n = WGS84.primeVerticalRadius(sin2: sin(phi) * sin(phi))
            let exact = EarthPoint(
                x: n * cos(phi) * cos(lambda), y: n * cos(phi) * sin(lambda), z: n * (1 - WGS84.e2) * sin(phi)
            )
            #expect(point.chord(to: exact) < 1e-7, "\(coordinate): \(point.chord(to: exact)) m apart")
        }
    }
}
