import Foundation

/// The runner's log on standard error: one line per message, with the time and a level.
///
/// Its times are wall-clock times in the run's display zone, with their offset, so they read
/// beside the action lines on standard output (and journald's own timestamps).
struct RunLog: Sendable {
    let verbose: Bool
    var timeZone: TimeZone = .gmt

    func write(_ level: LogEntry.Level, _ message: String) {
        let line = "\(RunLog.now(in: timeZone)) \(level.rawValue): \(message)\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    func info(_ message: String) { write(.info, message) }
    func warning(_ message: String) { write(.warning, message) }
    func error(_ message: String) { write(.error, message) }

    /// The wall-clock time a log line starts with, to the second, with its offset
    /// (`2026-03-03T08:00:05+01:00`, `...Z` in UTC).
    private static func now(in timeZone: TimeZone) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = timeZone
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date())
    }

    /// Written only with `--verbose`.
    func verbose(_ message: String) { if verbose { write(.info, message) } }
}
