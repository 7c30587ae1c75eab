import Foundation
import GeofenceInput

/// The records of one batch of a file's lines, decoded before the pipeline takes them, so that
/// the next batch can be decoded on the other core while this one goes through the pipeline (as
/// `replay` reads on one thread and runs the monitor on another).
///
/// Decoding touches nothing but the input's own ``StreamDecoder``; what the lines mean for the
/// run's log and counts (a line too long, a line that cannot be read) is kept here in line order
/// and said by the engine's loop when it takes the records.
struct DecodedLines {
    /// One line's outcome, in line order.
    enum Entry {
        /// A record, or the reason a line gave none.
        case record(Result<InputRecord, RecordError>)
        /// A line longer than the reader keeps, delivered without its text.
        case tooLong(number: Int64)
    }

    /// What the lines gave, in order (a line can give no record, or several).
    private(set) var entries: [Entry] = []
    /// How many of the entries are records.
    private(set) var records = 0
    /// How many of the records are fixes.
    private(set) var fixes = 0

    /// Decodes `lines` with `decoder`. A line containing `crashText` (the end-to-end tests'
    /// stand-in for a line that crashes the engine; `nil` outside them) traps here, where decoding
    /// happens, under the crash note that names it.
    static func decode(
        _ lines: [(text: String?, number: Int64)], with decoder: inout StreamDecoder, crashText: String?
    ) -> DecodedLines {
        var decoded = DecodedLines()
        decoded.entries.reserveCapacity(lines.count)
        for line in lines {
            guard var text = line.text else {
                decoded.entries.append(.tooLong(number: line.number))
                continue
            }
            if let crashText, text.contains(crashText) {
                fatalError("GEOFENCE_TEST_CRASH_ON_TEXT: this line crashes the engine, as the test asked")
            }
            text.withUTF8 { bytes in
                decoder.decode(bytes: bytes, number: Int(line.number)) { result in
                    if case .success(let record) = result {
                        decoded.records += 1
                        if record.fix != nil { decoded.fixes += 1 }
                    }
                    decoded.entries.append(.record(result))
                }
            }
        }
        return decoded
    }
}

/// A thread of its own that decodes a file's next lines while the engine's loop runs the last
/// ones through the pipeline: the loop hands it the lines with the input's decoder
/// (``start(_:decoder:crashText:)``), and takes both back, the records decoded, with ``finish()``.
///
/// The thread is started with the first lines and waits for more between batches; ``stop()`` ends
/// it. Everything is handed over under one condition lock, which orders the two threads' use of
/// the decoder and the lines.
final class LineDecodingThread: @unchecked Sendable {
    private struct Job {
        var lines: [(text: String?, number: Int64)]
        var decoder: StreamDecoder
        var crashText: String?
    }

    private let condition = NSCondition()
    private var job: Job?
    private var done: (lines: DecodedLines, decoder: StreamDecoder)?
    private var started = false
    private var stopped = false

    /// Starts decoding `lines` with `decoder`, which the thread holds until ``finish()``.
    func start(_ lines: [(text: String?, number: Int64)], decoder: StreamDecoder, crashText: String?) {
        condition.lock()
        defer { condition.unlock() }
        precondition(job == nil && done == nil, "one batch of lines at a time")
        job = Job(lines: lines, decoder: decoder, crashText: crashText)
        if !started {
            started = true
            let thread = Thread { [self] in work() }
            thread.name = "geofence-decode"
            thread.start()
        }
        condition.broadcast()
    }

    /// Waits for the lines given to ``start(_:decoder:crashText:)``; returns them decoded, and the decoder.
    func finish() -> (lines: DecodedLines, decoder: StreamDecoder) {
        condition.lock()
        defer { condition.unlock() }
        while done == nil { condition.wait() }
        guard let finished = done else { preconditionFailure("waited for the decoded lines") }
        done = nil
        return finished
    }

    /// Ends the thread once it is idle.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func work() {
        condition.lock()
        while true {
            while job == nil, !stopped { condition.wait() }
            guard var taken = job else { break }
            job = nil
            condition.unlock()
            let decoded = DecodedLines.decode(taken.lines, with: &taken.decoder, crashText: taken.crashText)
            condition.lock()
            done = (decoded, taken.decoder)
            condition.broadcast()
        }
        condition.unlock()
    }
}
