import Foundation
import Testing

@testable import Geofence
import GeofenceSimulation

/// Builds coordinates from metres on a flat map around an origin, so expected distances are known.
struct MetricMap {
    let day: SyntheticDay
    init(latitude: Double, longitude: Double) throws {
        day = SyntheticDay(origin: try Coordinate(latitude: latitude, longitude: longitude))
    }
    func at(_ east: Double, _ north: Double) -> Coordinate { day.coordinate(east: east, north: north) }
    /// A closed ring through the given corners, in metres.
    func ring(_ corners: [(Double, Double)]) -> [Coordinate] {
        let points = corners.map { at($0.0, $0.1) }
        return points + [points[0]]
    }
    func square(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> [Coordinate] {
        ring([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
    }
}

@Suite struct PolygonConditionTests {
    @Test(arguments: [0.0, 51.5, 78.2, -54.8, 89.5])
    func aSquareWithAHoleGivesDistancesInMetres(latitude: Double) throws {
        let map = try MetricMap(latitude: latitude, longitude: 12)
        let polygon = try PolygonCondition(polygons: [
            [map.square(-500, -500, 500, 500), map.square(-100, -100, 100, 100)]
        ])
        // 150 m inside the shell, 50 m from the hole's edge.
        #expect(abs(polygon.signedDistance(to: map.at(0, 150)) - -50) < 0.1)
        // Inside the hole: outside the polygon, 100 m from the hole's edge.
        #expect(abs(polygon.signedDistance(to: map.at(0, 0)) - 100) < 0.1)
        // Between shell and hole, nearest the shell.
        #expect(abs(polygon.signedDistance(to: map.at(450, 0)) - -50) < 0.1)
        // Outside.
        #expect(abs(polygon.signedDistance(to: map.at(800, 0)) - 300) < 0.3)
        #expect(abs(polygon.signedDistance(to: map.at(0, -2500)) - 2000) < 2)
    }

    @Test func aConcaveShapeIsOutsideInItsNotch() throws {
        let map = try MetricMap(latitude: 47.05, longitude: 7.04)
        // A U open to the north: the notch is x in 100...300, y above 100.
        let polygon = try PolygonCondition(polygons: [
            [
                map.ring([
                    (0, 0), (400, 0), (400, 400), (300, 400), (300, 100), (100, 100), (100, 400), (0, 400),
                ])
            ]
        ])
        #expect(abs(polygon.signedDistance(to: map.at(200, 300)) - 100) < 0.1)
        #expect(abs(polygon.signedDistance(to: map.at(50, 300)) - -50) < 0.1)
        #expect(abs(polygon.signedDistance(to: map.at(200, 50)) - -50) < 0.1)
    }

    @Test func aMultipolygonContainsEachPart() throws {
        let map = try MetricMap(latitude: -33.9, longitude: 151.2)
        let polygon = try PolygonCondition(polygons: [
            [map.square(0, 0, 100, 100)], [map.square(1000, 0, 1100, 100)],
        ])
        #expect(abs(polygon.signedDistance(to: map.at(50, 50)) - -50) < 0.1)
        #expect(abs(polygon.signedDistance(to: map.at(1050, 60)) - -40) < 0.1)
        #expect(abs(polygon.signedDistance(to: map.at(500, 50)) - 400) < 0.2)
    }

    @Test func aPolygonAcrossTheAntimeridianTakesTheShortWay() throws {
        let polygon = try PolygonCondition(
            wkt: "POLYGON ((179.99 -16.8, -179.99 -16.8, -179.99 -16.7, 179.99 -16.7, 179.99 -16.8))")
        let west = try Coordinate(latitude: -16.75, longitude: 179.995)
        let east = try Coordinate(latitude: -16.75, longitude: -179.995)
        let onMeridian = try Coordinate(latitude: -16.75, longitude: 180)
        // Half the width of 0.02 degrees of longitude at -16.75: the geodesic to the edge.
        let toEdge = onMeridian.distance(to: try Coordinate(latitude: -16.75, longitude: 179.99))
        #expect(polygon.signedDistance(to: west) < 0)
        #expect(polygon.signedDistance(to: east) < 0)
        #expect(abs(polygon.signedDistance(to: onMeridian) - -toEdge) < 0.001 * toEdge)
        #expect(polygon.signedDistance(to: try Coordinate(latitude: -16.75, longitude: 0)) > 1_000_000)
    }

    @Test func aPolygonAroundTheNorthPoleContainsIt() throws {
        let polygon = try PolygonCondition(
            geoJSON: """
                {"type": "Polygon", "coordinates": [[[0, 89.9], [90, 89.9], [180, 89.9], [-90, 89.9], [0, 89.9]]]}
                """)
        let pole = try Coordinate(latitude: 90, longitude: 0)
        #expect(polygon.signedDistance(to: pole) < -7000)
        #expect(polygon.signedDistance(to: try Coordinate(latitude: 89.99, longitude: 45)) < 0)
        // On the 0° meridian 0.05° past the ring's corner (11.17 km, GeographicLib), outside.
        let outside = try Coordinate(latitude: 89.85, longitude: 0)
        #expect(abs(polygon.signedDistance(to: outside) - 5584.7) < 6)
    }

    @Test func aPointOnTheBoundaryIsInside() throws {
        let map = try MetricMap(latitude: 51.5, longitude: -0.12)
        let ring = map.square(0, 0, 200, 200)
        let polygon = try PolygonCondition(polygons: [[ring]])
        for vertex in ring { #expect(polygon.signedDistance(to: vertex) <= 0) }
        #expect(Condition.polygon(polygon).contains(ring[0]))
        // Just outside a corner is outside.
        #expect(polygon.signedDistance(to: map.at(-0.01, -0.01)) > 0)
    }

    @Test func geoJSONFeatureAndFeatureCollectionAreAccepted() throws {
        let square = "[[[7.0, 47.0], [7.01, 47.0], [7.01, 47.01], [7.0, 47.01], [7.0, 47.0]]]"
        let feature = try PolygonCondition(
            geoJSON:
                #"{"type": "Feature", "properties": {"name": "x"}, "geometry": {"type": "Polygon", "coordinates": \#(square)}}"#
        )
        let collection = try PolygonCondition(
            geoJSON:
                #"{"type": "FeatureCollection", "features": [{"type": "Feature", "geometry": {"type": "MultiPolygon", "coordinates": [\#(square)]}}]}"#
        )
        let wkt = try PolygonCondition(wkt: "POLYGON ((7 47, 7.01 47, 7.01 47.01, 7 47.01, 7 47))")
        let inside = try Coordinate(latitude: 47.005, longitude: 7.005)
        for polygon in [feature, collection, wkt] { #expect(polygon.signedDistance(to: inside) < -300) }
        #expect(feature == wkt)
    }

    @Test func aPolygonSurvivesACodableRoundTrip() throws {
        let polygon = try PolygonCondition(wkt: "POLYGON ((7 47, 7.01 47, 7.01 47.01, 7 47.01, 7 47))")
        let condition = Condition.polygon(polygon)
        let decoded = try JSONDecoder().decode(Condition.self, from: try JSONEncoder().encode(condition))
        #expect(decoded == condition)
        let point = try Coordinate(latitude: 47.002, longitude: 7.003)
        #expect(decoded.signedDistance(to: point) == condition.signedDistance(to: point))
    }

    /// Every kind of invalid input, with the exact error it must give.
    @Test(arguments: [
        (
            "POLYGON ((0 0, 1 1, 1 0, 0 1, 0 0))",
            // Where the straight edges of the local plane cross: a hair north of 0.5° latitude.
            "invalid polygon: Self-intersection at latitude 0.500057, longitude 0.500000"
        ),
        (
            "POLYGON ((0 0, 1 0, 1 1, 0 1))",
            "WKT: IllegalArgumentException: Points of LinearRing do not form a closed linestring"
        ),
        (
            "POLYGON ((0 0, 1 0, 0 0))",
            "invalid polygon: Too few points in geometry component at latitude 0.000000, longitude 0.000000"
        ),
        (
            "POLYGON ((0 0, 1 0, 1 1, 0 1, 0 0), (5 5, 6 5, 6 6, 5 6, 5 5))",
            "invalid polygon: Hole lies outside shell at latitude 5.000000, longitude 5.000000"
        ),
        ("POLYGON ((0 0, 1 0, 1 1", "WKT: ParseException: Expected word but encountered end of stream"),
        ("LINESTRING (0 0, 1 1)", "WKT: expected POLYGON or MULTIPOLYGON, found LineString"),
        ("POLYGON EMPTY", "WKT: POLYGON is empty"),
        (
            "POLYGON ((0 0, 1 0, 1 95, 0 0))",
            "WKT: outer ring, vertex 3: latitude 95.0 is outside -90.0...90.0"
        ),
    ])
    func invalidWKTIsRefusedWithItsReason(wkt: String, message: String) {
        #expect {
            try PolygonCondition(wkt: wkt)
        } throws: { error in
            (error as? PolygonError)?.description == message
        }
    }

    @Test(arguments: [
        (
            #"{"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1]]]}"#,
            "polygon, outer ring: IllegalArgumentException: Points of LinearRing do not form a closed linestring"
        ),
        (
            #"{"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [0, 0]]]}"#,
            "invalid polygon: Too few points in geometry component at latitude 0.000000, longitude 0.000000"
        ),
        (
            #"{"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, "a"], [0, 0]]]}"#,
            "GeoJSON coordinates[0][2]: expected [longitude, latitude]"
        ),
        (
            #"{"type": "Polygon", "coordinates": [[[0, 0], [200, 0], [1, 1], [0, 0]]]}"#,
            "GeoJSON coordinates[0][1]: longitude 200.0 is outside -180.0...180.0"
        ),
        (#"{"type": "Polygon"}"#, "GeoJSON coordinates: expected a non-empty array of rings"),
        (
            #"{"type": "LineString", "coordinates": [[0, 0], [1, 1]]}"#,
            "GeoJSON: expected Polygon, MultiPolygon, Feature or FeatureCollection, found LineString"
        ),
        (#"{"type": "Feature", "geometry": null}"#, "GeoJSON: Feature has no geometry"),
        (#"{"coordinates": []}"#, "GeoJSON: missing \"type\""),
        (#"[1, 2]"#, "GeoJSON: expected an object, found an array"),
        (
            #"{"type": "MultiPolygon", "coordinates": [[[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]], [[[0.5, 0.5], [2, 0.5], [2, 2], [0.5, 2], [0.5, 0.5]]]]}"#,
            "invalid polygon: Self-intersection at latitude 0.500058, longitude 0.999997"
        ),
    ])
    func invalidGeoJSONIsRefusedWithWhereItIs(json: String, message: String) {
        #expect {
            try PolygonCondition(geoJSON: json)
        } throws: { error in
            (error as? PolygonError)?.description == message
        }
    }

    @Test func textThatIsNotJSONIsRefused() {
        #expect {
            try PolygonCondition(geoJSON: "{\"type\": ")
        } throws: { error in
            guard case .malformedGeoJSON(let path, let detail) = error as? PolygonError else { return false }
            return path.isEmpty && detail.hasPrefix("not valid JSON")
        }
    }
}
