import Foundation
import TestSupport
import Testing

/// Issue 12's command line: every command answers `--help` with its own usage, unknown words get
/// suggestions, `run` says which input is missing, durations read as in the rules file.
@Suite struct CommandLineTests {
    static let commands = [
        "check", "replay", "report", "run", "actions", "events", "commutes", "stays", "simulate", "demo",
    ]

    private func geofence(_ arguments: [String], stdin: String? = nil) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let scratch = try TemporaryDirectory("cli")
        return try GeofenceProcess.run(arguments, in: scratch.path, name: "cli", stdin: stdin)
    }

    @Test(arguments: commands)
    func everyCommandAnswersHelpWithItsOwnUsageAndExitsZero(command: String) throws {
        for words in [
            [command, "--help"], [command, "-h"], ["help", command], [command, "--bogus", "--help"],
        ] {
            let result = try geofence(words)
            #expect(result.status == 0, "\(words): \(result.stderr)")
            #expect(result.stdout.hasPrefix("usage: geofence \(command)"), "\(words): \(result.stdout)")
            #expect(result.stdout.contains("--help, -h"), "\(words)")
        }
    }

    @Test func helpListsEveryCommandAndVersionPrintsOne() throws {
        let help = try geofence(["help"])
        #expect(help.status == 0)
        for command in Self.commands { #expect(help.stdout.contains("\n  \(command) "), "\(command)") }
        let version = try geofence(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("geofence "))
        let bare = try geofence([])
        #expect(bare.status == 2)
        #expect(bare.stderr.contains("commands:"))
    }

    @Test(arguments: [
        (["evnts"], "did you mean 'events'?"),
        (["help", "comutes"], "did you mean 'commutes'?"),
        (["events", "--limt", "3"], "did you mean '--limit'?"),
        (["commutes", "--time-zone", "europe/berlin"], "did you mean 'Europe/Berlin'?"),
        (["events", "--time-zone", "Paris"], "did you mean 'Europe/Paris'?"),
        (["replay", "r.yaml", "in.ndjson", "--format", "ndjosn"], "did you mean 'ndjson'?"),
        (["stays", "-", "--min-stay", "soon"], "--min-stay wants a duration such as 90s, 20m, 1h30m or 90d"),
    ])
    func unknownWordsGetSuggestions(arguments: [String], expected: String) throws {
        let result = try geofence(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("geofence: "))
        #expect(result.stderr.contains(expected), "\(result.stderr)")
    }

    @Test func runWithoutAnInputNamesTheOptionsThatGiveOne() throws {
        let scratch = try TemporaryDirectory("run-no-input")
        try scratch.write("rules.yaml", DayFixtures.hookRules(hook: "/bin/true"))
        let result = try GeofenceProcess.run(["run", "rules.yaml"], in: scratch.path, name: "run")
        #expect(result.status == 2)
        #expect(result.stderr.contains("--input PATH"))
        #expect(result.stderr.contains("--mqtt URL"))
        let missingRules = try GeofenceProcess.run(["run"], in: scratch.path, name: "run2")
        #expect(missingRules.status == 2)
        #expect(missingRules.stderr.contains("run needs RULES"))
    }

    /// Replay starts reading its input while the rules load; rules that fail stop the reading,
    /// and the command says only what is wrong with the rules, as when nothing had been read:
    /// with an input long enough that the reading thread is still busy, and with one missing.
    @Test func replayWithBrokenRulesStopsReadingAndNamesOnlyTheRules() throws {
        let scratch = try TemporaryDirectory("replay-broken-rules")
        try scratch.write("rules.yaml", "places:\n  home: { center: [47.37, 8.54], radius: -5 }\n")
        let line = #"{"timestamp":1772521200000,"latitude":47.37,"longitude":8.54,"horizontalAccuracy":8}"#
        try scratch.write("fixes.ndjson", String(repeating: line + "\n", count: 100_000))
        for input in ["fixes.ndjson", "missing.ndjson"] {
            let result = try GeofenceProcess.run(
                ["replay", "rules.yaml", input], in: scratch.path, name: "replay-\(input)")
            #expect(result.status == 1, "\(input)")
            #expect(result.stdout.isEmpty, "\(input)")
            #expect(
                result.stderr
                    == "rules.yaml:2:42: place \"home\" radius must be more than 0, not -5\n"
                    + "the rules have errors; nothing was replayed\n", "\(input): \(result.stderr)")
        }
    }

    /// Output that cannot be written (a full disk) ends replay with a message and status 1, not a
    /// trap.
    @Test func replayThatCannotWriteItsOutputSaysSoAndExitsOne() throws {
        let scratch = try TemporaryDirectory("replay-full")
        try scratch.write("rules.yaml", "places:\n  home: { center: [47.37, 8.54], radius: 100 }\n")
        // Enough events to fill the output buffer: every fix of 300 devices far from home.
        var lines = ""
        for second in 0..<40 {
            for device in 0..<300 {
                lines +=
                    #"{"timestamp":\#(1_772_521_200_000 + second * 1000),"latitude":47.4,"longitude":8.6,"#
                    + #""horizontalAccuracy":8,"deviceId":"d\#(device)"}"# + "\n"
            }
        }
        try scratch.write("fixes.ndjson", lines)
        let process = Process()
        process.executableURL = try GeofenceCommand.executable()
        process.arguments = ["replay", "rules.yaml", "fixes.ndjson"]
        process.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/full")
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 1)
        #expect(stderr.hasPrefix("geofence: cannot write the output: "), "\(stderr)")
    }

    @Test func durationsOnTheCommandLineUseTheRulesFileGrammar() throws {
        let day = try geofence(["simulate", "day", "--interval", "1m30s"])
        #expect(day.status == 0)
        let lines = day.stdout.split(separator: "\n")
        #expect(lines.count > 100)
        let stays = try geofence(["stays", "-", "--min-stay", "1h30m"], stdin: day.stdout)
        let shorter = try geofence(["stays", "-", "--min-stay", "20m"], stdin: day.stdout)
        #expect(stays.status == 0 && shorter.status == 0)
        // Raising the minimum stay to an hour and a half drops the lunch and gym stays.
        #expect(stays.stdout.split(separator: "\n").count < shorter.stdout.split(separator: "\n").count)
    }
}
