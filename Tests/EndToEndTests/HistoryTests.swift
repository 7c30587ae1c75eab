import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension EndToEnd {
    /// Issue 12: following a file that already holds a day of history builds the state from it
    /// but fires none of its actions (each is recorded as skipped, with the reason); the first
    /// live arrival after it fires.
    @Test func followingAFileWithADayOfHistoryFiresNothingFromItAndFiresTheFirstLiveArrival() throws {
        let scratch = try TemporaryDirectory("history")
        try scratch.write(
            "hook.sh",
            """
            #!/bin/sh
            echo "$GEOFENCE_TRANSITION $GEOFENCE_PLACE" >> fired.txt

            """, executable: true)
        try scratch.write("rules.yaml", DayFixtures.hookRules(hook: "./hook.sh"))
        let day = try DayFixtures.day(in: scratch)
        try scratch.write("fixes.ndjson", day.joined(separator: "\n") + "\n")
        let historyHooks = DayFixtures.hookIDs(
            try DayFixtures.replay(
                rules: scratch.file("rules.yaml"), input: scratch.file("fixes.ndjson"), in: scratch))
        try #require(
            historyHooks.count == 10, "the day crosses every fence, work four times: \(historyHooks.count)")

        let run = try GeofenceProcess(
            ["run", "rules.yaml", "--input", "fixes.ndjson", "--follow", "--state", "state"],
            in: scratch.path,
            name: "run")
        defer { run.send(SIGKILL) }
        func actions() throws -> [[String: Any]] {
            let listing = try GeofenceProcess.run(
                ["actions", "--state", "state"], in: scratch.path, name: "actions")
            return listing.stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
        try waitUntil("the day's actions recorded") { (try? actions().count) == historyHooks.count }
        try waitUntil("the caught-up line") { run.stderr.contains("input fixes.ndjson: caught up (read ") }
        #expect(run.stderr.contains("lines of history in"))
        #expect(run.stderr.contains("now live, new lines fire the rules"))
        #expect(!run.stderr.contains("\r"), "no progress line when standard error is not a terminal")
        let recorded = try actions()
        #expect(recorded.allSatisfy { $0["status"] as? String == "skipped" }, "\(recorded)")
        #expect(recorded.allSatisfy { ($0["error"] as? String)?.hasPrefix("history: ") == true })
        #expect(Set(recorded.compactMap { $0["id"] as? String }) == Set(historyHooks))
        // The events are stored with their true dates all the same.
        let events = try GeofenceProcess.run(
            ["events", "--state", "state"], in: scratch.path, name: "events")
        #expect(events.stdout.split(separator: "\n").count >= 8)
        #expect(events.stdout.contains("2026-03-03T"))

        // Live: the phone, at home at the end of the day, is now at work: fixes every 10 s over the
        // last 90 s, written as a tracker appends them.
        let now = Date().timeIntervalSince1970
        var live: [String] = []
        for step in 0..<10 {
            let milliseconds = Int64((now - 90 + Double(step) * 10) * 1000)
            live.append(
                #"{"latitude":51.500678,"longitude":-0.052595,"timestamp":\#(milliseconds),"horizontalAccuracy":10}"#
            )
        }
        try TemporaryDirectory.append(live.joined(separator: "\n") + "\n", to: scratch.file("fixes.ndjson"))
        try waitUntil("the live arrival's hook") {
            TemporaryDirectory.lines(scratch.file("fired.txt")).count == 2
        }
        #expect(TemporaryDirectory.lines(scratch.file("fired.txt")).sorted() == ["enter work", "exit home"])
        run.send(SIGTERM)
        let ended = try run.waitForExit()
        #expect(ended.status == 0, "\(run.stderr)")
        #expect(TemporaryDirectory.lines(scratch.file("fired.txt")).count == 2, "nothing from the day fired")
        #expect(run.stderr.contains("not firing actions for events in the past"))
        #expect(run.stderr.contains("10 action(s) for past events were recorded as skipped"))
        let finished = try actions()
        #expect(finished.filter { $0["status"] as? String == "done" }.count == 2)
    }

    /// `--fire-history` fires what history would have fired, for imports that want it.
    @Test func fireHistoryFiresTheActionsOfPastEvents() throws {
        let scratch = try TemporaryDirectory("fire-history")
        try scratch.write("rules.yaml", DayFixtures.hookRules(hook: "/bin/true"))
        try scratch.write("fixes.ndjson", try DayFixtures.day(in: scratch).joined(separator: "\n") + "\n")
        for (state, flags, status) in [("skip", [String](), "skipped"), ("fire", ["--fire-history"], "done")]
        {
            let run = try GeofenceProcess.run(
                ["run", "rules.yaml", "--input", "fixes.ndjson", "--history", "--state", state] + flags,
                in: scratch.path, name: state)
            #expect(run.status == 0, "\(run.stderr)")
            let listing = try GeofenceProcess.run(
                ["actions", "--state", state], in: scratch.path, name: state + "-a")
            let statuses = listing.stdout.split(separator: "\n").map { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["status"]
                    as? String
            }
            #expect(statuses.count == 10)
            #expect(statuses.allSatisfy { $0 == status }, "\(state): \(statuses)")
        }
    }
}

extension EndToEnd {
    /// On a terminal, a long read of history draws a progress line (position, rate, time left)
    /// that rewrites itself, and the caught-up line follows it. `script` gives the run a terminal.
    @Test func aProgressLineIsDrawnOnATerminalWhileHistoryIsRead() throws {
        let scratch = try TemporaryDirectory("progress")
        try scratch.write("rules.yaml", DayFixtures.hookRules(hook: "/bin/true"))
        // More lines than the run's queue holds (20,000), so the history is read in at least two
        // turns of the loop and the progress line is drawn between them however fast the reader
        // is (at a fix every 10 s, the whole day could fit in one turn and be caught up at once).
        try scratch.write(
            "fixes.ndjson", try DayFixtures.day(interval: "2s", in: scratch).joined(separator: "\n") + "\n")
        let executable = try GeofenceCommand.executable().path
        let script = Process()
        script.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        let command =
            "exec timeout 120 \(executable) run rules.yaml --input fixes.ndjson --follow --state \(scratch.file("state"))"
            + " > /dev/null"
        script.arguments = ["-qfc", command, scratch.file("terminal.log")]
        script.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
        script.standardInput = FileHandle.nullDevice
        script.standardOutput = FileHandle.nullDevice
        script.standardError = FileHandle.nullDevice
        try script.run()
        defer {
            if script.isRunning { kill(script.processIdentifier, SIGKILL) }
            for pid in processes(mentioning: scratch.path, "fixes.ndjson") { kill(pid, SIGKILL) }
        }
        try waitUntil("the caught-up line on the terminal") {
            TemporaryDirectory.read(scratch.file("terminal.log")).contains("caught up (read ")
        }
        let screen = TemporaryDirectory.read(scratch.file("terminal.log"))
        #expect(screen.contains("\r\u{1B}[Kreading history: fixes.ndjson "))
        #expect(screen.contains(" lines/s, about "))
        for pid in processes(mentioning: scratch.path, "fixes.ndjson") { kill(pid, SIGTERM) }
        try waitUntil("script to end") { !script.isRunning }
    }
}
