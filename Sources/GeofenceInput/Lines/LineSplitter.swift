#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Cuts a stream of bytes into lines, keeping the offset after the last line it handed out.
///
/// Bytes after the last newline wait for the rest of their line: a writer may be in the middle of
/// writing it. A line that grows past `maxLineBytes` is not kept: its bytes are counted and
/// dropped until its newline, and it is handed out as a line marked too long.
package struct LineSplitter {
    /// The longest line kept, in bytes.
    package let maxLineBytes: Int
    /// The offset just after the last line handed out.
    package private(set) var consumedOffset: Int64
    /// How many lines have been handed out.
    package private(set) var line: Int64
    /// The start of a line whose newline has not arrived yet.
    private var pending: [UInt8] = []
    /// While dropping an overlong line: how many of its bytes were dropped; `nil` otherwise.
    private var dropped: Int64?

    package init(maxLineBytes: Int, offset: Int64 = 0, line: Int64 = 0) {
        self.maxLineBytes = max(1, maxLineBytes)
        consumedOffset = offset
        self.line = line
    }

    /// The offset of the next byte to read: after the last line and the bytes waiting for theirs.
    package var readOffset: Int64 { consumedOffset + (dropped ?? Int64(pending.count)) }

    /// Whether bytes of an unfinished line are waiting.
    package var hasPartialLine: Bool { dropped != nil || !pending.isEmpty }

    /// Starts again at `offset`, forgetting any unfinished line.
    package mutating func reset(offset: Int64, line: Int64) {
        consumedOffset = offset
        self.line = line
        pending = []
        dropped = nil
    }

    /// Takes the next bytes read and returns the lines they complete.
    package mutating func append(_ bytes: some Collection<UInt8>) -> [InputLine] {
        var lines: [InputLine] = []
        append(bytes) { lines.append($0) }
        return lines
    }

    /// Takes the next bytes read and hands `body` each line they complete, in order.
    package mutating func append(
        _ bytes: some Collection<UInt8>, _ body: (InputLine) throws -> Void
    ) rethrows {
        let done: Void? = try bytes.withContiguousStorageIfAvailable { buffer in
            try append(buffer: buffer, body)
        }
        if done == nil {
            try Array(bytes).withUnsafeBufferPointer { try append(buffer: $0, body) }
        }
    }

    private mutating func append(
        buffer: UnsafeBufferPointer<UInt8>, _ body: (InputLine) throws -> Void
    ) rethrows {
        guard let base = buffer.baseAddress else { return }
        var start = 0
        while start < buffer.count,
            let found = memchr(base + start, Int32(UInt8(ascii: "\n")), buffer.count - start)
        {
            let newline = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            let piece = UnsafeBufferPointer(rebasing: buffer[start..<newline])
            start = newline + 1
            // A line wholly inside the bytes is read where it lies; only the start of a line
            // split between two reads waits in `pending`.
            try body(pending.isEmpty && dropped == nil ? whole(piece) : complete(piece, terminatorBytes: 1))
        }
        if start < buffer.count { keep(UnsafeBufferPointer(rebasing: buffer[start...])) }
    }

    /// A line that arrived whole, ended by a newline.
    private mutating func whole(_ bytes: UnsafeBufferPointer<UInt8>) -> InputLine {
        line += 1
        let length = Int64(bytes.count)
        let endOffset = consumedOffset + length + 1
        consumedOffset = endOffset
        guard bytes.count <= maxLineBytes else {
            return InputLine(text: "", number: line, endOffset: endOffset, isTooLong: true, byteCount: length)
        }
        var text = bytes
        if text.last == UInt8(ascii: "\r") { text = UnsafeBufferPointer(rebasing: text.dropLast()) }
        return InputLine(
            text: String(decoding: text, as: UTF8.self), number: line, endOffset: endOffset, byteCount: length
        )
    }

    /// The unfinished line, if any, handed out as it is: the end of a file that is not followed, or
    /// the last words of a file that was rotated away.
    package mutating func finish() -> InputLine? {
        guard hasPartialLine else { return nil }
        return complete(EmptyCollection<UInt8>(), terminatorBytes: 0)
    }

    /// Keeps the bytes of a line still being written, or starts dropping it once it is too long.
    private mutating func keep(_ bytes: some Collection<UInt8>) {
        if let count = dropped {
            dropped = count + Int64(bytes.count)
        } else if pending.count + bytes.count > maxLineBytes {
            dropped = Int64(pending.count + bytes.count)
            pending = []
        } else {
            pending.append(contentsOf: bytes)
        }
    }

    /// The line made of the waiting bytes and `tail`, which ends it.
    private mutating func complete(_ tail: some Collection<UInt8>, terminatorBytes: Int64) -> InputLine {
        line += 1
        let length: Int64
        let result: InputLine
        if let count = dropped {
            length = count + Int64(tail.count)
            result = InputLine(
                text: "", number: line, endOffset: consumedOffset + length + terminatorBytes, isTooLong: true,
                byteCount: length)
        } else if pending.count + tail.count > maxLineBytes {
            length = Int64(pending.count + tail.count)
            result = InputLine(
                text: "", number: line, endOffset: consumedOffset + length + terminatorBytes, isTooLong: true,
                byteCount: length)
        } else {
            pending.append(contentsOf: tail)
            length = Int64(pending.count)
            var bytes = pending[...]
            if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
            result = InputLine(
                text: String(decoding: bytes, as: UTF8.self), number: line,
                endOffset: consumedOffset + length + terminatorBytes, byteCount: length)
        }
        consumedOffset += length + terminatorBytes
        pending.removeAll(keepingCapacity: pending.capacity <= 1 << 16)
        dropped = nil
        return result
    }
}
