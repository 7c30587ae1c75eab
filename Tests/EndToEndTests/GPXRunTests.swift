import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// Issue 10: `run` reads a GPX document (not followed) through the same reader as `replay`:
    /// the same hooks run for a real recording, and `--follow` with `--format gpx` is refused.
    @Test func runReadsAGPXDocumentAsReplayDoes() throws {
        let scratch = try TemporaryDirectory("gpxrun")
        let source =
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("GeofenceInputTests/Data/gpx/around-visnjan-with-car.gpx").path
        try scratch.write("track.gpx", TemporaryDirectory.read(source))
        try scratch.write("hook.sh", appendEventIDHook, executable: true)
        // A place on the track's first point: the run starts inside it and leaves.
        let text = TemporaryDirectory.read(source)
        let point = try #require(
            text.range(of: #"lat="[-0-9.]+" lon="[-0-9.]+""#, options: .regularExpression).map {
                text[$0].split(separator: "\"")
            })
        try scratch.write(
            "rules.yaml",
            """
            places:
              start: { center: [\(point[1]), \(point[3])], radius: 200 }
            rules:
              - { name: arrived, on: enter start, run: [./hook.sh, hooks.txt] }
              - { name: left, on: exit start, run: [./hook.sh, hooks.txt] }

            """)
        let expected = DayFixtures.hookIDs(
            try DayFixtures.replay(
                rules: scratch.file("rules.yaml"), input: scratch.file("track.gpx"), in: scratch))
        try #require(!expected.isEmpty, "the track leaves its first point's place")

        let run = try GeofenceProcess.run(
            ["run", "rules.yaml", "--input", "track.gpx", "--fire-history", "--state", scratch.file("state")], in: scratch.path,
            name: "run")
        #expect(run.status == 0, "stderr:\n\(run.stderr)")
        #expect(
            TemporaryDirectory.lines(scratch.file("hooks.txt")).sorted() == expected.sorted(),
            "stderr:\n\(run.stderr)")

        let followed = try GeofenceProcess.run(
            ["run", "rules.yaml", "--input", "track.gpx", "--format", "gpx", "--follow"], in: scratch.path,
            name: "followed")
        #expect(followed.status == 2)
        #expect(followed.stderr.contains("a GPX document is read whole, not followed"), "\(followed.stderr)")
    }
}
