/// Splits a stream of JSON text into the objects that are records, in bounded memory.
///
/// Tracker exports wrap their records in one large document: Google Takeout's
/// `{"locations":[...]}` (hundreds of megabytes), Overland's `{"locations":[...]}` batches,
/// GeoJSON's `{"type":"FeatureCollection","features":[...]}`, the OwnTracks Recorder's
/// `{"count":N,"locations":[...]}` (`ocat`) and `{"data":[...]}` (its HTTP API), a bare array, or
/// an array of arrays (Home Assistant's history API: one array of states per entity).
/// Decoding such a document whole would hold all of it in memory; this splitter is fed the text
/// in chunks of any size and hands over one record at a time, never keeping more than one record
/// (at most ``maximumRecordBytes``) plus a few bytes of state.
///
/// The stream is a sequence of top-level values (one document, or several written one after the
/// other, as a log of Overland posts is). In each top-level object, the elements of a member named
/// `locations`, `features`, `data` or `rawSignals` whose value is an array are the records; the
/// object's other members are skipped without being kept. A top-level array's elements are the
/// records, and so are the elements of an array nested in it. A top-level object with no such array is itself one record (a single GeoJSON Feature,
/// an NDJSON-style object); it is kept while it is read, up to ``maximumRecordBytes``.
///
/// Only the nesting is followed here (strings, escapes, brackets); each record's own syntax is
/// checked when it is decoded, so a broken record costs that record alone.
struct JSONRecordSplitter {
    /// What the splitter hands over.
    enum Piece: Equatable {
        /// The complete text of one record, from its first to its last byte; `line` is the
        /// 1-based line where it starts, `container` the member it was found in (`nil` for the
        /// elements of a top-level array and for a top-level object that is itself a record).
        case record(bytes: [UInt8], line: Int, container: String?)
        /// A top-level object ended without a record array and was too large to be one record;
        /// `keys` are the first few of its member names, to say what it looked like.
        case oversizedObject(line: Int, keys: [String])
        /// A record was larger than ``maximumRecordBytes`` and skipped.
        case oversizedRecord(line: Int, container: String?)
        /// A member of a top-level object whose value is an array that does not hold records
        /// began (its name is given, so a caller can say which format that member belongs to).
        case skippedMember(name: String, line: Int)
        /// The text broke JSON's structure; nothing after it in this stream is read.
        case malformed(line: Int, message: String)
    }

    /// Members whose array elements are records.
    static let recordArrayNames: Set<String> = ["locations", "features", "data", "rawSignals"]

    /// The largest record kept; a longer one is skipped (a tracker's record is a few hundred
    /// bytes, an Overland batch of 1000 points about 600 KB).
    let maximumRecordBytes: Int

    /// Where the splitter is in the text.
    private enum Mode {
        /// Between top-level values.
        case topLevel
        /// In a top-level object, before a member name, `}` or `,`.
        case memberStart
        /// Reading a member name.
        case memberName
        /// After a member name, before `:`.
        case colon
        /// After `:`, before the member's value.
        case memberValue
        /// Passing over a member's value (kept only while the object may be a record itself).
        case skippingValue
        /// In a record array, before an element, `,` or `]`.
        case elementStart
        /// Inside an element.
        case element
        /// After a structural error: everything is ignored.
        case stopped
    }

    private var mode = Mode.topLevel
    /// 1-based line of the byte being read.
    private(set) var line = 1
    /// The member name being read, or the last one read.
    private var name: [UInt8] = []
    private var nameEscaped = false
    /// The record array being read, by name (`nil` for a top-level array).
    private var container: String?
    /// Whether the record array being read is a member of a top-level object (else it is the
    /// top-level array itself).
    private var arrayInObject = false
    /// Inside an array that is an element of a top-level array (Home Assistant's history is an
    /// array per entity, in an array): its elements are the records.
    private var innerArray = false
    /// The value or element being passed over.
    private var value = JSONValueEnd()
    /// The element being collected, and where it started.
    private var buffer: [UInt8] = []
    private var bufferLine = 0
    private var oversized = false
    /// Whether the top-level object being read could still be a record itself (no record array
    /// met yet, and not too large), in which case its bytes are kept in `whole`.
    private var objectIsCandidate = false
    private var whole: [UInt8] = []
    private var wholeLine = 0
    private var objectKeys: [String] = []
    private var sawRecordArray = false
    /// The most bytes ever held at once, for tests of the memory bound.
    private(set) var peakBufferedBytes = 0

