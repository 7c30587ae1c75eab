import Foundation
import GeofenceInput

/// What an input thread hands to the engine's loop.
enum InputItem: Sendable {
    /// Complete lines from an input that has no positions (standard input, gpsd; `nil` text for a
    /// line too long to keep), with whether they arrived live.
    case lines(input: String, lines: [(text: String?, number: Int64)], position: InputPosition?, live: Bool)
    /// Complete lines of a file, their bytes as read (see ``LineBlock``), with the position to
    /// store after the last of them and whether they arrived live (after the backlog present at start).
    case fileLines(input: String, lines: LineBlock, position: InputPosition, live: Bool)
    /// One message from the MQTT broker, as a line (`nil` text for a payload too large to keep),
    /// with its topic for messages about it and a number counting messages since the start.
    case message(input: String, topic: String, text: String?, number: Int64, live: Bool)
    /// The positions one HTTP request carried, as lines, with a number counting requests since
    /// the start and the ticket its sender waits on: resolved once the batch is committed.
    case posted(input: String, lines: [String], number: Int64, live: Bool, ticket: CommitTicket)
    /// Records read from a whole document (GPX, which is not a stream of lines), oldest first.
    case records(input: String, records: [InputRecord])
    /// Something to log about an input (rotated, truncated, missing...).
    case note(input: String, message: String, level: LogEntry.Level)
    /// The input ended (a file not followed was read to its end, stdin closed) or failed.
    case ended(input: String, failure: String?)
}

/// The hand-over between input threads and the engine's loop: bounded, so a fast input waits for
/// a slow engine rather than filling memory, and interruptible, so a signal wakes the loop.
final class RecordQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [InputItem] = []
    private var lineCount = 0
    private var wakeRequested = false
    private var closed = false
    private let capacityLines: Int

    init(capacityLines: Int = 20_000) {
        self.capacityLines = capacityLines
    }

    /// Adds an item, waiting while the queue is full; returns false once the queue is closed.
    @discardableResult
    func put(_ item: InputItem) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !closed, lineCount >= capacityLines { condition.wait() }
        guard !closed else { return false }
        switch item {
        case .lines(_, let lines, _, _): lineCount += lines.count
        case .fileLines(_, let lines, _, _): lineCount += lines.count
        case .message: lineCount += 1
        case .posted(_, let lines, _, _, _): lineCount += lines.count
        case .records(_, let records): lineCount += records.count
        default: break
        }
        items.append(item)
        condition.broadcast()
        return true
    }

    /// Takes everything queued, waiting up to `timeout` seconds for something (or a wake).
    func takeAll(timeout: Double) -> [InputItem] {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(timeout)
        while items.isEmpty, !wakeRequested, !closed {
            if !condition.wait(until: deadline) { break }
        }
        wakeRequested = false
        let taken = items
        items.removeAll(keepingCapacity: true)
        lineCount = 0
        condition.broadcast()
        return taken
    }

    /// Takes everything queued without waiting; nothing once a wake was asked for, which the
    /// loop's next ``takeAll(timeout:)`` answers.
    func takeAvailable() -> [InputItem] {
        condition.lock()
        defer { condition.unlock() }
        guard !wakeRequested, !items.isEmpty else { return [] }
        let taken = items
        items.removeAll(keepingCapacity: true)
        lineCount = 0
        condition.broadcast()
        return taken
    }

    /// Wakes the loop (a signal arrived).
    func wake() {
        condition.lock()
        wakeRequested = true
        condition.broadcast()
        condition.unlock()
    }

    /// Refuses further items and releases any waiting producer.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
