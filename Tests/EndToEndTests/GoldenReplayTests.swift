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
    static func manyDevices(in scratch: TemporaryDirectory) throws -> [String] {
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
        return tagged.map { $0.2 }
    }

    @Test(arguments: ["1", "2", "4", "6"])
    func manyDevicesReplayExactlyAsBefore(threads: String) throws {
        let scratch = try TemporaryDirectory("golden-devices")
        try scratch.write("devices.ndjson", try Self.manyDevices(in: scratch).map { $0 + "\n" }.joined())
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

    /// What replay writes on standard output comes before what it says on standard error, in the
    /// order of the input's batches, however the outputs are printed: by the command's thread
    /// (`--threads 1`), rendered and printed on a thread of their own (`2`: one shard), or
    /// rendered on the shards' threads and printed by the command's (`4`). Both streams go to one file, as on a
    /// terminal. The input is a fleet's start, 4,000 devices whose first determinations (ten
    /// places each) come all at once, with an unreadable line every 2,000 lines: messages fall
    /// in the middle of that burst, where the printing thread has the most left to print.
    @Test func messagesFallBetweenTheSameOutputsHoweverTheyArePrinted() throws {
        let scratch = try TemporaryDirectory("replay-order")
        var rules = "places:\n"
        for place in 0..<10 {
            rules += "  place\(place): { center: [\(51.40 + 0.02 * Double(place)), -0.2], radius: 300 }\n"
        }
        try scratch.write("rules.yaml", rules)
        var lines: [String] = []
        let devices = 4000
        for second in 0..<40 {
            for device in 0..<devices {
                let latitude = 51.5 + Double(device % 100) * 0.001
                let longitude = -0.1 + Double(device / 100) * 0.001
                lines.append(
                    "{\"timestamp\":\(1_772_521_200_000 + second * 1000),\"latitude\":\(latitude),"
                        + "\"longitude\":\(longitude),\"horizontalAccuracy\":8,\"deviceId\":\"d\(device)\"}")
            }
        }
        let unreadable = Array(stride(from: lines.count - 1, to: 0, by: -2000))
        for line in unreadable { lines.insert("not a record", at: line) }
        try scratch.write("fleet.ndjson", lines.map { $0 + "\n" }.joined())
        var combined: [String: String] = [:]
        for threads in ["1", "2", "4"] {
            let child = try GeofenceProcess(
                ["replay", "rules.yaml", "fleet.ndjson", "--threads", threads], in: scratch.path,
                name: "combined-\(threads)", mergingStandardError: true)
            let ended = try child.waitForExit(seconds: 300)
            #expect(!ended.signaled && ended.status == 0, "--threads \(threads)")
            combined[threads] = child.stdout
        }
        let one = try #require(combined["1"])
        let printed = one.split(separator: "\n")
        let events = printed.filter { $0.contains("\"type\":\"event\"") }.count
        let messages = printed.filter { $0.hasPrefix("geofence: fleet.ndjson:") }.count
        #expect(events == devices * 10, "every device's first determinations")
        #expect(messages == unreadable.count, "every unreadable line")
        #expect(combined["2"] == one)
        #expect(combined["4"] == one)
    }
}
