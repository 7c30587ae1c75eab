import Foundation
import TestSupport
import Testing

/// The folder of expected outputs (Tests/Golden), written by `Tests/Golden/make-golden.sh` with
/// the build before issue 15's performance work: speed work must not change a byte of them.
/// Rewritten once since, when the engine's times became the nearest millisecond (Foundation's
/// formatter had truncated, writing a fix at `.179` as `.178`): that rewrite was checked line by
/// line to change nothing but 309 times, each exactly one millisecond later.
private let goldenFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Golden").path
private let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path
private let dataFolder = repository + "/Tests/GeofenceInputTests/Data"

/// Replay's output on the synthetic day, on real recordings and on many devices is exactly what it
/// was before the hot path was rewritten, with one thread and with several.
@Suite struct GoldenReplayTests {
    static let cases: [(rules: String, input: String, golden: String)] = [
        (
            repository + "/Rules/commute.yaml", repository + "/Examples/synthetic-day.ndjson",
            "synthetic-day.out"
        ),
        (goldenFolder + "/posmo.yaml", dataFolder + "/posmo_trajectory.csv", "posmo.out"),
        (goldenFolder + "/korita.yaml", dataFolder + "/gpx/korita-zbevnica.gpx", "korita.out"),
        (goldenFolder + "/cerknica.yaml", dataFolder + "/gpx/cerknicko-jezero.gpx", "cerknica.out"),
    ]

    /// `--threads 4` and `6` process devices on two and three shards.
    @Test(arguments: cases.indices, ["1", "2", "4", "6"])
    func replayPrintsExactlyTheGoldenOutput(index: Int, threads: String) throws {
        let (rules, input, golden) = Self.cases[index]
        let scratch = try TemporaryDirectory("golden")
        let expected = TemporaryDirectory.read(goldenFolder + "/" + golden)
        try #require(!expected.isEmpty, "\(golden) is there")
        let result = try GeofenceProcess.run(
            ["replay", rules, input, "--threads", threads], in: scratch.path, name: "replay")
        #expect(result.status == 0, "stderr:\n\(result.stderr)")
        #expect(result.stdout == expected, "\(golden) differs with \(threads) threads")
    }

    /// 24 people's synthetic days at 30 s, tagged with their device and interleaved by time, as
    /// make-golden.sh builds them (with `geofence simulate day`, whose lines must not change either).
    @Test(arguments: ["1", "2", "4", "6"])
    func manyDevicesReplayExactlyAsBefore(threads: String) throws {
        let scratch = try TemporaryDirectory("golden-devices")
        var tagged: [(Int64, Int, String)] = []
        for seed in 1...24 {
            let day = try GeofenceProcess.run(
                ["simulate", "day", "--interval", "30s", "--seed", "\(seed)"], in: scratch.path,
                name: "day\(seed)")
            try #require(day.status == 0, "\(day.stderr)")
            for line in day.stdout.split(separator: "\n") {
                let timestamp = try #require(
                    line.firstRange(of: #/"timestamp":([0-9]+)/#).flatMap { Int64(line[$0].dropFirst(12)) })
                tagged.append((timestamp, seed, "{\"deviceId\":\"person-\(seed)\"," + line.dropFirst()))
            }
        }
        tagged.sort { ($0.0, $0.1) < ($1.0, $1.1) }
        try scratch.write("devices.ndjson", tagged.map { $0.2 + "\n" }.joined())
        let result = try GeofenceProcess.run(
            ["replay", repository + "/Rules/commute.yaml", "devices.ndjson", "--threads", threads],
            in: scratch.path, name: "replay")
        #expect(result.status == 0, "stderr:\n\(result.stderr)")
        let expected = TemporaryDirectory.read(goldenFolder + "/devices.out")
        try #require(!expected.isEmpty, "devices.out is there")
        // Every person commutes: the comparison is not one of empty outputs.
        #expect(expected.components(separatedBy: "\"commute\"").count > 24)
        #expect(result.stdout == expected)
    }
}
