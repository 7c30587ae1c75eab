import Foundation
import Testing

@testable import Geofence

/// Distances against GeographicLib's geodesic inverse on WGS84 (Karney 2013; values from
/// geographiclib 2.1, `Geodesic.WGS84.Inverse`), at many latitudes, across the ±180° meridian
/// and near both poles.
/// One reference: two points in degrees and GeographicLib's distance in metres.
struct GeodesicReference: Sendable, CustomTestStringConvertible {
    let lat1: Double, lon1: Double, lat2: Double, lon2: Double, meters: Double
    init(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double, _ meters: Double) {
        (self.lat1, self.lon1, self.lat2, self.lon2, self.meters) = (lat1, lon1, lat2, lon2, meters)
    }
    var testDescription: String { "(\(lat1), \(lon1)) to (\(lat2), \(lon2))" }
}

@Suite struct GeodesicDistanceTests {
    /// latitude 1, longitude 1, latitude 2, longitude 2, metres.
    static let table = """
        0.000000, -63.420205, 0.001000, -63.420205, 110.574276
        0.000000, -125.694297, 0.000000, -125.691297, 333.958472
        0.000000, 54.336410, 0.050000, 54.406410, 9554.454630
        0.000000, -153.922937, 0.300000, -154.122937, 39950.934987
        30.000000, 12.917522, 30.001000, 12.917522, 110.852451
        30.000000, -48.351990, 30.000000, -48.348990, 289.458841
        30.000000, -159.120387, 30.050000, -159.050387, 8735.849355
        30.000000, 2.676864, 30.300000, 2.476864, 38435.072976
        51.500000, -166.501563, 51.501000, -166.501563, 111.257843
        51.500000, -23.887554, 51.500000, -23.884554, 208.321550
        51.500000, -154.852048, 51.550000, -154.782048, 7385.654694
        51.500000, -147.343315, 51.800000, -147.543315, 36134.691604
        60.000000, -27.173092, 60.001000, -27.173092, 111.412296
        60.000000, 117.666765, 60.000000, 117.669765, 167.400005
        60.000000, -135.431294, 60.050000, -135.361294, 6801.896109
        60.000000, -99.633973, 60.300000, -99.833973, 35222.302182
        75.000000, 45.875960, 75.001000, 45.875960, 111.618389
        75.000000, 161.175219, 75.000000, 161.178219, 86.706017
        75.000000, 27.757062, 75.050000, 27.827062, 5935.197335
        75.000000, -37.195029, 75.300000, -37.395029, 33971.595148
        85.000000, 171.451838, 85.001000, 171.451838, 111.685405
        85.000000, -163.230235, 85.000000, -163.227235, 29.203568
        85.000000, 129.048645, 85.050000, 129.118645, 5625.283801
        85.000000, -75.740657, 85.300000, -75.940657, 33558.908010
        89.900000, -128.068170, 89.901000, -128.068170, 111.693976
        89.900000, -137.594794, 89.900000, -137.591794, 0.584828
        89.900000, -68.946543, 89.950000, -68.876543, 5584.707213
        89.900000, 113.805489, 89.800000, 113.605489, 11169.533248
        -33.900000, -114.938503, -33.899000, -114.938503, 110.920572
        -33.900000, 29.376059, -33.900000, 29.379059, 277.478708
        -33.900000, 50.008849, -33.850000, 50.078849, 8526.537135
        -33.900000, -45.936885, -33.600000, -46.136885, 38087.301154
        -70.000000, 17.188008, -69.999000, 17.188008, 111.562019
        -70.000000, -157.395969, -70.000000, -157.392969, 114.559624
        -70.000000, -158.543579, -69.950000, -158.473579, 6186.872484
        -70.000000, -105.854863, -69.700000, -106.054863, 34340.584839
        10.000000, 179.990000, 10.010000, -179.980000, 3470.128059
        -45.000000, -179.900000, -45.100000, 179.950000, 16221.588087
        89.950000, 0.000000, 89.950000, 180.000000, 11169.397927
        89.990000, -40.000000, 89.900000, 100.000000, 12046.437061
        -89.980000, 10.000000, -89.950000, -170.000000, 7818.578554
        0.000000, 0.000000, 0.000100, 0.000100, 15.690347
        52.000000, 13.000000, 52.300000, 13.600000, 52923.722173
        40.700000, -74.000000, 40.900000, -73.700000, 33678.137292
        0.000000, 0.000000, 0.200000, 0.380000, 47733.307361
        64.000000, -20.000000, 64.200000, -19.300000, 40766.578265
        """

    static let references: [GeodesicReference] = table.split(separator: "\n").map { line in
        let v = line.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        return GeodesicReference(v[0], v[1], v[2], v[3], v[4])
    }

    @Test(arguments: references)
    func matchesGeographicLibWithinATenthOfAPercent(reference: GeodesicReference) throws {
        let (lat1, lon1, lat2, lon2, expected) = (
            reference.lat1, reference.lon1, reference.lat2, reference.lon2, reference.meters
        )
        let a = try Coordinate(latitude: lat1, longitude: lon1)
        let b = try Coordinate(latitude: lat2, longitude: lon2)
        let tolerance = max(0.001 * expected, 0.1)
        #expect(abs(a.distance(to: b) - expected) <= tolerance, "got \(a.distance(to: b)), want \(expected)")
        #expect(abs(b.distance(to: a) - expected) <= tolerance)
    }

    @Test func distanceToItselfIsZero() throws {
        let a = try Coordinate(latitude: 47.05, longitude: 7.04)
        #expect(a.distance(to: a) == 0)
    }

    @Test func circleSignedDistanceIsDistanceToCentreMinusRadius() throws {
        let center = try Coordinate(latitude: 51.5, longitude: -0.12)
        let circle = try CircularCondition(center: center, radiusMeters: 150)
        let north = try Coordinate(latitude: 51.501, longitude: -0.12)  // 111.26 m north (GeographicLib)
        #expect(abs(circle.signedDistance(to: north) - (111.257 - 150)) < 0.1)
        #expect(circle.signedDistance(to: center) == -150)
        #expect(Condition.circle(circle).contains(north))
    }

    @Test(arguments: [(0.0, 0.0), (78.2, 15.6), (-16.75, 179.999), (89.99, -120)])
    func aPointExactlyOnTheCircleIsInside(latitude: Double, longitude: Double) throws {
        let center = try Coordinate(latitude: latitude, longitude: longitude)
        let edge = try Coordinate(
            latitude: latitude - 0.001, longitude: longitude > 179 ? -179.999 : longitude)
        let circle = try CircularCondition(center: center, radiusMeters: center.distance(to: edge))
        #expect(circle.signedDistance(to: edge) == 0)
        #expect(Condition.circle(circle).contains(edge))
    }

    @Test(arguments: [0.0, -1, .nan, .infinity])
    func circleRefusesABadRadius(radius: Double) throws {
        let center = try Coordinate(latitude: 0, longitude: 0)
        #expect(throws: ConditionError.self) {
            try CircularCondition(center: center, radiusMeters: radius)
        }
    }
}
