import GeofenceInput

/// A file's complete lines from one read, their bytes kept together in one buffer as they were
/// written: the reading thread makes no `String` per line (making one validates and copies every
/// byte), and the decoder reads an ASCII line where it lies, as `replay` does.
struct LineBlock: Sendable {
    /// One line: where its bytes end in ``bytes`` (it starts where the one before ended), and
    /// what an ``InputLine`` says of it.
    struct Line: Sendable {
        var end: Int
        var number: Int64
        var endOffset: Int64
        var byteCount: Int64
        var isTooLong: Bool
        /// Whether every byte is ASCII: found by the reading thread, as it copies the line, so
        /// that the decoding thread (the busier) need not look at every byte again.
        var isASCII: Bool
    }

    /// The lines' bytes, without their newlines; a line too long has none.
    private(set) var bytes: [UInt8] = []
    /// The lines, in file order.
    private(set) var lines: [Line] = []

    init() {}

    /// An empty block with room for the lines of `byteCount` bytes read at once: grown a line
    /// at a time, its buffer was reallocated and copied about a dozen times for every read.
    init(reservingFor byteCount: Int) {
        bytes.reserveCapacity(byteCount)
        // Fixes are seldom shorter than 64 bytes; more lines only grow the array.
        lines.reserveCapacity(byteCount / 64 + 1)
    }

    /// The lines of `inputs`, as the follower delivered them.
    init(_ inputs: [InputLine]) {
        for line in inputs {
            if !line.isTooLong { bytes.append(contentsOf: line.text.utf8) }
            lines.append(
                Line(
                    end: bytes.count, number: line.number, endOffset: line.endOffset,
                    byteCount: line.byteCount, isTooLong: line.isTooLong,
                    isASCII: line.text.utf8.allSatisfy { $0 < 0x80 }))
        }
    }

    var count: Int { lines.count }
    var isEmpty: Bool { lines.isEmpty }
    /// The first line's number, if any.
    var first: Int64? { lines.first?.number }
    /// The last line's number, if any.
    var last: Int64? { lines.last?.number }

    /// Keeps a line the splitter found (its bytes are copied).
    mutating func append(_ line: RawLine) {
        if let text = line.bytes { bytes.append(contentsOf: text) }
        lines.append(
            Line(
                end: bytes.count, number: line.number, endOffset: line.endOffset, byteCount: line.byteCount,
                isTooLong: line.isTooLong, isASCII: line.isASCII))
    }

    /// Calls `body` with each line's bytes (`nil` for a line too long) and number, in order; the
    /// bytes are valid only for the call.
    func forEachLine(_ body: (UnsafeBufferPointer<UInt8>?, Int64) throws -> Void) rethrows {
        try forEachLine { bytes, number, _ in try body(bytes, number) }
    }

    /// ``forEachLine(_:)`` also telling `body` whether the line is all ASCII.
    func forEachLine(_ body: (UnsafeBufferPointer<UInt8>?, Int64, _ isASCII: Bool) throws -> Void) rethrows {
        try bytes.withUnsafeBufferPointer { buffer in
            var start = 0
            for line in lines {
                if line.isTooLong {
                    try body(nil, line.number, true)
                } else {
                    try body(
                        UnsafeBufferPointer(rebasing: buffer[start..<line.end]), line.number, line.isASCII)
                }
                start = line.end
            }
        }
    }

    /// The lines as texts, made valid UTF-8 (U+FFFD for bad bytes) as ``InputLine`` makes them
    /// (`nil` for a line too long): for the paths that take a line at a time.
    var texts: [(text: String?, number: Int64)] {
        var texts: [(text: String?, number: Int64)] = []
        texts.reserveCapacity(lines.count)
        forEachLine { bytes, number in
            texts.append((bytes.map { String(decoding: $0, as: UTF8.self) }, number))
        }
        return texts
    }

    /// The lines as the follower's ``InputLine``s.
    var inputLines: [InputLine] {
        var result: [InputLine] = []
        result.reserveCapacity(lines.count)
        var index = 0
        forEachLine { bytes, _ in
            let line = lines[index]
            index += 1
            result.append(
                InputLine(
                    text: bytes.map { String(decoding: $0, as: UTF8.self) } ?? "", number: line.number,
                    endOffset: line.endOffset, isTooLong: line.isTooLong, byteCount: line.byteCount))
        }
        return result
    }
}
