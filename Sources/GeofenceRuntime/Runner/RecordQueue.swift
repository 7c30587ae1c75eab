import Foundation
import GeofenceInput

/// What an input thread hands to the engine's loop.
enum InputItem: Sendable {
    /// Complete lines from an input (`nil` text for a line too long to keep), with the position to store after the last of them (files
    /// only), and whether they arrived live (after the backlog present at start).
    case lines(input: String, lines: [(text: String?, number: Int64)], position: InputPosition?, live: Bool)
    /// One message from the MQTT broker, as a line (`nil` text for a payload too large to keep),
    /// with its topic for messages about it and a number counting messages since the start.
    case message(input: String, topic: String, text: String?, number: Int64, live: Bool)
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
        case .message: lineCount += 1
        case .records(_, let records): lineCount += records.count
        default: break
        }
        items.append(item)
        condition.broadcast()
        return true
    }

    /// Takes everything queued, waiting up to `timeout` seconds for something (or a wake).
    ///
    /// A backlog (lines that did not arrive live: history, a file's contents at start) is gathered
    /// for up to `gatherSeconds` until `gatherLines` lines wait, so that the engine commits it in
    /// batches of thousands of lines rather than in the read-sized pieces it comes in: each commit
    /// writes the devices' states and syncs the database. Anything live is handed over at once.
    func takeAll(timeout: Double, gatherLines: Int = 0, gatherSeconds: Double = 0) -> [InputItem] {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(timeout)
        while items.isEmpty, !wakeRequested, !closed {
            if !condition.wait(until: deadline) { break }
        }
        if !items.isEmpty, gatherLines > 0 {
            let gatherDeadline = Date().addingTimeInterval(gatherSeconds)
            while !closed, !wakeRequested, lineCount < min(gatherLines, capacityLines), isBacklog {
                if !condition.wait(until: gatherDeadline) { break }
            }
        }
        wakeRequested = false
        let taken = items
        items.removeAll(keepingCapacity: true)
        lineCount = 0
        condition.broadcast()
        return taken
    }

    /// Whether everything queued is backlog: lines that did not arrive live, or notes about them.
    private var isBacklog: Bool {
        items.allSatisfy { item in
            switch item {
            case .lines(_, _, _, let live): !live
            case .note, .records: true
            case .message, .ended: false
            }
        }
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
