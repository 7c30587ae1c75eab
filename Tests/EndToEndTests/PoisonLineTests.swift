import Foundation
import TestSupport
import GeofenceRuntime
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension EndToEnd {
    /// Issue 10: a line that crashes the engine cannot loop a restart. The line is made to crash
    /// through `GEOFENCE_TEST_CRASH_ON_TEXT`, a test-only environment variable no input can set.
    /// The first run crashes on it; the second retries its batch one line at a time and crashes on
    /// it alone; the third records it as poison, with the signal as its reason, in the store's log,
    /// skips it and reads the rest of the day: every hook replay expects runs.
    @Test func aLineThatCrashesTheEngineIsRetriedOnceThenSkippedAsPoison() throws {
        let scratch = try TemporaryDirectory("crashline")
        try scratch.write("hook.sh", appendEventIDHook, executable: true)
        try scratch.write("rules.yaml", DayFixtures.hookRules(hook: "./hook.sh", arguments: ["hooks.txt"]))
        var day = try DayFixtures.day(in: scratch)
        let poisonLine = day.count / 2 + 1
        day.insert("CRASH-THE-ENGINE-HERE", at: poisonLine - 1)
        try scratch.write("fixes.ndjson", day.joined(separator: "\n") + "\n")
        // Replay skips the line as unreadable (the variable is not set for it).
        let expected = DayFixtures.hookIDs(
            try DayFixtures.replay(
                rules: scratch.file("rules.yaml"), input: scratch.file("fixes.ndjson"), in: scratch))
        try #require(expected.count >= 8, "the day crosses every place's boundary")

        let state = scratch.file("state")
        let arguments = ["run", "rules.yaml", "--input", "fixes.ndjson", "--history", "--fire-history", "--state", state]
        let crashing = ["GEOFENCE_TEST_CRASH_ON_TEXT": "CRASH-THE-ENGINE"]
        let first = try GeofenceProcess(arguments, in: scratch.path, name: "first", environment: crashing)
        let firstEnd = try first.waitForExit(seconds: 120)
        #expect(firstEnd.signaled, "the line crashed the first run:\n\(first.stderr)")

        let second = try GeofenceProcess(arguments, in: scratch.path, name: "second", environment: crashing)
        let secondEnd = try second.waitForExit(seconds: 120)
        #expect(secondEnd.signaled, "the line crashed the retry:\n\(second.stderr)")
        #expect(second.stderr.contains("retrying them one at a time"), "\(second.stderr)")

        let third = try GeofenceProcess(arguments, in: scratch.path, name: "third", environment: crashing)
        let thirdEnd = try third.waitForExit(seconds: 120)
        #expect(!thirdEnd.signaled && thirdEnd.status == 0, "stderr:\n\(third.stderr)")
        #expect(
            third.stderr.contains(
                "fixes.ndjson:\(poisonLine): poison line: the last run crashed with signal"),
            "\(third.stderr)")

        // At least once: a hook the crashes interrupted may have run twice, but every one ran.
        let ran = TemporaryDirectory.lines(scratch.file("hooks.txt"))
        #expect(Set(ran) == Set(expected), "ran \(ran.count), expected \(expected.count)")
        let store = try Store(directory: state)
        let poison = try store.log().filter { $0.kind == "poison-line" }
        store.close()
        #expect(poison.count == 1)
        #expect(poison.first?.message.contains("fixes.ndjson:\(poisonLine):") == true)

        // A fourth start has nothing left to blame: no poison again, nothing retried.
        let fourth = try GeofenceProcess(arguments, in: scratch.path, name: "fourth", environment: crashing)
        let fourthEnd = try fourth.waitForExit(seconds: 120)
        #expect(!fourthEnd.signaled && fourthEnd.status == 0, "stderr:\n\(fourth.stderr)")
        #expect(!fourth.stderr.contains("poison") && !fourth.stderr.contains("retrying"), "\(fourth.stderr)")
    }

    /// Issue 10: a crash that is not a line's fault (SIGKILL) blames no line: the next start reads
    /// the batch again as after any restart, and nothing is retried or skipped.
    @Test func aKilledRunBlamesNoLine() throws {
        let scratch = try TemporaryDirectory("killed")
        try scratch.write("rules.yaml", DayFixtures.hookRules(hook: "/bin/true"))
        try scratch.write("fixes.ndjson", try DayFixtures.day(in: scratch).joined(separator: "\n") + "\n")
        // Lines noted as being processed, as a SIGKILL in the middle of a batch leaves them.
        let state = scratch.file("state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try scratch.write("state/processing", "lines\t1\t3\t3\t0:0\t\(scratch.file("fixes.ndjson"))\n")
        let run = try GeofenceProcess(
            ["run", "rules.yaml", "--input", "fixes.ndjson", "--history", "--fire-history", "--state", state], in: scratch.path,
            name: "run")
        let ended = try run.waitForExit(seconds: 120)
        #expect(!ended.signaled && ended.status == 0, "stderr:\n\(run.stderr)")
        #expect(!run.stderr.contains("poison") && !run.stderr.contains("retrying"), "\(run.stderr)")
    }
}
