import Foundation
import TestSupport
import GeofenceRuntime
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension EndToEnd {
    /// Issue 6, promise 3: a hook that sleeps for ever (ignoring SIGTERM), one that exits 1, one
    /// that prints 10 MB and one that leaves a child running that holds its output: the run goes
    /// on, evaluates the rest of the day while the first still hangs, logs each, records each
    /// outcome in the outbox, and ends with status 0.
    @Test func misbehavingHooksNeitherStopNorStallTheRun() throws {
        let scratch = try TemporaryDirectory("hooks")
        try scratch.write("hang.sh", "#!/bin/sh\ntrap '' TERM\nwhile :; do sleep 1; done\n", executable: true)
        try scratch.write("fail.sh", "#!/bin/sh\necho 'failing on purpose' >&2\nexit 1\n", executable: true)
        try scratch.write("loud.sh", "#!/bin/sh\nhead -c 10485760 /dev/zero | tr '\\0' x\n", executable: true)
        try scratch.write(
            "forker.sh", "#!/bin/sh\nsleep 300 &\necho $! >> children.txt\necho forked\n", executable: true)
        try scratch.write("hook.sh", appendEventIDHook, executable: true)
        var rules = "timezone: Europe/London\n" + DayFixtures.places + "\nrules:\n"
        rules += """
              - { name: hang, on: exit home, run: [./hang.sh], timeout: 10s }
              - { name: fail, on: enter work, run: [./fail.sh], timeout: 30s }
              - { name: loud, on: exit work, run: [./loud.sh], timeout: 60s }
              - { name: forker, on: enter lunch, run: [./forker.sh], timeout: 30s }

            """
        for trigger in DayFixtures.triggers {
            rules +=
                "  - { name: record \(trigger), on: \(trigger), run: [./hook.sh, hooks.txt], log: true }\n"
        }
        try scratch.write("rules.yaml", rules)
        try scratch.write("fixes.ndjson", try DayFixtures.day(in: scratch).joined(separator: "\n") + "\n")
        let replayed = try DayFixtures.replay(
            rules: scratch.file("rules.yaml"), input: scratch.file("fixes.ndjson"), in: scratch)
        let recorded = DayFixtures.hookIDs(replayed, rulePrefix: "record ")
        func ids(_ rule: String) -> [String] { DayFixtures.hookIDs(replayed, rulePrefix: rule) }
        let (hang, fail, loud, forker) = (ids("hang"), ids("fail"), ids("loud"), ids("forker"))
        try #require(hang.count == 1 && fail.count >= 1 && loud.count >= 1 && forker.count == 1)
        defer {
            for pid in TemporaryDirectory.lines(scratch.file("children.txt")).compactMap({ pid_t($0) }) {
                kill(pid, SIGKILL)
            }
        }

        let state = scratch.file("state")
        let run = try GeofenceProcess(
            ["run", "rules.yaml", "--input", "fixes.ndjson", "--history", "--state", state], in: scratch.path,
            name: "run")
        let ended = try run.waitForExit(seconds: 90)
        let stderr = run.stderr
        #expect(!ended.signaled && ended.status == 0, "stderr:\n\(stderr)")
        #expect(TemporaryDirectory.lines(scratch.file("hooks.txt")).sorted() == recorded.sorted())
        #expect(processes(mentioning: scratch.path, "hang.sh").isEmpty, "the hanging hook's group was killed")

        let store = try Store(directory: state)
        defer { store.close() }
        func outcome(_ id: String) throws -> (action: OutboxAction, result: [String: Any]) {
            let action = try #require(try store.action(id: id))
            let json = Data((action.resultJSON ?? "{}").utf8)
            return (action, try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any]))
        }

        let hung = try outcome(hang[0])
        #expect(hung.action.status == .failed)
        #expect(hung.result["timed_out"] as? Bool == true)
        #expect(hung.result["signal"] as? Int == Int(SIGKILL), "SIGTERM is ignored, so SIGKILL ends it")
        #expect(stderr.contains("hook \(hang[0]) (./hang.sh): timed out"))
        // While it hung, the rest of the day was evaluated and its hooks ran to the end.
        let hungAt = try #require(hung.action.finishedAt)
        for id in recorded {
            let finished = try #require(try outcome(id).action.finishedAt)
            #expect(finished < hungAt, "\(id) waited for the hanging hook")
        }

        for id in fail {
            let failed = try outcome(id)
            #expect(failed.action.status == .failed)
            #expect(failed.result["exit_status"] as? Int == 1)
            #expect(failed.result["stderr"] as? String == "failing on purpose\n")
            #expect(stderr.contains("hook \(id) (./fail.sh): exited with status 1"))
        }
        for id in loud {
            let printed = try outcome(id)
            #expect(printed.action.status == .done)
            #expect(printed.result["stdout_bytes"] as? Int == 10_485_760)
            #expect(printed.result["stdout_truncated"] as? Bool == true)
            #expect(stderr.contains("hook \(id) (./loud.sh): exited with status 0"))
        }
        let forked = try outcome(forker[0])
        #expect(forked.action.status == .done)
        #expect(forked.result["stdout"] as? String == "forked\n")
        #expect(stderr.contains("hook \(forker[0]) (./forker.sh): exited with status 0"))
        #expect(
            !TemporaryDirectory.lines(scratch.file("children.txt")).isEmpty, "the forker's child was started")

        // Every event of the day is stored, as replay has them.
        #expect(try store.events().map(\.id).sorted() == DayFixtures.eventIDs(replayed).sorted())
    }
}
