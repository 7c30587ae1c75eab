/// Small helpers on a line's bytes shared by the line readers.
enum LineBytes {
    /// The line without surrounding whitespace, a trailing line break or a leading byte-order
    /// mark (a file's first line often has one; any line may, after files are concatenated).
    static func trim(_ bytes: UnsafeBufferPointer<UInt8>) -> (start: Int, end: Int) {
        var start = 0
        var end = bytes.count
        if end >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { start = 3 }
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        return (start, end)
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
            || byte == UInt8(ascii: "\n")
    }

    /// Whether a CSV row repeats the header (files joined with `cat` repeat it).
    static func isHeaderAgain(_ cells: [CSVCell], _ bytes: UnsafeBufferPointer<UInt8>, _ header: CSVHeader)
        -> Bool
    {
        guard let index = header.indices[.latitude], index < cells.count else { return false }
        return cells[index].text(bytes) == header.names[index]
    }

    /// The 1-based column, in characters, of a byte offset: UTF-8 continuation bytes do not
    /// start a character.
    static func column(of offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var column = 1
        for index in 0..<min(offset, bytes.count) where bytes[index] & 0xC0 != 0x80 { column += 1 }
        return column
    }
}
