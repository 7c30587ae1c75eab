import Foundation
import TestSupport
import GeofenceRuntime
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The environment of a run made to crash on lines holding `CRASH-THE-ENGINE`
/// (`GEOFENCE_TEST_CRASH_ON_TEXT`, which no input can set). Swift's crash backtracer is off: the
/// intended crash needs no backtrace, and under ThreadSanitizer the backtracer's `clone` from the
/// signal handler fails a TSan check, after which the test process never saw the child end.
private let crashingEnvironment = [
    "GEOFENCE_TEST_CRASH_ON_TEXT": "CRASH-THE-ENGINE", "SWIFT_BACKTRACE": "enable=no",
]

extension EndToEnd {
    /// Issue 10: a line that crashes the engine cannot loop a restart. The line is made to crash
    /// through `GEOFENCE_TEST_CRASH_ON_TEXT`, a test-only environment variable no input can set.
    /// The first run crashes on it; the second retries its batch one line at a time and crashes on
    /// it alone; the third records it as poison, with the signal as its reason, in the store's log,
    /// skips it and reads the rest of the day: every hook replay expects runs.
    @Test func aLineThatCrashesTheEngineIsRetriedOnceThenSkippedAsPoison() throws {
        let scratch = try TemporaryDirectory("crashline")
        try scratch.write("hook.sh", appendEventIDHook, executable: true)
        try scratch.write("rules.yaml", DayFixtures.hookRules(hook: "./hook.sh", arguments: ["hooks.txt"]))
        var day = try DayFixtures.day(in: scratch)
        let poisonLine = day.count / 2 + 1
        day.insert("CRASH-THE-ENGINE-HERE", at: poisonLine - 1)
        try scratch.write("fixes.ndjson", day.joined(separator: "\n") + "\n")
        // Replay skips the line as unreadable (the variable is not set for it).
        let expected = DayFixtures.hookIDs(
            try DayFixtures.replay(
                rules: scratch.file("rules.yaml"), input: scratch.file("fixes.ndjson"), in: scratch))
        try #require(expected.count >= 8, "the day crosses every place's boundary")

        let state = scratch.file("state")
        let arguments = [
            "run", "rules.yaml", "--input", "fixes.ndjson", "--history", "--fire-history", "--state", state,
        ]
        let crashing = crashingEnvironment
        let first = try GeofenceProcess(arguments, in: scratch.path, name: "first", environment: crashing)
        let firstEnd = try first.waitForExit(seconds: 120)
        #expect(firstEnd.signaled, "the line crashed the first run:\n\(first.stderr)")

        let second = try GeofenceProcess(arguments, in: scratch.path, name: "second", environment: crashing)
        let secondEnd = try second.waitForExit(seconds: 120)
        #expect(secondEnd.signaled, "the line crashed the retry:\n\(second.stderr)")
        #expect(second.stderr.contains("retrying them one at a time"), "\(second.stderr)")

        let third = try GeofenceProcess(arguments, in: scratch.path, name: "third", environment: crashing)
        let thirdEnd = try third.waitForExit(seconds: 120)
        #expect(!thirdEnd.signaled && thirdEnd.status == 0, "stderr:\n\(third.stderr)")
        #expect(
            third.stderr.contains(
                "fixes.ndjson:\(poisonLine): poison line: the last run crashed with signal"),
            "\(third.stderr)")

        // At least once: a hook the crashes interrupted may have run twice, but every one ran.
        let ran = TemporaryDirectory.lines(scratch.file("hooks.txt"))
        #expect(Set(ran) == Set(expected), "ran \(ran.count), expected \(expected.count)")
        let store = try Store(directory: state)
        let poison = try store.log().filter { $0.kind == "poison-line" }
        store.close()
        #expect(poison.count == 1)
        #expect(poison.first?.message.contains("fixes.ndjson:\(poisonLine):") == true)

