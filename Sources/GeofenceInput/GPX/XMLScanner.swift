import Foundation

/// A small non-validating XML scanner for the subset GPX uses: elements, attributes, text, the five
/// predefined entities and character references, CDATA; comments, processing instructions and a
/// DOCTYPE are skipped.
///
/// GPX used to go through FoundationXML's `XMLParser`, which libFuzzer crashed twice within
/// minutes on this machine: an element name that is not UTF-8 (`<\xff/>`, SIGILL) and a processing
/// instruction without data (`<?x?>`, a NULL `strlen`). Both are inside Foundation, out of reach of
/// a fix here, and byte checks in front of it only close the holes already found. This scanner is a
/// loop over bytes with an explicit element stack: it cannot recurse, never reads an external
/// entity (nor expands an internal one: a DOCTYPE is skipped whole), and stops at the first fault
/// with its line and column, after handing out everything before it.
struct XMLScanner {
    /// What the scanner reports, in document order.
    enum Item {
        case start(name: String, attributes: [String: String], line: Int)
        case text(String)
        case end(name: String)
    }

    /// Where and why scanning stopped early.
    struct Fault: Error, Equatable {
        var line: Int
        var column: Int
        var message: String
    }

    /// The deepest element nesting read; GPX needs 6 or so, extensions a few more.
    static let maxDepth = 256

    private let bytes: [UInt8]
    private var index = 0
    /// Offsets of every newline, for turning an offset into a line and column.
    private let newlines: [Int]

    init(_ data: some Collection<UInt8>) {
        bytes = Array(data)
        var offsets: [Int] = []
        for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") { offsets.append(offset) }
        newlines = offsets
    }

    /// The 1-based line and column of `offset`.
    func position(_ offset: Int) -> (line: Int, column: Int) {
        var low = 0
        var high = newlines.count
        while low < high {
            let middle = (low + high) / 2
            if newlines[middle] < offset { low = middle + 1 } else { high = middle }
        }
        let lineStart = low == 0 ? 0 : newlines[low - 1] + 1
        return (low + 1, offset - lineStart + 1)
    }

    private func fault(_ message: String, at offset: Int? = nil) -> Fault {
        let place = position(offset ?? index)
        return Fault(line: place.line, column: place.column, message: message)
    }

