import Foundation

/// The byte check in front of the XML parser: what FoundationXML may be given.
///
/// Foundation's `XMLParser` on Linux traps inside its element callback when a name is not UTF-8
/// (the five bytes `<\xff/>` crash the process), so GPX reading never hands it such bytes. Checking
/// the whole document once is linear and cheap next to parsing it; GPX writers all produce UTF-8,
/// so a document declaring another encoding is refused rather than converted.
enum XMLBytes {
    /// What the check found.
    enum Verdict: Equatable {
        /// Every byte is UTF-8 and none is NUL.
        case valid
        /// The XML declaration names an encoding other than UTF-8 (or its ASCII subset).
        case otherEncoding(String)
        /// The first offending byte: its offset, and its 1-based line and column.
        case invalid(offset: Int, line: Int, column: Int)
    }

    static func check(_ data: some Collection<UInt8>) -> Verdict {
        let bytes = Array(data)
        if let name = declaredEncoding(bytes) {
            let lower = name.lowercased()
            if lower != "utf-8", lower != "utf8", lower != "us-ascii", lower != "ascii" {
                return .otherEncoding(name)
            }
        }
        var index = 0
        var line = 1
        var lineStart = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\n") {
                line += 1
                lineStart = index + 1
                index += 1
                continue
            }
            let length = sequenceLength(bytes, at: index)
            guard byte != 0, length > 0 else {
                return .invalid(offset: index, line: line, column: index - lineStart + 1)
            }
            index += length
        }
        return .valid
    }

    /// The length of the well-formed UTF-8 sequence starting at `index`, or 0 (RFC 3629: no
    /// overlong forms, no surrogates, nothing above U+10FFFF).
    private static func sequenceLength(_ b: [UInt8], at i: Int) -> Int {
        let first = b[i]
        if first < 0x80 { return 1 }
        func continuation(_ k: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            i + k < b.count && b[i + k] >= low && b[i + k] <= high
        }
        switch first {
        case 0xC2...0xDF: return continuation(1) ? 2 : 0
        case 0xE0: return continuation(1, 0xA0) && continuation(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF: return continuation(1) && continuation(2) ? 3 : 0
        case 0xED: return continuation(1, 0x80, 0x9F) && continuation(2) ? 3 : 0
        case 0xF0: return continuation(1, 0x90) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF1...0xF3: return continuation(1) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF4: return continuation(1, 0x80, 0x8F) && continuation(2) && continuation(3) ? 4 : 0
        default: return 0
        }
    }

    /// The `encoding` pseudo-attribute of an XML declaration at the very start, if any.
    private static func declaredEncoding(_ bytes: [UInt8]) -> String? {
        let head = bytes.prefix(200)
        guard head.starts(with: Array("<?xml".utf8)), let end = head.firstIndex(of: UInt8(ascii: ">")) else {
            return nil
        }
        let declaration = String(decoding: head[..<end], as: UTF8.self)
        guard let range = declaration.range(of: "encoding") else { return nil }
        let rest = declaration[range.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\t" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        let value = rest.dropFirst().prefix { $0 != quote }
        return String(value)
    }
}
