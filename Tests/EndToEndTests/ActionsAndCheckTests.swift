import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension EndToEnd {
    /// Issue 12: `check` warns about a hook program that is missing or not executable and about a
    /// `log:` directory that does not exist, without failing; a file with none has no warning.
    @Test func checkWarnsAboutHooksAndLogPathsThatCannotWork() throws {
        let scratch = try TemporaryDirectory("check-warn")
        try scratch.write("not-executable.sh", "#!/bin/sh\n")
        try scratch.write("fine.sh", "#!/bin/sh\n", executable: true)
        try scratch.write(
            "rules.yaml",
            """
            timezone: Europe/London
            \(DayFixtures.places)
            rules:
              - name: missing
                on: enter home
                run: [./missing.sh]
              - name: not executable
                on: exit home
                run: [./not-executable.sh]
              - name: not on path
                on: enter work
                run: [no-such-program-anywhere]
              - name: new log folder
                on: exit work
                log: logs/commutes.ndjson
              - name: fine
                on: enter gym
                run: [./fine.sh]
                log: gym.ndjson

            """)
        let result = try GeofenceProcess.run(["check", "rules.yaml"], in: scratch.path, name: "check")
        #expect(result.status == 0, "warnings do not fail the check: \(result.stderr)")
        let warnings = result.stderr.split(separator: "\n").map(String.init)
        #expect(warnings.count == 4, "\(warnings)")
        #expect(
            warnings.contains {
                $0.hasPrefix("rules.yaml:") && $0.contains("rule 'missing'")
                    && $0.contains("missing.sh does not exist")
            })
        #expect(warnings.contains { $0.contains("rule 'not executable'") && $0.contains("chmod +x") })
        #expect(
            warnings.contains {
                $0.contains("rule 'not on path'") && $0.contains("'no-such-program-anywhere' is not on PATH")
            })
        #expect(
            warnings.contains {
                $0.contains("rule 'new log folder'") && $0.contains("logs does not exist")
                    && $0.contains("the run creates it")
            })
        #expect(!result.stderr.contains("rule 'fine'"))

        try scratch.write("clean.yaml", DayFixtures.hookRules(hook: "./fine.sh"))
        let clean = try GeofenceProcess.run(["check", "clean.yaml"], in: scratch.path, name: "clean")
        #expect(clean.status == 0)
        #expect(clean.stderr.isEmpty, "\(clean.stderr)")
    }

    /// Issue 12: `geofence actions` shows what fired and how it ended: a failed hook with its
    /// exit status and its output, as NDJSON, as a table, and with `--failed` alone.
    @Test func actionsListsAFailedHookWithItsOutput() throws {
        let scratch = try TemporaryDirectory("actions")
        try scratch.write(
            "lamp.sh",
            """
            #!/bin/sh
            echo "switching the lamp for $GEOFENCE_TRANSITION $GEOFENCE_PLACE"
            if [ "$GEOFENCE_PLACE" = work ]; then echo "lamp unreachable: timeout" >&2; exit 3; fi

            """, executable: true)
        try scratch.write(
            "rules.yaml",
            """
            timezone: Europe/London
            \(DayFixtures.places)
            rules:
              - name: lamp
                on: enter work
                run: [./lamp.sh]
              - name: leaving
                on: exit home
                run: [./lamp.sh]
              - name: arrival note
                on: enter gym
                log: gym.ndjson

            """)
        try scratch.write("day.ndjson", try DayFixtures.day(in: scratch).joined(separator: "\n") + "\n")
        let run = try GeofenceProcess.run(
            [
                "run", "rules.yaml", "--input", "day.ndjson", "--history", "--fire-history", "--state",
                "state",
            ], in: scratch.path,
            name: "run")
        #expect(run.status == 0, "\(run.stderr)")
        // `run` says how each hook ended, under its action line, with a failure's last error line.
        #expect(
            run.stdout.contains(
                "<- [lamp] ./lamp.sh: exited with status 3 after "), "\(run.stdout)")
        #expect(run.stdout.contains(": lamp unreachable: timeout\n"))
        #expect(run.stdout.contains("<- [leaving] ./lamp.sh: exited with status 0 after "))
        #expect(run.stderr.contains("summary: "))
        #expect(run.stderr.contains("4 actions: 2 succeeded, 2 failed, 0 skipped as history"))

        let all = try GeofenceProcess.run(["actions", "--state", "state"], in: scratch.path, name: "all")
        #expect(all.status == 0, "\(all.stderr)")
        let objects = try all.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        // Leaving home, arriving at work twice (morning and after lunch), arriving at the gym.
        #expect(objects.count == 4)
        #expect(objects.map { $0["status"] as? String } == ["done", "failed", "failed", "done"])
        let failed = try #require(objects.first { $0["status"] as? String == "failed" })
        let result = try #require(failed["result"] as? [String: Any])
        #expect(result["exit_status"] as? Int == 3)
        #expect((result["stderr"] as? String)?.contains("lamp unreachable: timeout") == true)
        #expect((result["stdout"] as? String)?.contains("switching the lamp for enter work") == true)
        #expect(failed["attempts"] as? Int == 1)
        #expect((failed["error"] as? String)?.contains("exited with status 3") == true)
        #expect((failed["action"] as? [String: Any])?["rule"] as? String == "lamp")

        let table = try GeofenceProcess.run(
            ["actions", "--state", "state", "--failed", "--table", "--time-zone", "Europe/London"],
            in: scratch.path, name: "table")
        let lines = table.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("fired (Europe/London)") == true, "\(lines)")
        #expect(lines.count == 7, "a header, then each failed hook with its stdout and stderr: \(lines)")
        #expect(lines.dropFirst().first?.contains("lamp  run ./lamp.sh  enter work  failed  1") == true)
        #expect(lines.contains("    stderr| lamp unreachable: timeout"))
        #expect(lines.contains("    stdout| switching the lamp for enter work"))
    }

    /// Issue 12: `geofence actions --follow` prints what a run writes while it runs, like
    /// `journalctl -f`, until it is stopped.
    @Test func actionsFollowPrintsActionsAsARunWritesThem() throws {
        let scratch = try TemporaryDirectory("actions-follow")
        try scratch.write("rules.yaml", DayFixtures.hookRules(hook: "/bin/true"))
        let day = try DayFixtures.day(in: scratch)
        let half = day.count / 4  // the morning: leaving home only
        try scratch.write("morning.ndjson", day[..<half].joined(separator: "\n") + "\n")
        try scratch.write("rest.ndjson", day[half...].joined(separator: "\n") + "\n")
        let morning = try GeofenceProcess.run(
            [
                "run", "rules.yaml", "--input", "morning.ndjson", "--history", "--fire-history", "--state",
                "state",
            ],
            in: scratch.path, name: "morning")
        #expect(morning.status == 0, "\(morning.stderr)")
        let before = try GeofenceProcess.run(
            ["actions", "--state", "state"], in: scratch.path, name: "before")
        let earlier = before.stdout.split(separator: "\n").count
        #expect(earlier >= 1)

        let follower = try GeofenceProcess(
            ["actions", "--state", "state", "--follow", "--limit", "1000"], in: scratch.path, name: "follow")
        defer { follower.send(SIGKILL) }
        try waitUntil("the follower's first listing") {
            follower.stdout.split(separator: "\n").count == earlier
        }
        let rest = try GeofenceProcess.run(
            [
                "run", "rules.yaml", "--input", "rest.ndjson", "--history", "--fire-history", "--state",
                "state",
            ],
            in: scratch.path, name: "rest")
        #expect(rest.status == 0, "\(rest.stderr)")
        let after = try GeofenceProcess.run(["actions", "--state", "state"], in: scratch.path, name: "after")
        let total = after.stdout.split(separator: "\n").count
        #expect(total > earlier)
        // Each new action appears at least once finished ("done"); pending states may show too.
        try waitUntil("the follower to print every finished action") {
            follower.stdout.split(separator: "\n").filter { $0.contains("\"status\":\"done\"") }.count
                == total
        }
        #expect(follower.process.isRunning, "following does not stop at the end")
    }
}