    /// Scans the whole document, handing each item to `handle`; `handle` returns false to stop.
    /// Throws the first fault; every item before it has been handed out.
    mutating func scan(_ handle: (Item) -> Bool) throws(Fault) {
        var open: [String] = []
        var rootClosed = false
        while index < bytes.count {
            if bytes[index] != UInt8(ascii: "<") {
                let start = index
                while index < bytes.count, bytes[index] != UInt8(ascii: "<") { index += 1 }
                let text = try decode(start, index)
                if open.isEmpty {
                    guard text.allSatisfy(\.isWhitespace) else {
                        throw fault("text outside the root element", at: start)
                    }
                    continue
                }
                guard handle(.text(text)) else { return }
                continue
            }
            if starts(with: "<?") {
                try skip(past: "?>", what: "processing instruction")
            } else if starts(with: "<!--") {
                try skip(past: "-->", what: "comment")
            } else if starts(with: "<![CDATA[") {
                let start = index + 9
                try skip(past: "]]>", what: "CDATA section")
                guard !open.isEmpty else { throw fault("CDATA outside the root element", at: start) }
                guard handle(.text(String(decoding: bytes[start..<(index - 3)], as: UTF8.self))) else {
                    return
                }
            } else if starts(with: "<!") {
                try skipDeclaration()
            } else if starts(with: "</") {
                let tagStart = index
                index += 2
                let name = try self.name()
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ">") else {
                    throw fault("expected > to end </\(name)")
                }
                index += 1
                guard let top = open.popLast() else { throw fault("</\(name)> closes nothing", at: tagStart) }
                guard top == name else { throw fault("</\(name)> closes <\(top)>", at: tagStart) }
                guard handle(.end(name: name)) else { return }
                if open.isEmpty { rootClosed = true }
            } else {
                let tagStart = index
                index += 1
                let name = try self.name()
                guard !rootClosed else {
                    throw fault("a second root element <\(name)>", at: tagStart)
                }
                var attributes: [String: String] = [:]
                var selfClosing = false
                while true {
                    let hadSpace = skipSpace()
                    guard index < bytes.count else {
                        throw fault("the document ends inside the tag <\(name)")
                    }
                    if bytes[index] == UInt8(ascii: ">") {
                        index += 1
                        break
                    }
                    if starts(with: "/>") {
                        index += 2
                        selfClosing = true
                        break
                    }
                    guard hadSpace else { throw fault("expected a space before an attribute of <\(name)>") }
                    let attribute = try self.name()
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                        throw fault("expected = after attribute \(attribute)")
                    }
                    index += 1
                    skipSpace()
                    guard index < bytes.count,
                        bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'")
                    else { throw fault("expected a quoted value for attribute \(attribute)") }
                    let quote = bytes[index]
                    index += 1
                    let start = index
                    while index < bytes.count, bytes[index] != quote {
                        if bytes[index] == UInt8(ascii: "<") {
                            throw fault("< inside the value of \(attribute)")
                        }
                        index += 1
                    }
                    guard index < bytes.count else {
                        throw fault("the value of \(attribute) is not closed", at: start)
                    }
                    let value = try decode(start, index)
                    index += 1
                    guard attributes.updateValue(value, forKey: attribute) == nil else {
                        throw fault("attribute \(attribute) appears twice in <\(name)>")
                    }
                }
                guard open.count < Self.maxDepth else {
                    throw fault("elements nested deeper than \(Self.maxDepth)", at: tagStart)
                }
                let line = position(tagStart).line
                guard handle(.start(name: name, attributes: attributes, line: line)) else { return }
                if selfClosing {
                    guard handle(.end(name: name)) else { return }
                    if open.isEmpty { rootClosed = true }
                } else {
                    open.append(name)
                }
            }
        }
        if let top = open.last { throw fault("the document ends inside <\(top)>") }
    }

    private func starts(with text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let pointer = text.utf8Start
        for offset in 0..<count where bytes[index + offset] != pointer[offset] { return false }
        return true
    }

    /// Moves past the next `end`, or throws naming the construct left open.
    private mutating func skip(past end: StaticString, what: String) throws(Fault) {
        let start = index
        let count = end.utf8CodeUnitCount
        while index + count <= bytes.count {
            if starts(with: end) {
                index += count
                return
            }
            index += 1
        }
        throw fault("the \(what) is not closed", at: start)
    }

    /// Skips `<!DOCTYPE ...>` (with an internal subset in brackets) or any other `<!` declaration.
    /// Nothing in it is read: entities it declares are never expanded.
    private mutating func skipDeclaration() throws(Fault) {
        let start = index
        var brackets = 0
        var quote: UInt8?
        index += 2
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "[") {
                brackets += 1
            } else if byte == UInt8(ascii: "]") {
                brackets = max(0, brackets - 1)
            } else if byte == UInt8(ascii: ">"), brackets == 0 {
                return
            }
        }
        throw fault("the <! declaration is not closed", at: start)
    }

    @discardableResult
    private mutating func skipSpace() -> Bool {
        let start = index
        while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
        return index > start
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func endsName(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "/"), UInt8(ascii: ">"), UInt8(ascii: "="), UInt8(ascii: "<"), UInt8(ascii: "\""),
            UInt8(ascii: "'"):
            true
        default: false
        }
    }

    /// An element or attribute name: up to a space, `/`, `>`, `=` or a quote.
    private mutating func name() throws(Fault) -> String {
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if Self.isSpace(byte) || Self.endsName(byte) {
                break
            }
            index += 1
        }
        guard index > start else { throw fault("expected a name") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// The text of `bytes[start..<end]` with entity and character references replaced.
    private func decode(_ start: Int, _ end: Int) throws(Fault) -> String {
        guard bytes[start..<end].contains(UInt8(ascii: "&")) else {
            return String(decoding: bytes[start..<end], as: UTF8.self)
        }
        var result = ""
        var runStart = start
        var i = start
        while i < end {
            guard bytes[i] == UInt8(ascii: "&") else {
                i += 1
                continue
            }
            result += String(decoding: bytes[runStart..<i], as: UTF8.self)
            var semicolon = i + 1
            while semicolon < end, semicolon - i <= 12, bytes[semicolon] != UInt8(ascii: ";") {
                semicolon += 1
            }
            guard semicolon < end, bytes[semicolon] == UInt8(ascii: ";") else {
                throw fault("& that starts no entity", at: i)
            }
            let reference = String(decoding: bytes[(i + 1)..<semicolon], as: UTF8.self)
            switch reference {
            case "lt": result += "<"
            case "gt": result += ">"
            case "amp": result += "&"
            case "quot": result += "\""
            case "apos": result += "'"
            default:
                var value: UInt32?
                if reference.hasPrefix("#x") {
                    value = UInt32(reference.dropFirst(2), radix: 16)
                } else if reference.hasPrefix("#") {
                    value = UInt32(reference.dropFirst(), radix: 10)
                }
                guard let value, value != 0, let scalar = Unicode.Scalar(value) else {
                    throw fault(
                        "unknown entity &\(reference); (only the five predefined ones are read)", at: i)
                }
                result.unicodeScalars.append(scalar)
            }
            i = semicolon + 1
            runStart = i
        }
        result += String(decoding: bytes[runStart..<end], as: UTF8.self)
        return result
    }
}
