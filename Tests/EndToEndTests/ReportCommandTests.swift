import Foundation
import TestSupport
import Testing

/// `geofence report`, run as a user runs it: from a replay, and from what `geofence run` stored.
@Suite struct ReportCommandTests {
    @Test func reportFromAReplayAndFromARunsStoreDrawTheSameEvents() throws {
        let scratch = try TemporaryDirectory("report")
        let exitScript = "#!/bin/sh\nexit 3\n"
        try scratch.write("fails.sh", exitScript, executable: true)
        try scratch.write(
            "rules.yaml",
            "timezone: Europe/London\n" + DayFixtures.places
                + "\nrules:\n  - name: at work\n    on: enter work\n    run: [./fails.sh]\n")
        let day = try DayFixtures.day(interval: "60s", in: scratch)
        try scratch.write("day.ndjson", day.joined(separator: "\n") + "\n")

        let replayed = try GeofenceProcess.run(
            ["report", "rules.yaml", "day.ndjson", "-o", "replay.html"], in: scratch.path,
            name: "report-replay")
        #expect(replayed.status == 0, "\(replayed.stderr)")
        #expect(replayed.stderr.contains("wrote replay.html"))
        let replayPage = try String(contentsOfFile: scratch.file("replay.html"), encoding: .utf8)

        let state = scratch.file("state")
        let run = try GeofenceProcess.run(
            ["run", "rules.yaml", "--input", "day.ndjson", "--history", "--state", state], in: scratch.path,
            name: "run")
        #expect(run.status == 0, "\(run.stderr)")
        let stored = try GeofenceProcess.run(
            ["report", "--state", state, "rules.yaml", "-o", "store.html"], in: scratch.path,
            name: "report-store")
        #expect(stored.status == 0, "\(stored.stderr)")
        let storePage = try String(contentsOfFile: scratch.file("store.html"), encoding: .utf8)

        for page in [replayPage, storePage] {
            for place in ["home", "work", "lunch", "gym"] {
                #expect(page.contains("data-place=\"\(place)\""))
            }
            #expect(!page.contains("http://") && !page.contains("https://"), "nothing is fetched")
        }
        let events = { (page: String) in
            Set(page.components(separatedBy: "data-event=\"").dropFirst().map { String($0.prefix(32)) })
        }
        #expect(events(replayPage).count >= 10)
        #expect(events(replayPage) == events(storePage))
        // The hook ran twice (work is entered twice) and failed both times; the replay ran nothing.
        #expect(storePage.contains("<tr><td>failed</td><td>2</td></tr>"), "\(stored.stderr)")
        #expect(replayPage.contains("<tr><td>run</td><td>0</td></tr>"))
    }

    @Test func reportWithoutInputExplainsItsUsage() throws {
        let scratch = try TemporaryDirectory("report-usage")
        let result = try GeofenceProcess.run(["report", "rules.yaml"], in: scratch.path, name: "report")
        #expect(result.status == 2)
        #expect(result.stderr.contains("usage: geofence report"))
    }
}
