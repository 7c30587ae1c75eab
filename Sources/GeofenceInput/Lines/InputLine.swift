/// One complete line read from an input, with where it ended.
public struct InputLine: Sendable, Equatable {
    /// The line's text without its `\n` (or `\r\n`); bytes that are not UTF-8 are replaced by
    /// U+FFFD so the decoder downstream can report the line rather than the reader failing.
    /// Empty when ``isTooLong``.
    public var text: String
    /// The line's 1-based number in its file (or in standard input).
    public var number: Int64
    /// The byte offset just after the line's newline (or after its last byte, for a final line
    /// without one): the offset to resume at once this line is committed.
    public var endOffset: Int64
    /// Whether the line was longer than the reader's limit; its bytes were dropped unread so that
    /// a file without newlines cannot exhaust memory.
    public var isTooLong: Bool
    /// The line's length in bytes as written, without its `\n` (a `\r` before it is counted).
    public var byteCount: Int64

    /// Makes a line from its parts.
    public init(
        text: String, number: Int64, endOffset: Int64, isTooLong: Bool = false, byteCount: Int64? = nil
    ) {
        self.text = text
        self.number = number
        self.endOffset = endOffset
        self.isTooLong = isTooLong
        self.byteCount = byteCount ?? Int64(text.utf8.count)
    }
}
