import Foundation
import GeofenceInput

/// Reads a file's records on a thread of its own, in batches, so that reading and decoding the
/// next lines overlaps with processing the last ones (two cores: one decodes, one runs the
/// monitor). At most two batches wait, so memory stays bounded whatever the file's length.
final class RecordBatches: @unchecked Sendable {
    /// What the reading thread hands over.
    enum Item {
        /// Records in input order, with the unreadable lines and the remarks met among them.
        case batch([InputRecord], errors: [InputError], notes: [String])
        /// The end of the input: what was read (``InputTally``), or the error that stopped reading.
        case end(Result<InputTally, any Error>)
    }

    private let condition = NSCondition()
    private var items: [Item] = []
    private let capacity = 2

    /// Starts reading `reader`'s input in batches of `batchSize` records.
    init(reader: RecordReader, batchSize: Int) {
        let thread = Thread { [self] in
            var records: [InputRecord] = []
            var errors: [InputError] = []
            var notes: [String] = []
            records.reserveCapacity(batchSize)
            do {
                let tally = try reader.read(
                    record: { record in
                        records.append(record)
                        if records.count >= batchSize {
                            self.put(.batch(records, errors: errors, notes: notes))
                            records.removeAll(keepingCapacity: true)
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

    private func put(_ item: Item) {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity { condition.wait() }
        items.append(item)
        condition.broadcast()
    }

    /// The next item, waiting for the reading thread; `.end` is the last.
    func next() -> Item {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty { condition.wait() }
        let item = items.removeFirst()
        condition.broadcast()
        return item
    }
}
