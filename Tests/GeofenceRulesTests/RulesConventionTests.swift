import Foundation
import Testing

@testable import Geofence
@testable import GeofenceRules

/// Loads rules text, which must be free of errors.
private func load(_ yaml: String) throws -> RulesFile {
    try RulesLoader.parse(yaml, file: "rules.yaml", baseDirectory: URL(fileURLWithPath: "/tmp")).get()
}

/// The polygon of a place.
private func polygon(_ rules: RulesFile, _ name: String) throws -> PolygonCondition {
    guard case .polygon(let polygon)? = rules.place(named: name)?.condition else {
        throw CancellationError()
    }
    return polygon
}

@Suite struct RulesConventionTests {
    @Test func traccarsLatitudeFirstWKTIsReadLatitudeFirstWhenItsNumbersSayIt() throws {
        // Traccar writes POLYGON((lat lon, ...)); the second numbers (around 151) can only be
        // longitudes.
        let rules = try load(
            """
            places:
              opera: { wkt: "POLYGON((-33.8560 151.2140, -33.8560 151.2160, -33.8575 151.2160, -33.8575 151.2140, -33.8560 151.2140))" }
            """)
        let opera = try polygon(rules, "opera")
        #expect(opera.signedDistance(to: at(-33.8568, 151.2153)) < 0)
        #expect(rules.notes.count == 1)
        #expect(rules.notes.first?.description.hasPrefix("rules.yaml:2:17: WKT read latitude first") == true)
    }

    @Test func ambiguousWKTIsDecidedByTheFilesOtherPlaces() throws {
        // Every number is within ±90: the circle 1 km away says the text is latitude first.
        let rules = try load(
            """
            places:
              home: { center: [51.5007, -0.1246], radius: 150 }
              park: { wkt: "POLYGON((51.505 -0.13, 51.505 -0.12, 51.51 -0.12, 51.51 -0.13, 51.505 -0.13))" }
            """)
        #expect(try polygon(rules, "park").signedDistance(to: at(51.507, -0.125)) < 0)
        #expect(
            rules.notes.map(\.message) == [
                "WKT read latitude first: so it lies 1 km from the file's other places, longitude first (WKT's order) it would lie 7483 km away"
            ])
    }

    @Test func ambiguousWKTWithNothingToDecideIsReadInWKTsOrderAndTheSwapIsNamed() throws {
        let rules = try load(
            #"places: { yard: { wkt: "POLYGON((8.54 47.37, 8.55 47.37, 8.55 47.38, 8.54 47.37))" } }"#)
        #expect(try polygon(rules, "yard").signedDistance(to: at(47.375, 8.548)) < 0)
        #expect(
            rules.notes.map(\.message) == [
                "WKT read longitude first (WKT's order), centred at latitude 47.37250, longitude 8.54500; if it was written latitude first (as Traccar writes it), the place is meant to be at latitude 8.54500, longitude 47.37250: swap each pair of numbers"
            ])
    }

    @Test func wktInWKTsOrderNearTheOtherPlacesHasNoNote() throws {
        let rules = try load(
            """
            places:
              home: { center: [47.3769, 8.5417], radius: 150 }
              yard: { wkt: "POLYGON((8.54 47.37, 8.55 47.37, 8.55 47.38, 8.54 47.37))" }
            """)
        #expect(rules.notes.isEmpty)
    }

    @Test func longitudesPastTheAntimeridianAreWrappedWithANote() throws {
        // A map tool drew this box across 180° from the west: -179.99 to -180.0014.
        let rules = try load(
            """
            places:
              island: { wkt: "POLYGON((-179.99 -16.0, -180.0014 -16.0, -180.0014 -16.01, -179.99 -16.01, -179.99 -16.0))" }
              buoy: { center: [-16.005, -180.0005], radius: 50 }
            """)
        #expect(try polygon(rules, "island").signedDistance(to: at(-16.005, -179.995)) < 0)
        #expect(try polygon(rules, "island").signedDistance(to: at(-16.005, 179.9995)) < 0)
        guard case .circle(let buoy)? = rules.place(named: "buoy")?.condition else {
            Issue.record("buoy is not a circle")
            return
        }
        #expect(abs(buoy.center.longitude - 179.9995) < 1e-9)
        #expect(
            rules.notes.map(\.description) == [
                "rules.yaml:2:18: 2 longitudes past ±180 (a ring drawn across the antimeridian) wrapped into -180...180",
                "rules.yaml:3:29: place \"buoy\" center: longitude -180.0005 wrapped to 179.9995",
            ])
    }

    @Test func aRingThatJumpsPast180IsStillRefused() {
        let result = RulesLoader.parse(
            #"places: { yard: { wkt: "POLYGON((0 0, 200 0, 1 1, 0 0))" } }"#, file: "rules.yaml",
            baseDirectory: URL(fileURLWithPath: "/tmp"))
        guard case .failure(let error) = result else {
            Issue.record("a ring jumping to 200 was accepted")
            return
        }
        #expect(
            error.diagnostics.first?.message.contains("longitude 200.0 is outside -180.0...180.0") == true)
    }
}

/// A coordinate for expected values.
private func at(_ latitude: Double, _ longitude: Double) -> Coordinate {
    Coordinate(uncheckedLatitude: latitude, longitude: longitude)
}
