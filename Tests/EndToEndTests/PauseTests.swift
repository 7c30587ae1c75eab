import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension EndToEnd {
    /// Issue 6, promise 8: with `--pause-after 1s`, a followed file that stops growing fires an
    /// `input paused` rule, and lines coming again fire `input resumed`, once each, in that order.
    @Test func aFollowedFileThatStopsGrowingIsReportedPausedThenResumed() throws {
        let scratch = try TemporaryDirectory("pause")
        try scratch.write(
            "rules.yaml",
            """
            timezone: Europe/London
            places:
              home: { center: [51.5007, -0.1246], radius: 150 }
            rules:
              - { name: went quiet, on: input paused, log: true }
              - { name: came back, on: input resumed, log: true }

            """)
        let day = try DayFixtures.day(in: scratch)
        try scratch.write("fixes.ndjson", day[..<10].joined(separator: "\n") + "\n")
        let run = try GeofenceProcess(
            [
                "run", "rules.yaml", "--input", "fixes.ndjson", "--follow", "--history", "--pause-after",
                "1s",
                "--state", scratch.file("state"),
            ], in: scratch.path, name: "run")
        let paused = "-> [went quiet] log (on input-paused)"
        let resumed = "-> [came back] log (on input-resumed)"
        try waitUntil("the pause\n\(run.stderr)") { run.stdout.contains(paused) }
        #expect(!run.stdout.contains(resumed), "no line came, so nothing resumed")
        #expect(run.stderr.contains("input fixes.ndjson paused: no fix for 1s"))

        try TemporaryDirectory.append(
            day[10..<20].joined(separator: "\n") + "\n", to: scratch.file("fixes.ndjson"))
        try waitUntil("the resumption\n\(run.stderr)") { run.stdout.contains(resumed) }
        run.send(SIGTERM)
        let ended = try run.waitForExit()
        #expect(!ended.signaled && ended.status == 0, "stderr:\n\(run.stderr)")

        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let pausedAt = try #require(lines.firstIndex { $0.hasSuffix(paused) })
        let resumedAt = try #require(lines.firstIndex { $0.hasSuffix(resumed) })
        #expect(pausedAt < resumedAt)
        #expect(lines.filter { $0.hasSuffix(resumed) }.count == 1)
        #expect(run.stderr.contains("input fixes.ndjson resumed"))
        #expect(!lines.contains(""), "run prints no empty lines:\n\(run.stdout)")
    }
}

extension EndToEnd {
    /// A run whose input cannot be read says so and ends with status 1, not 0: a script or a
    /// service manager must be able to tell it failed.
    @Test func anInputThatCannotBeReadEndsTheRunWithStatusOne() throws {
        let scratch = try TemporaryDirectory("missing")
        try scratch.write("rules.yaml", DayFixtures.hookRules(hook: "./hook.sh"))
        let result = try GeofenceProcess.run(
            ["run", "rules.yaml", "--input", "absent.ndjson", "--history", "--state", scratch.file("state")],
            in: scratch.path, name: "run")
        #expect(result.status == 1)
        #expect(result.stderr.contains("error: input absent.ndjson failed: cannot open absent.ndjson"))
        #expect(result.stderr.contains("geofence: stopped with errors"))
    }
}
