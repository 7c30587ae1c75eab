import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension EndToEnd {
    /// Issue 6, promise 1: following a file that another process appends to, rotated in the
    /// middle (renamed, written a little more, then a new file at the path), every hook runs
    /// exactly once, with the ids replay gives for the same day.
    @Test func followingARotatedFileRunsEveryHookExactlyOnce() throws {
        let scratch = try Scratch("rotate")
        try scratch.write("hook.sh", appendEventIDHook, executable: true)
        try scratch.write("rules.yaml", DayFixtures.hookRules(hook: "./hook.sh", arguments: ["hooks.txt"]))
        let day = try DayFixtures.day(in: scratch)
        try scratch.write("whole-day.ndjson", day.joined(separator: "\n") + "\n")
        let expected = DayFixtures.hookIDs(
            try DayFixtures.replay(rules: scratch.file("rules.yaml"), input: scratch.file("whole-day.ndjson"), in: scratch))
        try #require(expected.count >= 8, "the day crosses every place's boundary")

        let fixes = scratch.file("fixes.ndjson")
        try scratch.write("fixes.ndjson", "")
        let run = try GeofenceProcess(
            ["run", "rules.yaml", "--input", fixes, "--follow", "--history", "--state", scratch.file("state")],
            in: scratch.path, name: "run")

        let chunks = stride(from: 0, to: day.count, by: 97).map { Array(day[$0..<min($0 + 97, day.count)]) }
        let middle = chunks.count / 2
        for (index, chunk) in chunks.enumerated() {
            let text = chunk.joined(separator: "\n") + "\n"
            if index == middle {
                // logrotate: rename, the writer finishes what it had open, then a new file.
                try #require(rename(fixes, fixes + ".1") == 0)
                try Scratch.append(text, to: fixes + ".1")
                try scratch.write("fixes.ndjson", "")
            } else {
                try Scratch.append(text, to: fixes)
            }
            usleep(20_000)
        }

        let hookFile = scratch.file("hooks.txt")
        try waitUntil("every expected hook id in hooks.txt\n\(run.stderr)") {
            Set(Scratch.lines(hookFile)).isSuperset(of: expected)
        }
        run.send(SIGTERM)
        let ended = try run.waitForExit()
        #expect(!ended.signaled && ended.status == 0, "stderr:\n\(run.stderr)")
        #expect(Scratch.lines(hookFile).sorted() == expected.sorted())
        #expect(run.stderr.contains("rotated (file"))
    }
}