    /// Makes a splitter.
    init(maximumRecordBytes: Int = 1 << 20) {
        self.maximumRecordBytes = maximumRecordBytes
    }

    /// Reads the next chunk of text; each complete record is handed to `handle` as soon as its
    /// last byte has been read.
    mutating func feed(_ chunk: UnsafeBufferPointer<UInt8>, _ handle: (Piece) -> Void) {
        for byte in chunk {
            step(byte, handle)
            if byte == UInt8(ascii: "\n") { line += 1 }
        }
        peakBufferedBytes = max(peakBufferedBytes, buffer.capacity + whole.capacity)
    }

    /// Reads text already in memory.
    mutating func feed(_ bytes: [UInt8], _ handle: (Piece) -> Void) {
        bytes.withUnsafeBufferPointer { feed($0, handle) }
    }

    /// Ends the stream: a value left open is reported.
    mutating func finish(_ handle: (Piece) -> Void) {
        if mode == .element, value.isBareScalar {
            // A scalar element at the very end of the text, never closed by `]`.
            handle(.malformed(line: line, message: "the JSON ends inside an array"))
        } else if mode != .topLevel && mode != .stopped {
            handle(.malformed(line: line, message: "the JSON ends before its last value is closed"))
        }
        mode = .stopped
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// Keeps a byte of a top-level object that may still turn out to be a record.
    private mutating func keep(_ byte: UInt8) {
        guard objectIsCandidate else { return }
        if whole.count >= maximumRecordBytes {
            objectIsCandidate = false
            whole = []
            return
        }
        whole.append(byte)
    }

    private mutating func step(_ byte: UInt8, _ handle: (Piece) -> Void) {
        switch mode {
        case .stopped:
            return
        case .topLevel:
            // Blanks, and a byte-order mark, between values.
            if Self.isSpace(byte) || byte == 0xEF || byte == 0xBB || byte == 0xBF { return }
            if byte == UInt8(ascii: "{") {
                mode = .memberStart
                objectIsCandidate = true
                whole = [byte]
                wholeLine = line
                objectKeys = []
                sawRecordArray = false
            } else if byte == UInt8(ascii: "[") {
                container = nil
                arrayInObject = false
                innerArray = false
                mode = .elementStart
            } else {
                fail("expected a JSON object or array", handle)
            }
        case .memberStart:
            keep(byte)
            if Self.isSpace(byte) || byte == UInt8(ascii: ",") { return }
            if byte == UInt8(ascii: "\"") {
                name = []
                nameEscaped = false
                mode = .memberName
            } else if byte == UInt8(ascii: "}") {
                endObject(handle)
            } else {
                fail("expected a member name in quotes", handle)
            }
        case .memberName:
            keep(byte)
            if nameEscaped {
                nameEscaped = false
                if name.count < 256 { name.append(byte) }
            } else if byte == UInt8(ascii: "\\") {
                nameEscaped = true
            } else if byte == UInt8(ascii: "\"") {
                if objectKeys.count < 8 { objectKeys.append(String(decoding: name, as: UTF8.self)) }
                mode = .colon
            } else if name.count < 256 {
                name.append(byte)
            }
        case .colon:
            keep(byte)
            if Self.isSpace(byte) { return }
            guard byte == UInt8(ascii: ":") else { return fail("expected ':' after a member name", handle) }
            mode = .memberValue
        case .memberValue:
            if Self.isSpace(byte) {
                keep(byte)
                return
            }
            let memberName = String(decoding: name, as: UTF8.self)
            if byte == UInt8(ascii: "["), Self.recordArrayNames.contains(memberName) {
                // From here on the object is a wrapper, never a record itself.
                objectIsCandidate = false
                whole = []
                sawRecordArray = true
                container = memberName
                arrayInObject = true
                mode = .elementStart
                return
            }
            if byte == UInt8(ascii: "[") {
                handle(.skippedMember(name: memberName, line: line))
            }
            keep(byte)
            value = JSONValueEnd()
            mode = .skippingValue
            if value.begin(byte) == .ended { mode = .memberStart }
        case .skippingValue:
            switch value.next(byte) {
            case .inside:
                keep(byte)
            case .ended:
                keep(byte)
                mode = .memberStart
            case .endedBefore:
                // The delimiter after a number or literal belongs to the object.
                mode = .memberStart
                step(byte, handle)
            }
        case .elementStart:
            if Self.isSpace(byte) || byte == UInt8(ascii: ",") { return }
            if byte == UInt8(ascii: "]") {
                if innerArray {
                    innerArray = false
                    return
                }
                // The record array ended: back in its object, or at the top level.
                mode = arrayInObject ? .memberStart : .topLevel
                container = nil
                return
            }
            if byte == UInt8(ascii: "["), !arrayInObject, !innerArray {
                innerArray = true
                return
            }
            buffer = [byte]
            oversized = false
            bufferLine = line
            value = JSONValueEnd()
            mode = .element
            if value.begin(byte) == .ended { endElement(handle) }
        case .element:
            let result = value.next(byte)
            if result != .endedBefore, !oversized {
                if buffer.count >= maximumRecordBytes {
                    oversized = true
                    buffer = []
                } else {
                    buffer.append(byte)
                }
            }
            switch result {
            case .inside: break
            case .ended: endElement(handle)
            case .endedBefore:
                endElement(handle)
                step(byte, handle)
            }
        }
    }

    private mutating func endElement(_ handle: (Piece) -> Void) {
        mode = .elementStart
        if oversized {
            handle(.oversizedRecord(line: bufferLine, container: container))
        } else {
            handle(.record(bytes: buffer, line: bufferLine, container: container))
        }
        buffer = []
    }

    private mutating func endObject(_ handle: (Piece) -> Void) {
        mode = .topLevel
        if sawRecordArray { return }
        if objectIsCandidate {
            let record = whole
            whole = []
            objectIsCandidate = false
            handle(.record(bytes: record, line: wholeLine, container: nil))
        } else {
            handle(.oversizedObject(line: wholeLine, keys: objectKeys))
        }
    }

    private mutating func fail(_ message: String, _ handle: (Piece) -> Void) {
        mode = .stopped
        buffer = []
        whole = []
        handle(.malformed(line: line, message: message))
    }
}

/// Finds where one JSON value ends, a byte at a time, following strings, escapes and nesting.
struct JSONValueEnd {
    /// What one byte did to the value.
    enum Step: Equatable {
        /// The value goes on.
        case inside
        /// The byte was the value's last.
        case ended
        /// The value (a number or literal) had already ended: the byte is the delimiter after it.
        case endedBefore
    }

    private var depth = 0
    private var inString = false
    private var escaped = false
    private var scalar = false

    /// Whether the value is a number or literal not yet ended.
    var isBareScalar: Bool { scalar }

    /// The value's first byte.
    mutating func begin(_ byte: UInt8) -> Step {
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["): depth = 1
        case UInt8(ascii: "\""): inString = true
        default: scalar = true
        }
        return .inside
    }

    /// Every later byte.
    mutating func next(_ byte: UInt8) -> Step {
        if scalar {
            switch byte {
            case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D:
                scalar = false
                return .endedBefore
            default:
                return .inside
            }
        }
        if inString {
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
                if depth == 0 { return .ended }
            }
            return .inside
        }
        switch byte {
        case UInt8(ascii: "\""): inString = true
        case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
            depth -= 1
            if depth == 0 { return .ended }
        default: break
        }
        return .inside
    }
}
