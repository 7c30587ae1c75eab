import Foundation
import TestSupport
import GeofenceRuntime
import Testing
import GeofenceSimulation

#if canImport(Glibc)
    import Glibc
#endif

extension EndToEnd {
    /// Issue 6, promise 2: killed with SIGKILL at random points (seeded) while replaying three
    /// devices' synthetic days into a hook, and restarted, ten times: every expected id reaches
    /// the hook, and an id whose outbox row was marked done before a kill is never run again.
    /// A repeat is allowed only for an attempt the kill interrupted (at-least-once), so no id
    /// appears more often than its outbox row counts attempts.
    @Test func killedAndRestartedTenTimesEveryHookRunsAndNoFinishedOneRepeats() throws {
        let scratch = try TemporaryDirectory("crash")
        // Sleeps first, so that kills often land while hooks run; writes its id, then exits.
        try scratch.write(
            "hook.sh", "#!/bin/sh\nsleep 0.2\nprintf '%s\\n' \"$GEOFENCE_EVENT_ID\" >> \"$1\"\n",
            executable: true)
        try scratch.write("rules.yaml", DayFixtures.hookRules(hook: "./hook.sh", arguments: ["hooks.txt"]))
        let devices = ["phone", "watch", "car"]
        let days = try (1...devices.count).map { try DayFixtures.day(seed: $0, in: scratch) }
        var lines: [String] = []
        for index in days[0].indices {
            for (device, day) in zip(devices, days) where index < day.count {
                lines.append(DayFixtures.withDevice(day[index], device))
            }
        }
        try scratch.write("fixes.ndjson", lines.joined(separator: "\n") + "\n")
        let replayed = try DayFixtures.replay(
            rules: scratch.file("rules.yaml"), input: scratch.file("fixes.ndjson"), in: scratch)
        let expected = DayFixtures.hookIDs(replayed)
        try #require(expected.count >= 24, "every device cross every boundary")

        let hookFile = scratch.file("hooks.txt")
        let state = scratch.file("state")
        let arguments = [
            "run", "rules.yaml", "--input", "fixes.ndjson", "--history", "--fire-history", "--state", state,
            "--hooks", "1",
        ]
        var random = SeededGenerator(seed: 6)
        /// For each kill: the ids done by then, and how often each appeared in the hook file then.
        var finishedAtKill: [(done: Set<String>, counts: [String: Int])] = []

        for attempt in 0..<10 {
            let run = try GeofenceProcess(arguments, in: scratch.path, name: "run\(attempt)")
            // A third of the kills count from the start (some land while the outbox's leftovers
            // are re-run), a third from the moment the input is open, and a third from the moment
            // this run has finished two hooks, so that a slow start (a busy machine, a sanitizer's
            // slowdown) cannot leave every kill before any hook is done.
            let hooksBefore = TemporaryDirectory.lines(hookFile).count
            switch Int.random(in: 0..<3, using: &random) {
            case 0:
                break
            case 1:
                try waitUntil("the input to be opened\n\(run.stderr)") {
                    run.stderr.contains("input fixes.ndjson: ")
                }
            default:
                try waitUntil("two hooks of this run to finish\n\(run.stderr)", seconds: 120) {
                    TemporaryDirectory.lines(hookFile).count >= hooksBefore + 2 || !run.process.isRunning
                }
            }
            usleep(UInt32.random(in: 20_000...700_000, using: &random))
            run.send(SIGKILL)
            try run.waitForExit()
            // Hooks run in process groups of their own, so they outlive the kill; let them end
            // before counting what they wrote.
            try waitUntil("hooks of the killed run to end") {
                processes(mentioning: scratch.path, "hook.sh").isEmpty
            }
            let store = try Store(directory: state)
            let done = try Set(expected.filter { try store.action(id: $0)?.isFinished ?? false })
            store.close()
            finishedAtKill.append((done, occurrences(TemporaryDirectory.lines(hookFile))))
        }

        let last = try GeofenceProcess(arguments, in: scratch.path, name: "final")
        let ended = try last.waitForExit()
        #expect(!ended.signaled && ended.status == 0, "stderr:\n\(last.stderr)")

        let counts = occurrences(TemporaryDirectory.lines(hookFile))
        #expect(Set(counts.keys) == Set(expected), "exactly the expected ids reached the hook")
        for (index, kill) in finishedAtKill.enumerated() {
            for id in kill.done {
                #expect(counts[id] == kill.counts[id], "\(id) was done at kill \(index + 1) and ran again")
            }
        }
        let store = try Store(directory: state)
        defer { store.close() }
        for id in expected {
            let action = try #require(try store.action(id: id))
            #expect(action.status == .done, "\(id)")
            #expect((counts[id] ?? 0) <= action.attempts, "\(id) ran more often than it was started")
        }
        // Nor did a restart invent an event: the store holds exactly replay's events.
        #expect(try store.events().map(\.id).sorted() == DayFixtures.eventIDs(replayed).sorted())
        // The kills did land in the middle of things, or this test proves little.
        #expect(finishedAtKill.contains { !$0.done.isEmpty && $0.done.count < expected.count })
    }
}
