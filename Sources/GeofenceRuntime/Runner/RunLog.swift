import Foundation

/// The runner's log on standard error: one line per message, with the time and a level.
struct RunLog: Sendable {
    let verbose: Bool

    func write(_ level: LogEntry.Level, _ message: String) {
        let line = "\(RunLog.now()) \(level.rawValue): \(message)\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    func info(_ message: String) { write(.info, message) }
    func warning(_ message: String) { write(.warning, message) }
    func error(_ message: String) { write(.error, message) }

    /// The wall-clock time a log line starts with, to the second in UTC.
    private static func now() -> String {
        Date().formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: false).timeZone(
                separator: .omitted))
    }

    /// Written only with `--verbose`.
    func verbose(_ message: String) { if verbose { write(.info, message) } }
}
