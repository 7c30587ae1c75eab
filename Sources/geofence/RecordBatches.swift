import Foundation
import GeofenceInput

/// Reads a file's records on a thread of its own, in batches, so that reading and decoding the
/// next lines overlaps with processing the last ones (two cores: one decodes, one runs the
/// monitor). At most two batches wait, so memory stays bounded whatever the file's length.
///
/// The pipeline hands each batch's records back once it has processed them (``recycle(_:)``):
/// they are destroyed on the reading thread, which fills the array again, so the pipeline's
/// thread spends no time freeing records that other threads allocated (the C library takes
/// the allocating thread's arena lock for each, which the two threads then contend for).
final class RecordBatches: @unchecked Sendable {
    /// What the reading thread hands over.
    enum Item {
        /// Records in input order, with the unreadable lines and the remarks met among them.
        case batch([InputRecord], errors: [RecordError], notes: [String])
        /// The end of the input: what was read (``InputTally``), or the error that stopped reading.
        case end(Result<InputTally, any Error>)
    }

    private let condition = NSCondition()
    private var items: [Item] = []
    private let capacity = 2
    /// Set by ``stop()``: the reading thread stops at its next batch, and adds nothing more.
    private var stopped = false
    /// Record arrays the pipeline is done with, for the reading thread to empty and fill again.
    private var recycled: [[InputRecord]] = []

    /// Starts reading `reader`'s input in batches of `batchSize` records.
    init(reader: RecordReader, batchSize: Int) {
        var adapted = reader
        // While the batches read wait for the pipeline, decoding on more threads than the
        // reading one would only take processor time from the pipeline's.
        adapted.decodesOnThreadsNow = { [weak self] in self?.consumerKeepsUp ?? true }
        let reader = adapted
        let thread = Thread { [self] in
            var records: [InputRecord] = []
            var errors: [RecordError] = []
            var notes: [String] = []
            records.reserveCapacity(batchSize)
            do {
                let tally = try reader.read(
                    record: { record in
                        records.append(consume record)
                        if records.count >= batchSize {
                            guard self.put(.batch(records, errors: errors, notes: notes)) else {
                                throw Stopped()
                            }
                            // The pipeline holds the array given; one it handed back is emptied
                            // here, its records freed on this thread, and filled again.
                            records = self.takeRecycled()
                            records.removeAll(keepingCapacity: true)
                            if records.capacity < batchSize { records.reserveCapacity(batchSize) }
                            errors.removeAll()
                            notes.removeAll()
                        }
                    },
                    error: { failure in errors.append(failure) }, note: { notes.append($0) })
                put(.batch(records, errors: errors, notes: notes))
                put(.end(.success(tally)))
            } catch {
                put(.batch(records, errors: errors, notes: notes))
                put(.end(.failure(error)))
            }
        }
        thread.stackSize = 1 << 22
        thread.start()
    }

    /// Hands an item to the consumer, waiting while two wait; `false` once ``stop()`` was called.
    @discardableResult
    private func put(_ item: Item) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity, !stopped { condition.wait() }
        guard !stopped else { return false }
        items.append(item)
        condition.broadcast()
        return true
    }

    /// Whether the pipeline keeps up with the reading: fewer batches wait than may.
    private var consumerKeepsUp: Bool {
        condition.lock()
        defer { condition.unlock() }
        return items.count < capacity
    }

    /// What the reading thread throws to stop reading once ``stop()`` was called.
    private struct Stopped: Error {}

    /// Stops the reading thread at its next batch (if it is still reading) and drops what waits:
    /// for a consumer that gives up before the end (the rules failed to load).
    func stop() {
        condition.lock()
        defer { condition.unlock() }
        stopped = true
        items.removeAll()
        condition.broadcast()
    }

    /// Reads `reader`'s input on a thread of its own and hands `body` each batch of records, in
    /// order, once `report` has had the batch's unreadable lines and `remark` its remarks; each
    /// batch is handed back to the reading thread after `body`. Returns what was read, or throws
    /// the error that stopped the reading.
    static func read(
        _ reader: RecordReader, batchSize: Int, report: (RecordError) -> Void, remark: (String) -> Void,
        each body: ([InputRecord]) -> Void
    ) throws -> InputTally {
        try RecordBatches(reader: reader, batchSize: batchSize).take(
            report: report, remark: remark, each: body)
    }

    /// Hands `body` each batch read (started when this was made), as ``read(_:batchSize:report:remark:each:)``
    /// describes.
    func take(
        report: (RecordError) -> Void, remark: (String) -> Void, each body: ([InputRecord]) -> Void
    ) throws -> InputTally {
        let batches = self
        while true {
            switch batches.next() {
            case .batch(let records, let errors, let notes):
                for failure in errors { report(failure) }
                for note in notes { remark(note) }
                body(records)
                batches.recycle(consume records)
            case .end(let result):
                return try result.get()
            }
        }
    }

    /// Hands back the records of a batch the pipeline has processed (see the type's note).
    private func recycle(_ records: consuming [InputRecord]) {
        condition.lock()
        defer { condition.unlock() }
        recycled.append(records)
    }

    /// One of the arrays handed back (the others dropped here, on the reading thread), or an
    /// empty one.
    private func takeRecycled() -> [InputRecord] {
        condition.lock()
        var arrays: [[InputRecord]] = []
        swap(&arrays, &recycled)
        condition.unlock()
        return arrays.popLast() ?? []
    }

    /// The next item, waiting for the reading thread; `.end` is the last.
    private func next() -> Item {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty { condition.wait() }
        let item = items.removeFirst()
        condition.broadcast()
        return item
    }
}
