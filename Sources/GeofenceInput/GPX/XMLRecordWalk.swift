import Foundation
import Geofence

/// What a reader of one XML format (GPX, KML) does with the scanner's elements: the records it
/// collects and the errors it finds.
protocol XMLRecordCollector: AnyObject {
    /// Fixes, in document order.
    var fixes: [Fix] { get }
    /// Records that move nothing (points without a time), in document order.
    var untimed: [InputRecord] { get }
    /// Every problem, with where it is.
    var errors: [RecordError] { get set }
    /// Set when reading must stop (too many errors).
    var aborted: Bool { get }

    /// An element opens.
    func start(_ elementName: String, attributes: [String: String], line: Int)
    /// Text inside the innermost open element.
    func characters(_ string: String)
    /// An element closes.
    func end(_ elementName: String)
}

/// The one walk over a whole XML document that GPX and KML share: the byte-order mark, the UTF-8
/// check, the scan, and the fixes put in time order.
enum XMLRecordWalk {
    /// Reads `data` into `collector`. A document in another encoding is refused whole; one with a
    /// byte that is not UTF-8 (or a NUL, which XML forbids) is read up to the line before it; a
    /// malformed one keeps what was read before the fault and an error naming where it is.
    /// `format` names the format in errors ("GPX"). Returns the refusal, or `nil` once walked.
    static func walk(_ data: Data, source: String, format: String, into collector: some XMLRecordCollector)
        -> InputBatch?
    {
        var body = data
        // A UTF-8 byte-order mark before `<?xml` is legal but trips some XML parsers.
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        var cut = false
        switch XMLBytes.check(body) {
        case .valid:
            break
        case .otherEncoding(let name):
            return InputBatch(errors: [
                RecordError(
                    source: source, line: 1,
                    message: "the document declares encoding \"\(name)\"; only UTF-8 \(format) is read",
                    kind: .malformed)
            ])
        case .invalid(let offset, let line, let column):
            collector.errors.append(
                RecordError(
                    source: source, line: line, column: column,
                    message:
                        "byte \(offset) is not UTF-8 (or is a NUL); the document is read up to the line before it",
                    kind: .malformed))
            let lineStart =
                body[..<(body.startIndex + offset)].lastIndex(of: UInt8(ascii: "\n")) ?? body.startIndex
            body = body[..<lineStart]
            cut = true
        }
        var scanner = XMLScanner(body)
        do throws(XMLScanner.Fault) {
            try scanner.scan { item in
                switch item {
                case .start(let name, let attributes, let line):
                    collector.start(name, attributes: attributes, line: line)
                case .text(let text): collector.characters(text)
                case .end(let name): collector.end(name)
                }
                return !collector.aborted
            }
        } catch {
            // A document cut by the byte check above already has its error.
            if !cut {
                collector.errors.append(
                    RecordError(
                        source: source, line: error.line, column: error.column,
                        message: "the XML is malformed here: \(error.message)", kind: .malformed))
            }
        }
        return nil
    }

    /// What was collected: the fixes in time order (equal times keep document order, since a
    /// document's waypoints often come before its tracks), then the records that move nothing.
    static func batch(of collector: some XMLRecordCollector) -> InputBatch {
        let ordered = collector.fixes.enumerated().sorted {
            ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset)
        }
        return InputBatch(
            records: ordered.map { .fix($0.element) } + collector.untimed, errors: collector.errors)
    }
}
