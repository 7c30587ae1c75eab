/// Where a followed file was read up to: which file, the byte offset after the last line delivered
/// and how many lines of that file were delivered.
///
/// Kept in the store (as an ``InputPosition``) with the step that consumed the lines, so a restart
/// resumes exactly after the last committed line: nothing before it is read again, nothing after
/// it is skipped.
public struct FilePosition: Codable, Sendable, Equatable {
    /// The file's identity, `device:inode`, which tells a rotated or replaced file from the one read.
    public var identity: String
    /// The byte offset just after the last line delivered.
    public var offset: Int64
    /// The number of lines of this file delivered so far (the last line's 1-based number).
    public var line: Int64

    /// Makes a position from its parts.
    public init(identity: String, offset: Int64, line: Int64) {
        self.identity = identity
        self.offset = offset
        self.line = line
    }

    /// The position kept in the store for `input`, or `nil` if it carries no identity (a standard
    /// input position, which cannot be resumed) or impossible numbers.
    public init?(_ stored: InputPosition) {
        guard let identity = stored.identity, !identity.isEmpty, stored.offset >= 0, stored.line >= 0
        else { return nil }
        self.init(identity: identity, offset: stored.offset, line: stored.line)
    }

    /// The position as the store keeps it, under the input's name (usually its path as given).
    public func inputPosition(input: String) -> InputPosition {
        InputPosition(input: input, identity: identity, offset: offset, line: line)
    }
}