        // A fourth start has nothing left to blame: no poison again, nothing retried.
        let fourth = try GeofenceProcess(arguments, in: scratch.path, name: "fourth", environment: crashing)
        let fourthEnd = try fourth.waitForExit(seconds: 120)
        #expect(!fourthEnd.signaled && fourthEnd.status == 0, "stderr:\n\(fourth.stderr)")
        #expect(!fourth.stderr.contains("poison") && !fourth.stderr.contains("retrying"), "\(fourth.stderr)")
    }

    /// Issue 10: a crash that is not a line's fault (SIGKILL) blames no line: the next start reads
    /// the batch again as after any restart, and nothing is retried or skipped.
    @Test func aKilledRunBlamesNoLine() throws {
        let scratch = try TemporaryDirectory("killed")
        try scratch.write("rules.yaml", DayFixtures.hookRules(hook: "/bin/true"))
        try scratch.write("fixes.ndjson", try DayFixtures.day(in: scratch).joined(separator: "\n") + "\n")
        // Lines noted as being processed, as a SIGKILL in the middle of a batch leaves them.
        let state = scratch.file("state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try scratch.write("state/processing", "lines\t1\t3\t3\t0:0\t\(scratch.file("fixes.ndjson"))\n")
        let run = try GeofenceProcess(
            [
                "run", "rules.yaml", "--input", "fixes.ndjson", "--history", "--fire-history", "--state",
                state,
            ], in: scratch.path,
            name: "run")
        let ended = try run.waitForExit(seconds: 120)
        #expect(!ended.signaled && ended.status == 0, "stderr:\n\(run.stderr)")
        #expect(!run.stderr.contains("poison") && !run.stderr.contains("retrying"), "\(run.stderr)")
    }

    /// Issue 10: a post to `run --http` that crashes the engine cannot loop a restart either. The
    /// phone posts the same body again until it is answered 200; the line is named in the crash
    /// note by its text. The first run crashes on the post; the second, given the same post again,
    /// retries its lines one at a time and crashes on it alone; the third records it as poison,
    /// answers the post 200 without it (the phone stops posting it) and goes on with other posts.
    @Test func aPostThatCrashesTheEngineIsRetriedOnceThenSkippedAsPoison() throws {
        let scratch = try TemporaryDirectory("crashpost")
        try scratch.write(
            "rules.yaml",
            "timezone: Europe/London\n" + DayFixtures.places
                + "\nrules:\n  - { name: arrived home, on: enter home, log: true }\n")
        let state = scratch.file("state")
        let crashing = crashingEnvironment
        func start(_ name: String) throws -> (GeofenceProcess, Int) {
            let run = try GeofenceProcess(
                ["run", "rules.yaml", "--http", "127.0.0.1:0", "--history", "--state", state],
                in: scratch.path,
                name: name, environment: crashing)
            var port: Int?
            try waitUntil("geofence to listen\n\(run.stderr)") {
                guard let range = run.stderr.range(of: "listening on http://127.0.0.1:") else { return false }
                port = Int(run.stderr[range.upperBound...].prefix { $0.isNumber })
                return port != nil
            }
            return (run, port ?? 0)
        }
        /// An OwnTracks phone's post of one location at home; the status curl saw ("000" when
        /// the connection broke without an answer).
        func post(device: String, seconds: Int, port: Int) throws -> String {
            let curl = Process()
            curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            curl.arguments = [
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "120",
                "-H", "Content-Type: application/json", "-H", "X-Limit-U: jane", "-H", "X-Limit-D: \(device)",
                "--data-binary",
                #"{"_type":"location","lat":51.5007,"lon":-0.1246,"tst":\#(seconds),"acc":10}"#,
                "http://127.0.0.1:\(port)/pub",
            ]
            let output = Pipe()
            curl.standardOutput = output
            curl.standardError = FileHandle.nullDevice
            curl.standardInput = FileHandle.nullDevice
            try curl.run()
            defer { end(curl) }
            try waitUntil("curl to finish", seconds: 300) { !curl.isRunning }
            return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
        let poisoned = "CRASH-THE-ENGINE"

        let (first, firstPort) = try start("first")
        #expect(try post(device: "phone", seconds: 1_700_000_000, port: firstPort) == "200")
        #expect(try post(device: poisoned, seconds: 1_700_000_060, port: firstPort) != "200")
        #expect(
            try first.waitForExit(seconds: 120).signaled, "the post crashed the first run:\n\(first.stderr)")

        let (second, secondPort) = try start("second")
        #expect(try post(device: poisoned, seconds: 1_700_000_060, port: secondPort) != "200")
        #expect(
            try second.waitForExit(seconds: 120).signaled, "the post crashed the retry:\n\(second.stderr)")
        #expect(second.stderr.contains("while processing a message of http (1 line(s))"), "\(second.stderr)")

        let (third, thirdPort) = try start("third")
        #expect(try post(device: poisoned, seconds: 1_700_000_060, port: thirdPort) == "200")
        #expect(try post(device: "tablet", seconds: 1_700_000_120, port: thirdPort) == "200")
        third.send(SIGTERM)
        let thirdEnd = try third.waitForExit(seconds: 120)
        #expect(!thirdEnd.signaled && thirdEnd.status == 0, "stderr:\n\(third.stderr)")
        #expect(
            third.stderr.contains("http, line 1 of a message (text hash ")
                && third.stderr.contains("poison line: the last run crashed with signal"), "\(third.stderr)")
        #expect(third.stderr.contains("poison line (crashed with signal"), "\(third.stderr)")

        let store = try Store(directory: state)
        let poison = try store.log().filter { $0.kind == "poison-line" }
        let devices = Set(try store.deviceStates().map(\.device))
        store.close()
        #expect(poison.count == 1)
        // Both honest phones' fixes were taken; the poisoned one never got in.
        #expect(devices.isSuperset(of: ["jane/phone", "jane/tablet"]), "\(devices)")
        #expect(!devices.contains { $0.contains("CRASH") }, "\(devices)")

        // A fourth start has nothing left to blame.
        let (fourth, _) = try start("fourth")
        fourth.send(SIGTERM)
        let fourthEnd = try fourth.waitForExit(seconds: 120)
        #expect(!fourthEnd.signaled && fourthEnd.status == 0, "stderr:\n\(fourth.stderr)")
        #expect(!fourth.stderr.contains("poison") && !fourth.stderr.contains("retr"), "\(fourth.stderr)")
    }

    /// Issue 10: an MQTT message that crashes the engine cannot loop a restart. A retained message
    /// (OwnTracks can publish locations retained) is sent again by the broker at every subscribe,
    /// so it comes back after each restart as a phone's post does: the first run crashes on it,
    /// the second retries it alone and crashes, the third records it as poison, skips it and reads
    /// the next message.
    @Test func aRetainedMessageThatCrashesTheEngineIsRetriedOnceThenSkippedAsPoison() throws {
        let scratch = try TemporaryDirectory("crashretained")
        try scratch.write(
            "rules.yaml",
            "timezone: Europe/London\n" + DayFixtures.places
                + "\nrules:\n  - { name: arrived home, on: enter home, log: true }\n")
        let broker = try Broker(in: scratch)
        let location = #"{"_type":"location","lat":51.5007,"lon":-0.1246,"tst":1700000000,"acc":10}"#
        try broker.publish([location], topic: "owntracks/jane/CRASH-THE-ENGINE", name: "poison", retain: true)
        let client = "geofence-e2e-poison"
        func start(_ name: String, _ count: Int) throws -> GeofenceProcess {
            let run = try GeofenceProcess(
                [
                    "run", "rules.yaml", "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--mqtt-client-id",
                    client,
                    "--history", "--state", scratch.file("state"),
                ], in: scratch.path, name: name,
                environment: crashingEnvironment)
            try broker.waitForSubscription(of: client, count: count)
            return run
        }

        let first = try start("first", 1)
        #expect(
            try first.waitForExit(seconds: 120).signaled,
            "the message crashed the first run:\n\(first.stderr)")
        let second = try start("second", 2)
        #expect(
            try second.waitForExit(seconds: 120).signaled, "the message crashed the retry:\n\(second.stderr)")
        #expect(second.stderr.contains("while processing a message of mqtt (1 line(s))"), "\(second.stderr)")

        let third = try start("third", 3)
        // The honest location, then a line geofence reports as unreadable: once that is reported,
        // everything before it was read.
        try broker.publish([location, "end of the test"], topic: "owntracks/jane/phone", name: "honest")
        try waitUntil("the honest messages\n\(third.stderr)") { third.stderr.contains("mqtt:3:") }
        third.send(SIGTERM)
        let thirdEnd = try third.waitForExit(seconds: 120)
        #expect(!thirdEnd.signaled && thirdEnd.status == 0, "stderr:\n\(third.stderr)")
        #expect(
            third.stderr.contains("mqtt, line 1 of a message (text hash ")
                && third.stderr.contains("poison line: the last run crashed with signal"), "\(third.stderr)")
        let store = try Store(directory: scratch.file("state"))
        let poison = try store.log().filter { $0.kind == "poison-line" }
        let devices = Set(try store.deviceStates().map(\.device))
        store.close()
        #expect(poison.count == 1)
        #expect(devices.contains("jane/phone") && !devices.contains { $0.contains("CRASH") }, "\(devices)")
    }
}
