public import Foundation

/// What a program wrote to one of its output streams, up to a bound.
public struct CapturedOutput: Sendable, Equatable {
    /// The first bytes written, at most the runner's output limit.
    public var data: Data
    /// How many bytes were written in all, including those read and discarded past the limit.
    public var totalBytes: Int

    /// Makes a capture from its parts.
    public init(data: Data = Data(), totalBytes: Int = 0) {
        self.data = data
        self.totalBytes = totalBytes
    }

    /// Whether bytes were discarded past the limit.
    public var truncated: Bool { totalBytes > data.count }

    /// The captured bytes as text, invalid UTF-8 replaced.
    public var text: String { String(decoding: data, as: UTF8.self) }
}

/// How a hook's run ended.
public struct HookResult: Sendable, Equatable {
    /// How the program ended.
    public enum Termination: Sendable, Equatable {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it (its number).
        case signaled(Int32)
        /// It could not be started; the reason.
        case failedToStart(String)
    }

    /// How the program ended.
    public var termination: Termination
    /// Whether it was still running at its timeout (and was sent SIGTERM, then SIGKILL).
    public var timedOut: Bool
    /// Whether it was still running when the runner was told to stop (``HookRunner/abandon()``)
    /// and was sent SIGTERM, then SIGKILL: it did not finish, and should run again later.
    public var abandoned: Bool
    /// Seconds from start to the program's exit (or to giving up on starting it).
    public var durationSeconds: Double
    /// Its standard output, bounded.
    public var standardOutput: CapturedOutput
    /// Its standard error, bounded.
    public var standardError: CapturedOutput

    /// Makes a result from its parts.
    public init(
        termination: Termination, timedOut: Bool, durationSeconds: Double,
        standardOutput: CapturedOutput = CapturedOutput(), standardError: CapturedOutput = CapturedOutput(),
        abandoned: Bool = false
    ) {
        self.termination = termination
        self.timedOut = timedOut
        self.abandoned = abandoned
        self.durationSeconds = durationSeconds
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// Whether the program exited with status 0 before its timeout, and was not stopped.
    public var succeeded: Bool { termination == .exited(0) && !timedOut && !abandoned }

    /// One line saying how it ended, for the log.
    public var summary: String {
        let seconds = String(format: "%.3f", durationSeconds)
        let ending: String
        switch termination {
        case .exited(let status): ending = "exited with status \(status)"
        case .signaled(let signal): ending = "killed by signal \(signal)"
        case .failedToStart(let reason): return "could not start: \(reason)"
        }
        if abandoned { return "stopped unfinished, \(ending) after \(seconds) s" }
        return timedOut ? "timed out, \(ending) after \(seconds) s" : "\(ending) after \(seconds) s"
    }

    /// The result as an outcome for ``Store/markDone(_:outcome:at:)``, with the captured output in its JSON.
    public var outcome: ActionOutcome {
        ActionOutcome(succeeded: succeeded, message: summary, json: json)
    }

    /// The result as JSON text: status, signal, timeout, duration and both outputs with their sizes.
    public var json: String {
        var object: [String: JSONField] = [
            "timed_out": .bool(timedOut), "abandoned": .bool(abandoned),
            "duration_seconds": .number(durationSeconds),
            "stdout": .string(standardOutput.text),
            "stdout_bytes": .number(Double(standardOutput.totalBytes)),
            "stdout_truncated": .bool(standardOutput.truncated),
            "stderr": .string(standardError.text), "stderr_bytes": .number(Double(standardError.totalBytes)),
            "stderr_truncated": .bool(standardError.truncated),
        ]
        switch termination {
        case .exited(let status): object["exit_status"] = .number(Double(status))
        case .signaled(let signal): object["signal"] = .number(Double(signal))
        case .failedToStart(let reason): object["start_error"] = .string(reason)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings, numbers and booleans cannot fail; the fallback keeps this total.
        return (try? encoder.encode(object)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

/// A JSON scalar, for encoding a result without a dedicated Codable type.
enum JSONField: Encodable {
    case string(String)
    case number(Double)
    case bool(Bool)

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        }
    }
}
