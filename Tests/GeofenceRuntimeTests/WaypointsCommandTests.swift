import Foundation
import TestSupport
import Testing

/// `geofence waypoints`, run as the built executable: declared like every other command, so its
/// usage, `--help` and exit statuses come from its definition.
@Suite struct WaypointsCommandTests {
    @Test func waypointsPrintsThePlacesAsOneSetWaypointsLineAndNotesPolygons() throws {
        let directory = try TemporaryDirectory()
        try directory.write(
            "rules.yaml",
            """
            places:
              home: { center: [51.5007, -0.1246], radius: 150 }
              park: { wkt: "POLYGON((-0.16 51.50, -0.15 51.50, -0.15 51.51, -0.16 51.51, -0.16 51.50))" }
            rules:
              - { name: hi, on: enter home, log: true }

            """)
        let result = try GeofenceCommand.run(["waypoints", directory.file("rules.yaml")])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 1)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: Any])
        #expect(object["action"] as? String == "setWaypoints")
        let waypoints = try #require(
            (object["waypoints"] as? [String: Any])?["waypoints"] as? [[String: Any]])
        #expect(waypoints.compactMap { $0["desc"] as? String }.sorted() == ["home", "park"])
        #expect(result.stderr.contains("note: park is a polygon"))
    }

    @Test func waypointsWithoutARulesFileIsAUsageErrorAndHelpComesFromItsDefinition() throws {
        let missing = try GeofenceCommand.run(["waypoints"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("waypoints needs RULES"))
        #expect(missing.stderr.contains("usage: geofence waypoints RULES"))
        let help = try GeofenceCommand.run(["help", "waypoints"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("RULES  the rules file whose places the phone gets"))
        #expect(try GeofenceCommand.run(["waypoints", "--help"]).stdout == help.stdout)
        let broken = try TemporaryDirectory()
        try broken.write("rules.yaml", "places:\n  home: { center: [91, 0], radius: 150 }\n")
        let invalid = try GeofenceCommand.run(["waypoints", broken.file("rules.yaml")])
        #expect(invalid.status == 1)
        #expect(invalid.stderr.contains("rules.yaml:2:"))
    }
}
