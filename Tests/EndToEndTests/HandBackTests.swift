import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension EndToEnd {
    /// Issue 10: without `--follow`, a SIGTERM that comes after the inputs ended, while queued
    /// hooks wait for a slot, does not wait for all of them: the running hook gets the grace
    /// period, then it and the queued ones are handed back, and the run ends with status 0.
    @Test func sigtermAfterTheInputsEndedHandsBackQueuedHooks() throws {
        let scratch = try TemporaryDirectory("handback")
        // Notes that it started, then waits far longer than any test (not exec'd, so that its
        // command line names the scratch folder for the check that it was stopped).
        try scratch.write(
            "slow.sh", "#!/bin/sh\nprintf '%s\\n' \"$GEOFENCE_EVENT_ID\" >> started.txt\nsleep 1000\n",
            executable: true)
        try scratch.write("rules.yaml", DayFixtures.hookRules(hook: "./slow.sh"))
        try scratch.write("fixes.ndjson", try DayFixtures.day(in: scratch).joined(separator: "\n") + "\n")
        let run = try GeofenceProcess(
            [
                "run", "rules.yaml", "--input", "fixes.ndjson", "--history", "--fire-history", "--hooks", "1", "--grace", "1s",
                "--state", scratch.file("state"),
            ], in: scratch.path, name: "run")
        defer {
            for pid in processes(mentioning: scratch.path, "slow.sh") { kill(pid, SIGKILL) }
        }
        try waitUntil("the inputs to end with a hook running\n\(run.stderr)") {
            run.stderr.contains("every input has ended")
                && !TemporaryDirectory.lines(scratch.file("started.txt")).isEmpty
        }
        run.send(SIGTERM)
        let ended = try run.waitForExit(seconds: 90)
        let stderr = run.stderr
        #expect(!ended.signaled && ended.status == 0, "stderr:\n\(stderr)")
        #expect(stderr.contains("stopped and handed back"), "\(stderr)")
        #expect(stderr.contains("not started; handed back"), "queued hooks handed back:\n\(stderr)")
        #expect(
            TemporaryDirectory.lines(scratch.file("started.txt")).count == 1, "one slot, one hook started")
        try waitUntil("the running hook's group to be stopped") {
            processes(mentioning: scratch.path, "slow.sh").isEmpty
        }
    }
}
