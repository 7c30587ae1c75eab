import Foundation
import TestSupport
import GeofenceRuntime
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension EndToEnd {
    /// Issue 6, promise 7: the state directory is made 0700 and its files 0600 (as is a log file
    /// an action writes), whatever the umask; and a restart after a clean stop resumes at the
    /// stored position, repeats no action and reports no event replay would not report.
    @Test func aRestartAfterACleanStopRepeatsNothingAndStateIsPrivate() throws {
        let scratch = try TemporaryDirectory("restart")
        try scratch.write("hook.sh", appendEventIDHook, executable: true)
        let logRule = "  - { name: left home log, on: exit home, log: actions.ndjson }\n"
        try scratch.write(
            "rules.yaml", DayFixtures.hookRules(hook: "./hook.sh", arguments: ["hooks.txt"], extra: logRule))
        let day = try DayFixtures.day(in: scratch)
        try scratch.write("whole-day.ndjson", day.joined(separator: "\n") + "\n")
        let replayed = try DayFixtures.replay(
            rules: scratch.file("rules.yaml"), input: scratch.file("whole-day.ndjson"), in: scratch)
        let expectedHooks = DayFixtures.hookIDs(replayed)
        let expectedEvents = DayFixtures.eventIDs(replayed)

        // The first half, 07:00 to 14:30, then a clean stop.
        let half = day.count / 2
        let firstHalfHooks = DayFixtures.hookIDs(
            replayed.filter { ($0["date"] as? String ?? "") < "2026-03-03T14:30" })
        try #require(!firstHalfHooks.isEmpty && firstHalfHooks.count < expectedHooks.count)
        try scratch.write("fixes.ndjson", day[..<half].joined(separator: "\n") + "\n")
        let state = scratch.file("not/yet/state")
        let arguments = ["run", "rules.yaml", "--input", "fixes.ndjson", "--history", "--state", state]
        umask(0o022)
        let first = try GeofenceProcess(arguments + ["--follow"], in: scratch.path, name: "first")
        let hookFile = scratch.file("hooks.txt")
        try waitUntil("the first half's hooks\n\(first.stderr)") {
            Set(TemporaryDirectory.lines(hookFile)).isSuperset(of: firstHalfHooks)
        }
        #expect(TemporaryDirectory.mode(state) == 0o700)
        for name in ["geofence.sqlite", "geofence.sqlite-wal", "geofence.sqlite-shm", "lock"] {
            #expect(TemporaryDirectory.mode(state + "/" + name) == 0o600, "\(name)")
        }
        #expect(TemporaryDirectory.mode(scratch.file("actions.ndjson")) == 0o600)
        first.send(SIGTERM)
        let stopped = try first.waitForExit()
        #expect(!stopped.signaled && stopped.status == 0, "stderr:\n\(first.stderr)")
        let printedFirst = first.stdout

        // The whole day in the same file, read again with the same state.
        try TemporaryDirectory.append(
            day[half...].joined(separator: "\n") + "\n", to: scratch.file("fixes.ndjson"))
        let second = try GeofenceProcess(arguments, in: scratch.path, name: "second")
        let ended = try second.waitForExit()
        #expect(!ended.signaled && ended.status == 0, "stderr:\n\(second.stderr)")
        #expect(second.stderr.contains("resumed at line \(half + 1)"), "stderr:\n\(second.stderr)")

        #expect(
            TemporaryDirectory.lines(hookFile).sorted() == expectedHooks.sorted(), "each hook exactly once")
        let store = try Store(directory: state)
        defer { store.close() }
        #expect(try store.events().map(\.id).sorted() == expectedEvents.sorted())
        // Nothing the first run printed is printed again, and no first determination at the restart.
        for line in second.stdout.split(separator: "\n") where line.contains("default") {
            #expect(!printedFirst.contains(line), "printed again: \(line)")
            #expect(!line.contains("first determination"), "a false event at the restart: \(line)")
        }
        #expect(TemporaryDirectory.lines(scratch.file("actions.ndjson")).count == 1)
    }
}

extension EndToEnd {
    /// Issue 6, promise 7, with hooks still running at the stop: SIGTERM gives them `--grace`,
    /// then hands back those still running (stopped with their process groups, left unfinished in
    /// the outbox) and drops those not started; the restart runs each expected hook exactly once.
    @Test func aCleanStopHandsBackRunningHooksAndTheRestartRunsEachOnce() throws {
        let scratch = try TemporaryDirectory("handback")
        // A hook is the leader of its own process group: kill the groups of any left over.
        defer { for pid in processes(mentioning: scratch.path, "hook.sh") { kill(-pid, SIGKILL) } }
        try scratch.write(
            "hook.sh",
            """
            #!/bin/sh
            printf '%s\\n' "$GEOFENCE_EVENT_ID" >> started.txt
            if [ -e slow ]; then sleep 600; fi
            printf '%s\\n' "$GEOFENCE_EVENT_ID" >> "$1"

            """, executable: true)
        try scratch.write("slow", "")
        try scratch.write("rules.yaml", DayFixtures.hookRules(hook: "./hook.sh", arguments: ["hooks.txt"]))
        try scratch.write("fixes.ndjson", try DayFixtures.day(in: scratch).joined(separator: "\n") + "\n")
        let expected = DayFixtures.hookIDs(
            try DayFixtures.replay(
                rules: scratch.file("rules.yaml"), input: scratch.file("fixes.ndjson"), in: scratch))
        let arguments = [
            "run", "rules.yaml", "--input", "fixes.ndjson", "--history", "--state", scratch.file("state"),
            "--hooks", "2",
        ]
        let first = try GeofenceProcess(
            arguments + ["--follow", "--grace", "1s"], in: scratch.path, name: "first")
        try waitUntil("two hooks to start") {
            TemporaryDirectory.lines(scratch.file("started.txt")).count >= 2
        }
        first.send(SIGTERM)
        let stopped = try first.waitForExit()
        #expect(!stopped.signaled && stopped.status == 0, "stderr:\n\(first.stderr)")
        #expect(first.stderr.contains("handed back"), "stderr:\n\(first.stderr)")
        #expect(processes(mentioning: scratch.path, "hook.sh").isEmpty, "no hook of the stopped run lives on")
        #expect(
            TemporaryDirectory.lines(scratch.file("started.txt")).count == 2,
            "no queued hook started after the stop")

        try FileManager.default.removeItem(atPath: scratch.file("slow"))
        let second = try GeofenceProcess(arguments, in: scratch.path, name: "second")
        let ended = try second.waitForExit()
        #expect(!ended.signaled && ended.status == 0, "stderr:\n\(second.stderr)")
        #expect(
            TemporaryDirectory.lines(scratch.file("hooks.txt")).sorted() == expected.sorted(),
            "each hook exactly once")
    }
}
