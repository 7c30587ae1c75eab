/// A reader of one record a line (``LineDecoder``, ``CSVReader``): it reads bytes, and takes
/// a line as text or any collection of bytes through the same door.
public protocol LineRecordDecoder {
    /// Reads one line from a buffer that is only valid for the call (its line break may be left
    /// on); `nil` for a line that holds no record (blank, a `#` comment, a header).
    mutating func decode(bytes: UnsafeBufferPointer<UInt8>, number: Int) -> Result<InputRecord?, RecordError>
}

extension LineRecordDecoder {
    /// Reads one line given as text.
    @inlinable
    public mutating func decode(_ line: some StringProtocol, number: Int) -> Result<InputRecord?, RecordError>
    {
        if let result = line.utf8.withContiguousStorageIfAvailable({ decode(bytes: $0, number: number) }) {
            return result
        }
        var text = String(line)
        return text.withUTF8 { decode(bytes: $0, number: number) }
    }

    /// Reads one line given as UTF-8 bytes; the fastest way in, with no `String` made.
    @inlinable
    public mutating func decode(utf8 line: some Collection<UInt8>, number: Int) -> Result<
        InputRecord?, RecordError
    > {
        if let result = line.withContiguousStorageIfAvailable({ decode(bytes: $0, number: number) }) {
            return result
        }
        return Array(line).withUnsafeBufferPointer { decode(bytes: $0, number: number) }
    }
}
