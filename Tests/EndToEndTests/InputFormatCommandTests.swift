import Foundation
import TestSupport
import Testing

/// `replay` and `stays` on the new formats, and their exit status when no fix was read (issue 13).
@Suite struct InputFormatCommandTests {
    private static func formatFile(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../GeofenceInputTests/Data/formats/" + name).standardized.path
    }

    @Test func staysReadsATakeoutExportToldFromItsContent() throws {
        let scratch = try TemporaryDirectory("takeout-stays")
        let result = try GeofenceProcess.run(
            ["stays", Self.formatFile("takeout-records-old.json")], in: scratch.path, name: "stays")
        #expect(result.status == 0, "stderr:\n\(result.stderr)")
        // The two fixes at the same spot 78 minutes apart are a stay: reported when it opens and
        // when it is closed at the end.
        #expect(result.stdout.split(separator: "\n").count == 2, "\(result.stdout)")
        #expect(result.stderr.contains("takeout-records-old.json: 31 lines: 3 fixes"), "\(result.stderr)")
    }

    @Test func replayOfAFileWithNoReadableFixExitsOneAndSaysWhy() throws {
        let scratch = try TemporaryDirectory("no-fix")
        try scratch.write(
            "rules.yaml",
            "places:\n  home: { center: [51.5, -0.12], radius: 150 }\nrules:\n  - { name: a, on: enter home, log: true }\n"
        )
        try scratch.write(
            "waypoints.json",
            #"{"_type":"waypoint","desc":"home","lat":51.5,"lon":-0.12,"rad":150,"tst":1700000000}"# + "\n")
        let result = try GeofenceProcess.run(
            ["replay", "rules.yaml", "waypoints.json"], in: scratch.path, name: "replay")
        #expect(result.status == 1)
        #expect(
            result.stderr.contains(
                "geofence: no fix was read from waypoints.json: its 1 records carry no position (1 waypoint)"),
            "\(result.stderr)")
        #expect(result.stderr.contains("read waypoints.json: 1 line: 0 fixes"), "\(result.stderr)")
    }
}
