import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// How far a run is through the history of its followed files: a progress line on a terminal
/// while it reads (rate, position, time left), and one "caught up" line per input when it reaches
/// what the file held at the start and goes live.
///
/// A month of a Recorder's file takes seconds to read; two million lines, a minute on a small
/// box. Without a word the user cannot tell a long read from a hang, nor when live arrivals start
/// to count. The progress line is only drawn when standard error is a terminal (it rewrites
/// itself with a carriage return, which a journal or a log file must not receive).
struct CatchUp {
    /// One followed file: its size at the start and how far the run has come.
    private struct Input {
        var size: Int64
        var identity: String?
        var offset: Int64 = 0
        var lines: Int64 = 0
        var caughtUp = false
    }

    private var inputs: [String: Input] = [:]
    private let started = Date()
    private let terminal: Bool
    private var lastDrawn: Date?
    /// Whether a progress line is on the screen (to be cleared before other output).
    private(set) var showing = false

    /// Tracks the followed file inputs of `configuration` (others go live at once).
    init(configuration: RunConfiguration, terminal: Bool = isatty(STDERR_FILENO) == 1) {
        self.terminal = terminal
        guard !configuration.history else { return }
        for input in configuration.inputs where input.follow && input.path != "-" {
            let backlog = FileBacklog(path: input.path)
            inputs[input.name] = Input(size: backlog.size, identity: backlog.identity)
        }
    }

    /// Notes where an input starts (a stored position); returns the "caught up" line if nothing
    /// of the history is left to read.
    mutating func start(_ name: String, at offset: Int64?) -> String? {
        guard var input = inputs[name] else { return nil }
        input.offset = offset ?? 0
        inputs[name] = input
        return input.offset >= input.size ? caughtUp(name) : nil
    }

    /// Notes lines read from `name` up to `position`; returns the "caught up" line when the
    /// history held at the start has been read.
    mutating func read(_ name: String, lines: Int, position: InputPosition?) -> String? {
        guard var input = inputs[name], !input.caughtUp else { return nil }
        input.lines += Int64(lines)
        if let position { input.offset = position.offset }
        inputs[name] = input
        if let position, position.identity != input.identity || position.offset >= input.size {
            return caughtUp(name)
        }
        return nil
    }

    private mutating func caughtUp(_ name: String) -> String {
        inputs[name]?.caughtUp = true
        clear()
        let input = inputs[name]
        let seconds = Date().timeIntervalSince(started)
        let read =
            (input?.lines ?? 0) > 0
            ? "read \(input?.lines ?? 0) lines of history in \(String(format: "%.1f", seconds)) s"
            : "no history to read"
        return "input \(name): caught up (\(read)); now live, new lines fire the rules"
    }

    /// Whether the history of `name` is being read with a progress line: it is drawn between
    /// turns of the loop, each of which reads at most what the queue holds.
    func isReading(_ name: String) -> Bool {
        inputs[name].map { !$0.caughtUp } ?? false
    }

    /// Redraws the progress line on a terminal, at most once a second.
    mutating func draw() {
        guard terminal else { return }
        let now = Date()
        if let lastDrawn, now.timeIntervalSince(lastDrawn) < 1 { return }
        let reading = inputs.filter { !$0.value.caughtUp && $0.value.lines > 0 }.sorted { $0.key < $1.key }
        guard !reading.isEmpty else { return }
        lastDrawn = now
        let elapsed = max(now.timeIntervalSince(started), 0.001)
        let parts = reading.map { name, input -> String in
            let fraction = input.size > 0 ? Double(input.offset) / Double(input.size) : 1
            let rate = Double(input.lines) / elapsed
            let bytesPerSecond = Double(input.offset) / elapsed
            let left = bytesPerSecond > 0 ? Double(input.size - input.offset) / bytesPerSecond : 0
            return "\(name) \(Int(fraction * 100))%, line \(input.lines), "
                + "\(Int(rate)) lines/s, about \(Int(left.rounded())) s left"
        }
        let text = "\r\u{1B}[Kreading history: " + parts.joined(separator: "; ")
        FileHandle.standardError.write(Data(text.utf8))
        showing = true
    }

    /// Removes the progress line, so that other output starts on a clean line.
    mutating func clear() {
        guard showing else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        showing = false
    }
}
