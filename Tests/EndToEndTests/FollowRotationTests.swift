import Foundation
import TestSupport
import Testing
import GeofenceSimulation

#if canImport(Glibc)
    import Glibc
#endif

extension EndToEnd {
    /// Issue 6, promise 1: following a file that another process appends to in pieces that cut
    /// lines anywhere, rotated in the middle (renamed, written a little more, then a new file at
    /// the path), every hook runs exactly once, with the ids replay gives for the same day.
    @Test func followingARotatedFileRunsEveryHookExactlyOnce() throws {
        let scratch = try TemporaryDirectory("rotate")
        try scratch.write("hook.sh", appendEventIDHook, executable: true)
        try scratch.write("rules.yaml", DayFixtures.hookRules(hook: "./hook.sh", arguments: ["hooks.txt"]))
        let day = try DayFixtures.day(in: scratch)
        try scratch.write("whole-day.ndjson", day.joined(separator: "\n") + "\n")
        let expected = DayFixtures.hookIDs(
            try DayFixtures.replay(
                rules: scratch.file("rules.yaml"), input: scratch.file("whole-day.ndjson"), in: scratch))
        try #require(expected.count >= 8, "the day crosses every place's boundary")

        let fixes = scratch.file("fixes.ndjson")
        try scratch.write("fixes.ndjson", "")
        let run = try GeofenceProcess(
            [
                "run", "rules.yaml", "--input", fixes, "--follow", "--history", "--fire-history", "--state",
                scratch.file("state"),
            ],
            in: scratch.path, name: "run")
        // Rotation is renaming the file the run follows: until the run has opened it, a rename
        // would leave the first half in a file the run never knew (the test's own race, seen under
        // load, when a slow start opened the file only after the rename).
        try waitUntil("the input to open\n\(run.stderr)") {
            run.stderr.contains("input \(fixes): opened (file")
        }

        // The writer appends pieces of arbitrary size, cutting lines anywhere. Midway, logrotate
        // renames the file; the writer finishes the line it was writing in the old file (which it
        // still has open), then goes on in a new file at the path.
        let half = day.count / 2
        let before = Array((day[..<half].joined(separator: "\n") + "\n").utf8)
        let after = Array((day[half...].joined(separator: "\n") + "\n").utf8)
        var random = SeededGenerator(seed: 1)
        func pieces(_ bytes: [UInt8]) -> [String] {
            var result: [String] = []
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + Int.random(in: 1...6000, using: &random))
                result.append(String(decoding: bytes[start..<end], as: UTF8.self))
                start = end
            }
            return result
        }
        let renameAt = before.count * 3 / 4
        for piece in pieces(Array(before[..<renameAt])) {
            try TemporaryDirectory.append(piece, to: fixes)
            usleep(5_000)
        }
        try #require(rename(fixes, fixes + ".1") == 0)
        for piece in pieces(Array(before[renameAt...])) {
            try TemporaryDirectory.append(piece, to: fixes + ".1")
        }
        try scratch.write("fixes.ndjson", "")
        for piece in pieces(after) {
            try TemporaryDirectory.append(piece, to: fixes)
            usleep(5_000)
        }

        let hookFile = scratch.file("hooks.txt")
        try waitUntil("every expected hook id in hooks.txt\n\(run.stderr)") {
            Set(TemporaryDirectory.lines(hookFile)).isSuperset(of: expected)
        }
        run.send(SIGTERM)
        let ended = try run.waitForExit()
        #expect(!ended.signaled && ended.status == 0, "stderr:\n\(run.stderr)")
        #expect(TemporaryDirectory.lines(hookFile).sorted() == expected.sorted())
        #expect(run.stderr.contains("rotated (file"))
        #expect(
            run.stderr.range(of: #"\.ndjson:[0-9]+:"#, options: .regularExpression) == nil,
            "no line was read cut in two:\n\(run.stderr)")
    }
}
