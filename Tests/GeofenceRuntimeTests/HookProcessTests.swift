import Foundation
import TestSupport
import Testing

@testable import GeofenceRuntime

/// Whether a process is still running (a zombie waiting for its parent counts as gone).
/// Kills `pid` and the process group it leads or belongs to (never the test's own group), so that
/// a background subshell's children (`(sleep 1000; ...) &`) do not outlive the test.
func killWithGroup(_ pid: Int32) {
    let group = getpgid(pid)
    if group > 0, group != getpgrp() { killpg(group, SIGKILL) }
    kill(pid, SIGKILL)
}

func isRunning(_ pid: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
    // The state follows the command name, which is in parentheses and may itself contain spaces.
    guard let close = stat.lastIndex(of: ")") else { return false }
    let state = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first
    return state != "Z" && state != "X"
}

/// Waits, up to a hang guard, until `pid` has stopped running; returns whether it did.
func waitUntilGone(_ pid: Int32, guardSeconds: Double = 10) async -> Bool {
    let giveUp = Date() + guardSeconds
    while Date() < giveUp {
        if !isRunning(pid) { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return !isRunning(pid)
}

/// Reads a pid a script wrote to `path`.
func readPID(_ path: String) -> Int32? {
    (try? String(contentsOfFile: path, encoding: .utf8)).flatMap {
        Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

@Suite struct HookProcessTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    private func configuration(grace: Double = 0.5) -> HookRunner.Configuration {
        HookRunner.Configuration(workingDirectory: directory.path, graceSeconds: grace)
    }

    @Test func aHookThatSleepsForeverIsKilledWithItsChildAtTheTimeout() async throws {
        let script = try directory.script(
            "forever.sh",
            """
            sleep 1000 &
            echo $! > "$1"
            echo waiting
            sleep 1000
            """)
        let pidFile = directory.file("child.pid")
        let hook = Hook(id: "h1", arguments: [script, pidFile], timeoutSeconds: 0.5)
        let result = await HookRunner.run(hook, configuration: configuration())
        #expect(result.timedOut)
        #expect(result.termination == .signaled(SIGTERM))
        #expect(result.standardOutput.text == "waiting\n")
        let child = try #require(readPID(pidFile))
        #expect(await waitUntilGone(child), "the hook's background child must die with its group")
        #expect(!result.succeeded)
    }

    @Test func aHookThatIgnoresSigtermGetsSigkillAfterTheGrace() async throws {
        let script = try directory.script(
            "stubborn.sh",
            """
            trap '' TERM
            sleep 1000 &
            echo $! > "$1"
            while :; do sleep 1; done
            """)
        let pidFile = directory.file("child.pid")
        let hook = Hook(id: "h1", arguments: [script, pidFile], timeoutSeconds: 0.3)
        let result = await HookRunner.run(hook, configuration: configuration(grace: 0.3))
        #expect(result.timedOut)
        #expect(result.termination == .signaled(SIGKILL))
        let child = try #require(readPID(pidFile))
        #expect(await waitUntilGone(child), "a child ignoring SIGTERM must get SIGKILL with the group")
    }

    @Test func aTimeoutReturnsEvenWhenAChildEscapedTheGroupHoldingTheOutput() async throws {
        // setsid puts the child in a session and group of its own, out of reach of killpg; it keeps
        // the hook's stdout open, so the runner must stop reading rather than wait for end of file.
        let script = try directory.script(
            "escape.sh",
            """
            setsid sleep 1000 &
            echo $! > "$1"
            sleep 1000
            """)
        let pidFile = directory.file("child.pid")
        let result = await HookRunner.run(
            Hook(id: "h1", arguments: [script, pidFile], timeoutSeconds: 0.3),
            configuration: configuration(grace: 0.2))
        #expect(result.timedOut)
        #expect(result.termination == .signaled(SIGTERM))
        let child = try #require(readPID(pidFile))
        defer { killWithGroup(child) }
        #expect(isRunning(child), "the escaped child still holds the pipe, and the runner came back anyway")
    }

    @Test func aProgramHeldOpenForWritingIsReportedAsBusyAfterRetrying() async throws {
        let script = try directory.script("busy.sh", "exit 0")
        let writer = open(script, O_WRONLY | O_CLOEXEC)
        #expect(writer >= 0)
        defer { close(writer) }
        let result = await HookRunner.run(Hook(id: "h1", arguments: [script]), configuration: configuration())
        guard case .failedToStart(let reason) = result.termination else {
            Issue.record("a program open for writing was started: \(result.termination)")
            return
        }
        #expect(reason.contains("Text file busy"))
    }

    @Test func aHookThatExitsOneIsReportedWithItsOutput() async throws {
        let script = try directory.script("fail.sh", "echo out; echo 'it broke' >&2; exit 1")
        let result = await HookRunner.run(Hook(id: "h1", arguments: [script]), configuration: configuration())
        #expect(result.termination == .exited(1))
        #expect(!result.timedOut)
        #expect(!result.succeeded)
        #expect(result.standardOutput.text == "out\n")
        #expect(result.standardError.text == "it broke\n")
        #expect(result.outcome.succeeded == false)
        #expect(result.outcome.message.hasPrefix("exited with status 1"))
    }

    @Test func tenMegabytesOfOutputAreCapturedBoundedWithoutDeadlock() async throws {
        let script = try directory.script(
            "loud.sh", "head -c 10485760 /dev/zero | tr '\\000' x; echo done >&2")
        var settings = configuration()
        settings.outputLimitBytes = 64 * 1024
        let result = await HookRunner.run(
            Hook(id: "h1", arguments: [script], timeoutSeconds: 60), configuration: settings)
        #expect(result.termination == .exited(0))
        #expect(!result.timedOut)
        #expect(result.standardOutput.totalBytes == 10_485_760)
        #expect(result.standardOutput.data == Data(repeating: UInt8(ascii: "x"), count: 64 * 1024))
        #expect(result.standardOutput.truncated)
        #expect(result.standardError.text == "done\n")
        #expect(!result.standardError.truncated)
    }

    @Test func aChildThatOutlivesTheHookHoldingItsOutputDoesNotHoldUpTheRunner() async throws {
        let script = try directory.script(
            "daemon.sh",
            """
            (sleep 1000; echo late) &
            echo $! > "$1"
            echo early
            exit 0
            """)
        let pidFile = directory.file("child.pid")
        let result = await HookRunner.run(
            Hook(id: "h1", arguments: [script, pidFile], timeoutSeconds: 600), configuration: configuration())
        #expect(result.termination == .exited(0))
        #expect(!result.timedOut)
        #expect(result.standardOutput.text == "early\n")
        let child = try #require(readPID(pidFile))
        defer { killWithGroup(child) }
        // The runner came back while the child still ran and held the pipe: it did not wait for it.
        #expect(isRunning(child))
    }

    @Test func theHookReadsItsStandardInputAndEnvironment() async throws {
        let script = try directory.script(
            "echo.sh", #"cat; printf '|%s|%s' "$GEOFENCE_EVENT_ID" "$GEOFENCE_PLACE""#)
        let fields: [HookEnvironment.Field: String] = [.eventID: "ev-42", .place: "Home"]
        let hook = Hook(
            id: "ev-42", arguments: [script], environment: HookEnvironment.variables(fields),
            stdin: HookEnvironment.standardInput(fields))
        let result = await HookRunner.run(hook, configuration: configuration())
        #expect(result.termination == .exited(0))
        #expect(result.standardOutput.text == #"{"event_id":"ev-42","place":"Home"}|ev-42|Home"#)
    }

    @Test func theEnvironmentIsTheSmallInheritedSetPlusTheHooksVariables() async throws {
        var settings = configuration()
        settings.inheritedEnvironment = HookRunner.inheritedEnvironment(from: [
            "PATH": "/usr/bin:/bin", "HOME": "/home/someone", "AWS_SECRET_ACCESS_KEY": "do-not-leak",
        ])
        let hook = Hook(id: "h1", arguments: ["env"], environment: ["GEOFENCE_EVENT_ID": "e1"])
        let result = await HookRunner.run(hook, configuration: settings)
        #expect(result.termination == .exited(0))
        let lines = result.standardOutput.text.split(separator: "\n").map(String.init).sorted()
        #expect(lines == ["GEOFENCE_EVENT_ID=e1", "HOME=/home/someone", "PATH=/usr/bin:/bin"])
    }

    @Test(arguments: [
        "$(touch MARKER)", "`touch MARKER`", "; touch MARKER", "a'b\"c", "line1\nline2; touch MARKER",
        "&& touch MARKER || true", "> MARKER", "*",
    ])
    func hostileTextReachesTheHookAsPlainData(template: String) async throws {
        let marker = "/tmp/x-" + UUID().uuidString
        let text = template.replacingOccurrences(of: "MARKER", with: marker)
        let script = try directory.script(
            "args.sh", #"printf '%s\000' "$@"; printf '%s\000' "$GEOFENCE_PLACE" "$GEOFENCE_DEVICE"; cat"#)
        let fields: [HookEnvironment.Field: String] = [.place: text, .device: text]
        let hook = Hook(
            id: "h1", arguments: [script, text, "plain"], environment: HookEnvironment.variables(fields),
            stdin: HookEnvironment.standardInput(fields))
        let result = await HookRunner.run(hook, configuration: configuration())
        #expect(result.termination == .exited(0))
        let parts = result.standardOutput.data.split(separator: 0, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        #expect(Array(parts.prefix(4)) == [text, "plain", text, text])
        let json = try JSONDecoder().decode([String: String].self, from: Data(parts.last?.utf8 ?? "".utf8))
        #expect(json == ["place": text, "device": text])
        #expect(!FileManager.default.fileExists(atPath: marker), "nothing in the text may be executed")
    }

    @Test func aNulInAnArgumentIsReplacedNotCutShort() async throws {
        let hook = Hook(id: "h1", arguments: ["printf", "%s", "before\u{0}after"])
        let result = await HookRunner.run(hook, configuration: configuration())
        #expect(result.standardOutput.text == "before\u{FFFD}after")
    }

    @Test func aRelativeProgramIsResolvedAgainstTheWorkingDirectoryAndRunsThere() async throws {
        try FileManager.default.createDirectory(
            atPath: directory.file("hooks"), withIntermediateDirectories: true)
        _ = try directory.script("hooks/where.sh", "pwd")
        let result = await HookRunner.run(
            Hook(id: "h1", arguments: ["hooks/where.sh"]), configuration: configuration())
        #expect(result.termination == .exited(0))
        let resolvedDirectory = URL(fileURLWithPath: directory.path).resolvingSymlinksInPath().path
        #expect(result.standardOutput.text == resolvedDirectory + "\n")
    }

    @Test func aMissingProgramIsReportedNotThrown() async {
        let missing = await HookRunner.run(
            Hook(id: "h1", arguments: ["no-such-program-\(UUID().uuidString)"]),
            configuration: configuration())
        guard case .failedToStart(let reason) = missing.termination else {
            Issue.record("expected failedToStart, got \(missing.termination)")
            return
        }
        #expect(reason.contains("not found on PATH"))
        let empty = await HookRunner.run(Hook(id: "h2", arguments: []), configuration: configuration())
        #expect(empty.termination == .failedToStart("no program given"))
        let notExecutable = directory.file("data.txt")
        #expect(FileManager.default.createFile(atPath: notExecutable, contents: Data("x".utf8)))
        let plain = await HookRunner.run(
            Hook(id: "h3", arguments: [notExecutable]), configuration: configuration())
        #expect(!plain.succeeded)
        if case .failedToStart = plain.termination {
        } else {
            Issue.record("a plain file was started: \(plain)")
        }
    }

    @Test func theHookInheritsNoDescriptorsButItsThreeStreams() async throws {
        // An open store, and a descriptor opened without close-on-exec, as Foundation's FileHandle does.
        let store = try Store(directory: directory.file("state"))
        let leaky = open(directory.file("leaky"), O_CREAT | O_RDWR, 0o600)
        #expect(leaky >= 0)
        defer { close(leaky) }
        let result = await HookRunner.run(
            Hook(id: "h1", arguments: ["/bin/ls", "/proc/self/fd"]), configuration: configuration())
        // ls itself opens the directory it lists, as descriptor 3.
        #expect(result.standardOutput.text.split(separator: "\n") == ["0", "1", "2", "3"])
        store.close()
    }

    @Test func theHookStartsWithNoBlockedOrIgnoredSignals() async throws {
        // The spawning thread blocks SIGPIPE (HookProcess does, for its own writes), and here the
        // process also ignores SIGWINCH (whose default is to be ignored, so nothing else changes):
        // neither may reach the hook.
        let previous = signal(SIGWINCH, SIG_IGN)
        defer { signal(SIGWINCH, previous) }
        let result = await HookRunner.run(
            Hook(id: "h1", arguments: ["grep", "-E", "^Sig(Blk|Ign)", "/proc/self/status"]),
            configuration: configuration())
        var masks: [String: UInt64] = [:]
        for line in result.standardOutput.text.split(separator: "\n") {
            let parts = line.split(separator: ":")
            guard parts.count == 2 else { continue }
            masks[String(parts[0])] = UInt64(parts[1].trimmingCharacters(in: .whitespaces), radix: 16)
        }
        #expect(masks["SigBlk"] == 0)
        // glibc's posix_spawn itself leaves its two internal signals (32 and 33, below SIGRTMIN,
        // which no glibc program can use) ignored in the child; every other signal must be default.
        let glibcInternal: UInt64 = (1 << 31) | (1 << 32)
        let ignored = try #require(masks["SigIgn"])
        #expect(ignored & ~glibcInternal == 0, "ignored: \(String(ignored, radix: 16))")
    }

    @Test func theHookRunsInAProcessGroupOfItsOwn() async throws {
        let script = try directory.script("pgid.sh", #"echo $$ $(cut -d' ' -f5 /proc/$$/stat)"#)
        let result = await HookRunner.run(Hook(id: "h1", arguments: [script]), configuration: configuration())
        let numbers = result.standardOutput.text.split(separator: " ", omittingEmptySubsequences: true).map {
            $0.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(numbers.count == 2)
        #expect(numbers.first == numbers.last, "pid and process group id should be equal")
        #expect(numbers.last != String(getpgrp()))
    }

    @Test func aHookThatIgnoresItsStandardInputDoesNotBreakTheRunner() async throws {
        // More than a pipe holds, to a program that never reads it: our write fails with EPIPE.
        let hook = Hook(id: "h1", arguments: ["true"], stdin: Data(repeating: 65, count: 1 << 20))
        let result = await HookRunner.run(hook, configuration: configuration())
        #expect(result.termination == .exited(0))
    }

    @Test func theResultJSONCarriesStatusAndOutput() throws {
        let result = HookResult(
            termination: .exited(3), timedOut: false, durationSeconds: 0.25,
            standardOutput: CapturedOutput(data: Data("hi".utf8), totalBytes: 10))
        let object = try JSONSerialization.jsonObject(with: Data(result.json.utf8)) as? [String: Any]
        #expect(object?["exit_status"] as? Int == 3)
        #expect(object?["stdout"] as? String == "hi")
        #expect(object?["stdout_bytes"] as? Int == 10)
        #expect(object?["stdout_truncated"] as? Bool == true)
        #expect(object?["timed_out"] as? Bool == false)
    }
}
