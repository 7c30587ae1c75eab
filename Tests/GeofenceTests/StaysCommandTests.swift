import Foundation
import TestSupport
import Testing

@testable import Geofence
import GeofenceSimulation

/// Runs the executable with arguments and standard input, returning its exit status and output.
private func runGeofence(_ arguments: [String], input: String = "") throws -> (
    status: Int32, stdout: String, stderr: String
) {
    let result = try GeofenceCommand.run(arguments, input: input)
    return (result.status, result.stdout, result.stderr)
}

/// End-to-end runs of `geofence simulate day` piped into `geofence stays`.
@Suite
struct StaysCommandTests {
    @Test func simulateWritesTheDayAsNDJSONFixes() throws {
        let result = try runGeofence(["simulate", "day", "--interval", "5m", "--seed", "3"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 181)  // 07:00 through 22:00 every 5 minutes
        let first =
            try JSONSerialization.jsonObject(with: Data(try #require(lines.first).utf8)) as? [String: Any]
        #expect(first?["time"] as? String == "2026-03-03T07:00:00Z")
        #expect(first?["timestamp"] as? Int == 1_772_521_200_000)
        #expect(first?["latitude"] is Double && first?["longitude"] is Double)
        #expect(first?["horizontalAccuracy"] as? Double == 30)
    }

    @Test func staysPrintsTheSameVisitsAsTheLibraryAsNDJSON() throws {
        let simulated = try runGeofence(["simulate", "day", "--outliers", "09:40,10:15,11:05", "--seed", "2"])
        let result = try runGeofence(["stays", "-"], input: simulated.stdout)
        #expect(result.status == 0)
        // No error; only the summary every reading command ends with (issue 13).
        #expect(result.stderr == "geofence: stdin: 901 lines: 901 fixes, 0 moving nothing, 0 unreadable\n")

        let day = SyntheticDay(
            outliers: ["09:40", "10:15", "11:05"].compactMap(SyntheticDay.ClockTime.init(parsing:)), seed: 2)
        var detector = VisitDetector()
        let expected = detector.ingest(day.fixes()) + detector.finish()
        let lines = result.stdout.split(separator: "\n")
        try #require(lines.count == expected.count)
        for (line, visit) in zip(lines, expected) {
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(
                Set(object.keys) == ["arrival", "departure", "latitude", "longitude", "horizontalAccuracy"])
            let arrival = try #require(object["arrival"] as? String)
            #expect(ISO8601DateFormatter().date(from: arrival) == visit.arrival)
            if let departure = visit.departure {
                #expect(ISO8601DateFormatter().date(from: object["departure"] as? String ?? "") == departure)
            } else {
                #expect(object["departure"] is NSNull)
            }
            let latitude = try #require(object["latitude"] as? Double)
            #expect(abs(latitude - visit.coordinate.latitude) < 1e-6)
        }
    }

    @Test func aBadLineIsReportedWithItsNumberAndSkipped() throws {
        let simulated = try runGeofence(["simulate", "day", "--interval", "10m"])
        var lines = simulated.stdout.split(separator: "\n").map(String.init)
        lines.insert("{\"latitude\": 51.5}", at: 3)
        lines.insert("not json", at: 10)
        let result = try runGeofence(["stays", "-"], input: lines.joined(separator: "\n") + "\n")
        #expect(result.status == 0)
        #expect(result.stderr.contains("stdin:4:"))
        #expect(result.stderr.contains("stdin:11:"))
        #expect(result.stdout.split(separator: "\n").count == 12)
    }

    @Test func tableShowsArrivalsAndDeparturesForAPerson() throws {
        let simulated = try runGeofence(["simulate", "day", "--interval", "10m"])
        let result = try runGeofence(
            ["stays", "-", "--table", "--time-zone", "Europe/London"], input: simulated.stdout)
        let rows = result.stdout.split(separator: "\n")
        #expect(rows.count == 13)  // a header and two rows a stay
        // The header names the zone; durations read `2h50m`, never `2:50` (hours or minutes?).
        #expect(rows.first?.contains("arrival (Europe/London)") == true)
        #expect(rows.dropFirst().first?.hasPrefix("arrived 2026-03-03 07:00") == true)
        #expect(rows.last?.hasPrefix("left    2026-03-03 19:10        2026-03-03 22:00 2h50m") == true)
    }

    @Test(arguments: [
        ["stays"], ["stays", "-", "--radius", "wide"], ["stays", "-", "--bogus"], ["simulate", "week"],
    ])
    func badArgumentsExitWithStatusTwo(arguments: [String]) throws {
        let result = try runGeofence(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("geofence: "))
    }

    /// A GPX document is read whole (issue 10: `run` reads it as `replay` does), so following one
    /// is refused at once instead of warning about every line of the document.
    @Test func runRefusesToFollowGPX() throws {
        let result = try runGeofence([
            "run", "rules.yaml", "--input", "track.gpx", "--format", "gpx", "--follow",
        ])
        #expect(result.status == 2)
        #expect(result.stderr.contains("a GPX document is read whole, not followed"))
    }
}
