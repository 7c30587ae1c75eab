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
        try appendRaw(bytes) { try body($0.line) }
    }

    /// Takes the next bytes read and hands `body` each line they complete as its bytes, valid only
    /// for the call: a reader that decodes bytes needs no `String` per line (making one validates
    /// and copies every byte, the largest cost of reading a short line).
    package mutating func appendRaw(
        _ bytes: some Collection<UInt8>, _ body: (RawLine) throws -> Void
    ) rethrows {
        let done: Void? = try bytes.withContiguousStorageIfAvailable { buffer in
            try append(buffer: buffer, body)
        }
        if done == nil {
            try Array(bytes).withUnsafeBufferPointer { try append(buffer: $0, body) }
        }
    }

    private mutating func append(
        buffer: UnsafeBufferPointer<UInt8>, _ body: (RawLine) throws -> Void
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
            if pending.isEmpty && dropped == nil {
                try body(whole(piece))
            } else {
                try completeRaw(piece, terminatorBytes: 1, body)
            }
        }
        if start < buffer.count { keep(UnsafeBufferPointer(rebasing: buffer[start...])) }
    }

    /// A line that arrived whole, ended by a newline.
    private mutating func whole(_ bytes: UnsafeBufferPointer<UInt8>) -> RawLine {
        line += 1
        let length = Int64(bytes.count)
        let endOffset = consumedOffset + length + 1
        consumedOffset = endOffset
        guard bytes.count <= maxLineBytes else {
            return RawLine(bytes: nil, number: line, endOffset: endOffset, byteCount: length)
        }
        var text = bytes
        if text.last == UInt8(ascii: "\r") { text = UnsafeBufferPointer(rebasing: text.dropLast()) }
        return RawLine(bytes: text, number: line, endOffset: endOffset, byteCount: length)
    }

    /// The unfinished line, if any, handed out as it is: the end of a file that is not followed, or
    /// the last words of a file that was rotated away.
    package mutating func finish() -> InputLine? {
        var result: InputLine?
        finishRaw { result = $0.line }
        return result
    }

    /// The unfinished line, if any, handed to `body` as its bytes (see ``finish()``).
    package mutating func finishRaw(_ body: (RawLine) throws -> Void) rethrows {
        guard hasPartialLine else { return }
        try completeRaw(EmptyCollection<UInt8>(), terminatorBytes: 0, body)
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

    /// The line made of the waiting bytes and `tail`, which ends it, handed to `body`.
    private mutating func completeRaw(
        _ tail: some Collection<UInt8>, terminatorBytes: Int64, _ body: (RawLine) throws -> Void
    ) rethrows {
        line += 1
        let number = line
        let length: Int64
        let tooLong: Bool
        if let count = dropped {
            length = count + Int64(tail.count)
            tooLong = true
        } else if pending.count + tail.count > maxLineBytes {
            length = Int64(pending.count + tail.count)
            tooLong = true
        } else {
            pending.append(contentsOf: tail)
            length = Int64(pending.count)
            tooLong = false
        }
        let endOffset = consumedOffset + length + terminatorBytes
        consumedOffset = endOffset
        dropped = nil
        defer { pending.removeAll(keepingCapacity: pending.capacity <= 1 << 16) }
        guard !tooLong else {
            return try body(RawLine(bytes: nil, number: number, endOffset: endOffset, byteCount: length))
        }
        try pending.withUnsafeBufferPointer { buffer in
            var text = buffer
            if text.last == UInt8(ascii: "\r") { text = UnsafeBufferPointer(rebasing: text.dropLast()) }
            try body(RawLine(bytes: text, number: number, endOffset: endOffset, byteCount: length))
        }
    }
}

/// One complete line as the splitter found it: its bytes (valid only while the splitter's callback
/// runs), or none for a line longer than the limit, with where it ended.
package struct RawLine {
    /// The line's bytes without its `\n` (or `\r\n`), not yet checked as UTF-8; `nil` when the
    /// line was too long and its bytes were dropped.
    package var bytes: UnsafeBufferPointer<UInt8>?
    /// The line's 1-based number.
    package var number: Int64
    /// The byte offset just after the line's newline.
    package var endOffset: Int64
    /// The line's length in bytes as written, without its `\n`.
    package var byteCount: Int64

    /// Whether the line was longer than the splitter's limit.
    package var isTooLong: Bool { bytes == nil }

    /// The line as an ``InputLine``, its text made valid UTF-8 (U+FFFD for bad bytes).
    package var line: InputLine {
        guard let bytes else {
            return InputLine(text: "", number: number, endOffset: endOffset, isTooLong: true, byteCount: byteCount)
        }
        return InputLine(
            text: String(decoding: bytes, as: UTF8.self), number: number, endOffset: endOffset,
            byteCount: byteCount)
    }

    /// Whether every byte is ASCII, so the bytes are already the UTF-8 a `String` of them would
    /// hold (the common case, which then needs no `String` at all).
    package var isASCII: Bool {
        guard let bytes, let base = bytes.baseAddress else { return true }
        var index = 0
        let count = bytes.count
        // Thirty-two bytes at a time, then eight: any byte with its top bit set is not ASCII.
        while index + 32 <= count {
            let raw = UnsafeRawPointer(base + index)
            let word =
                raw.loadUnaligned(as: UInt64.self) | raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                | raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
                | raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
            if word & 0x8080_8080_8080_8080 != 0 { return false }
            index += 32
        }
        while index + 8 <= count {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            if word & 0x8080_8080_8080_8080 != 0 { return false }
            index += 8
        }
        while index < count {
            if base[index] >= 0x80 { return false }
            index += 1
        }
        return true
    }
}
