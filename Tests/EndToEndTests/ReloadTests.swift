import Foundation
import TestSupport
import GeofenceRuntime
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension EndToEnd {
    /// Issue 6, promise 6: SIGHUP with a broken rules file keeps the old rules running and logs
    /// why the reload failed; SIGHUP after the file is fixed brings in the new rules, which fire
    /// for what comes next, with the place states carried over (no false event at the reload).
    @Test func reloadWithBrokenRulesKeepsTheOldRulesAndAFixedFileTakesOver() throws {
        let scratch = try TemporaryDirectory("reload")
        func rules(_ prefix: String) -> String {
            var text = "timezone: Europe/London\n" + DayFixtures.places + "\nrules:\n"
            for trigger in DayFixtures.triggers {
                text += "  - { name: \(prefix) \(trigger), on: \(trigger), log: actions.ndjson }\n"
            }
            return text
        }
        try scratch.write("rules.yaml", rules("old"))
        let day = try DayFixtures.day(in: scratch)
        try scratch.write("whole-day.ndjson", day.joined(separator: "\n") + "\n")
        let replayed = try DayFixtures.replay(
            rules: scratch.file("rules.yaml"), input: scratch.file("whole-day.ndjson"), in: scratch)
        let expectedRules = replayed.compactMap {
            $0["type"] as? String == "action" ? $0["rule"] as? String : nil
        }
        try #require(expectedRules.count == 10)

        // 10:00 and 14:00: two departures before the first, four more before the second.
        let firstCut = try #require(day.firstIndex { $0.contains("\"2026-03-03T10:00:00Z\"") })
        let secondCut = try #require(day.firstIndex { $0.contains("\"2026-03-03T14:00:00Z\"") })
        let fixes = scratch.file("fixes.ndjson")
        try scratch.write("fixes.ndjson", day[..<firstCut].joined(separator: "\n") + "\n")
        let run = try GeofenceProcess(
            [
                "run", "rules.yaml", "--input", fixes, "--follow", "--history", "--state",
                scratch.file("state"),
            ],
            in: scratch.path, name: "run")
        let log = scratch.file("actions.ndjson")
        func logged() -> [String] {
            TemporaryDirectory.lines(log).compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["rule"]
                    as? String
            }
        }
        try waitUntil("the first two actions") { logged().count >= 2 }

        try scratch.write(
            "rules.yaml", rules("new").replacingOccurrences(of: "on: enter gym", with: "on: enter gyn"))
        run.send(SIGHUP)
        try waitUntil("the failed reload in the log\n\(run.stderr)") {
            run.stderr.contains("the new rules were not loaded; the old rules keep running")
        }
        #expect(run.stderr.contains("unknown place \"gyn\""), "the log says why:\n\(run.stderr)")
        try TemporaryDirectory.append(day[firstCut..<secondCut].joined(separator: "\n") + "\n", to: fixes)
        try waitUntil("six actions by the old rules") { logged().count >= 6 }

        try scratch.write("rules.yaml", rules("new"))
        run.send(SIGHUP)
        try waitUntil("the reload\n\(run.stderr)") { run.stderr.contains("rules reloaded:") }
        try TemporaryDirectory.append(day[secondCut...].joined(separator: "\n") + "\n", to: fixes)
        try waitUntil("all ten actions") { logged().count >= 10 }
        run.send(SIGTERM)
        let ended = try run.waitForExit()
        #expect(!ended.signaled && ended.status == 0, "stderr:\n\(run.stderr)")

        let oldThenNew = expectedRules.enumerated().map { index, rule in
            index < 6 ? rule : "new " + rule.dropFirst("old ".count)
        }
        #expect(logged() == oldThenNew)
        let store = try Store(directory: scratch.file("state"))
        defer { store.close() }
        let failure = try store.log().first { $0.kind == "rules-reload-failed" }
        #expect(failure?.message.contains("unknown place \"gyn\"") == true)
    }
}

extension EndToEnd {
    /// A SIGHUP reload of a rules file nested 40,000 deep (80 KB), which once overflowed the stack
    /// and killed the run, is refused with a diagnostic; the run goes on with the old rules and
    /// stops cleanly.
    @Test func reloadingRulesNestedFortyThousandDeepKeepsTheRunGoing() throws {
        let scratch = try TemporaryDirectory("reload-deep")
        try scratch.write("rules.yaml", "timezone: Europe/London\n" + DayFixtures.places + "\nrules: []\n")
        try scratch.write("fixes.ndjson", "")
        let run = try GeofenceProcess(
            ["run", "rules.yaml", "--input", "fixes.ndjson", "--follow", "--state", scratch.file("state")],
            in: scratch.path, name: "run")
        try waitUntil("the input to open\n\(run.stderr)") {
            run.stderr.contains("input fixes.ndjson: opened")
        }
        let depth = 40_000
        try scratch.write(
            "rules.yaml", String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "\n")
        run.send(SIGHUP)
        try waitUntil("the failed reload in the log\n\(run.stderr)") {
            run.stderr.contains("the new rules were not loaded; the old rules keep running")
        }
        #expect(run.stderr.contains("nesting deeper than 64 levels"), "stderr:\n\(run.stderr)")
        run.send(SIGTERM)
        let ended = try run.waitForExit()
        #expect(!ended.signaled && ended.status == 0, "stderr:\n\(run.stderr)")
    }
}
