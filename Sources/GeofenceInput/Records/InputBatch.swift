/// Everything read from one whole source: the records in order, and the errors of the lines
/// or points that were skipped.
public struct InputBatch: Sendable, Hashable {
    /// The records, in the order they were read (GPX: in time order).
    public var records: [InputRecord]
    /// One error for each line or point that could not be read, in the order met.
    public var errors: [RecordError]

    /// Makes a batch.
    public init(records: [InputRecord] = [], errors: [RecordError] = []) {
        self.records = records
        self.errors = errors
    }
}
