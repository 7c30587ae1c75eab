import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A `geofence` child process whose standard output and error go to files in a scratch folder.
///
/// Files, not pipes: a pipe nobody drains would stall the child, and a file can be read at any
/// moment while the child runs. The process is killed when the value is dropped unless it has
/// already ended, so a failing test leaves nothing behind.
final class GeofenceProcess: @unchecked Sendable {
    let process = Process()
    let stdoutPath: String
    let stderrPath: String
    private let stdoutHandle: FileHandle
    private let stderrHandle: FileHandle

    /// Starts `geofence arguments...` in `directory`, its outputs written to `name.stdout` and
    /// `name.stderr` there, with `environment` added to the test's own. `executable` replaces the
    /// built one (a benchmark runs a release build). With `stdinPipe`, the child reads the pipe,
    /// which the test writes to and closes as it goes. With `mergingStandardError`, standard error
    /// goes to the standard output's file too, interleaved as on a terminal.
    init(
        _ arguments: [String], in directory: String, name: String, stdin: String? = nil,
        stdinPipe: Pipe? = nil, environment: [String: String] = [:], executable: URL? = nil,
        mergingStandardError: Bool = false
    ) throws {
        let executable = try executable ?? GeofenceCommand.executable()
        stdoutPath = directory + "/" + name + ".stdout"
        stderrPath = directory + "/" + name + ".stderr"
        for path in [stdoutPath, stderrPath] {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw HarnessError("cannot create \(path)")
            }
        }
        guard let out = FileHandle(forWritingAtPath: stdoutPath),
            let err = FileHandle(forWritingAtPath: stderrPath)
        else { throw HarnessError("cannot open the output files in \(directory)") }
        stdoutHandle = out
        stderrHandle = err
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardOutput = out
        process.standardError = mergingStandardError ? out : err
        if let stdinPipe {
            // Live input: the test writes to the pipe while the child runs.
            process.standardInput = stdinPipe
        } else if let stdin {
            let inputPath = directory + "/" + name + ".stdin"
            try Data(stdin.utf8).write(to: URL(fileURLWithPath: inputPath))
            process.standardInput = FileHandle(forReadingAtPath: inputPath)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? stdoutHandle.close()
        try? stderrHandle.close()
    }

    /// The process id.
    var pid: pid_t { process.processIdentifier }

    /// Sends `signal` to the process.
    func send(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// Waits for the process to end (a hang guard, not a timing check) and returns how it ended;
    /// kills it and throws if it is still running after `seconds`.
    @discardableResult
    func waitForExit(seconds: Double = 60) throws -> (status: Int32, signaled: Bool) {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning {
            if Date() >= deadline {
                kill(process.processIdentifier, SIGKILL)
                // Bounded too: a child whose end Foundation never notices (seen under
                // ThreadSanitizer, a zombie it did not reap) must fail the test, not hang the suite.
                let reaped = Date().addingTimeInterval(30)
                while process.isRunning, Date() < reaped { usleep(10_000) }
                if !process.isRunning { process.waitUntilExit() }
                throw HarnessError(
                    "geofence \(process.arguments?.joined(separator: " ") ?? "") still running after \(Int(seconds)) s; killed\nstderr:\n\(stderr)"
                )
            }
            usleep(10_000)
        }
        process.waitUntilExit()
        return (process.terminationStatus, process.terminationReason == .uncaughtSignal)
    }

    /// What the process wrote on standard output so far.
    var stdout: String { TemporaryDirectory.read(stdoutPath) }

    /// What the process wrote on standard error so far.
    var stderr: String { TemporaryDirectory.read(stderrPath) }

    /// Runs `geofence arguments...` to its end and returns its status and outputs.
    static func run(_ arguments: [String], in directory: String, name: String, stdin: String? = nil) throws
        -> (
            status: Int32, stdout: String, stderr: String
        )
    {
        let child = try GeofenceProcess(arguments, in: directory, name: name, stdin: stdin)
        let ended = try child.waitForExit(seconds: 120)
        return (ended.signaled ? -1 : ended.status, child.stdout, child.stderr)
    }
}

/// Waits, polling, until `condition` holds; a hang guard with a generous deadline, never a timing
/// assertion. Throws with `what` if the deadline passes.
func waitUntil(
    _ what: @autoclosure () -> String, seconds: Double = 180, every interval: Double = 0.05,
    _ condition: () throws -> Bool
) throws {
    let deadline = Date().addingTimeInterval(seconds)
    while try !condition() {
        if Date() >= deadline { throw HarnessError("gave up after \(Int(seconds)) s waiting for \(what())") }
        usleep(useconds_t(interval * 1_000_000))
    }
}

/// The pids of live processes whose command line mentions every one of `texts` (for example a
/// scratch folder and a hook's name: a hook given as `./hook.sh` runs as `<folder>/./hook.sh`).
func processes(mentioning texts: String...) -> [pid_t] {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
    return names.compactMap { name -> pid_t? in
        guard let pid = pid_t(name), pid != getpid(),
            let data = FileManager.default.contents(atPath: "/proc/\(name)/cmdline")
        else { return nil }
        // Arguments are separated by NUL; a zombie has an empty command line and is not running.
        let line = String(decoding: data.map { $0 == 0 ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
        return texts.allSatisfy(line.contains) ? pid : nil
    }
}
