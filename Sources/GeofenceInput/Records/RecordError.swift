/// Why one line (or one GPX point, or a whole source) could not be read.
///
/// Errors are values, not the end of a run: a reader returns one for the line at fault and goes
/// on with the next, so nothing already accepted is lost. The description is one line that
/// names the place and the field, e.g. `fixes.ndjson:17: field "latitude": 95.2 is outside -90...90`.
public struct RecordError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What sort of problem it is, for counting and for deciding what to report.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Latitude or longitude is not a finite number in range: no `Coordinate` can hold it.
        case invalidCoordinate
        /// A field the record needs is absent or null.
        case missingField
        /// A field has the wrong type or an impossible value (a bad time, a negative accuracy).
        case invalidField
        /// The line or document breaks its format's syntax (broken JSON, XML or CSV quoting).
        case malformed
        /// The line is in no format the reader knows, or in one it cannot read line by line.
        case unrecognized
        /// The source itself could not be read (a missing file).
        case unreadable
    }

    /// The name of the source, as given to the reader (usually a file name, or `stdin`).
    public var source: String
    /// The 1-based line number, or 0 when the error concerns the whole source.
    public var line: Int
    /// The 1-based column (in characters) where a syntax error was found, when that helps.
    public var column: Int?
    /// The field or column that was wrong, as named in the input.
    public var field: String?
    /// What was wrong, in words, quoting the offending value as it was written.
    public var message: String
    /// What sort of problem it is.
    public var kind: Kind

    /// Makes an error.
    public init(
        source: String, line: Int, column: Int? = nil, field: String? = nil, message: String, kind: Kind
    ) {
        self.source = source
        self.line = line
        self.column = column
        self.field = field
        self.message = message
        self.kind = kind
    }

    /// `source:line[:column]: [field "name": ]message`; the line is left out when it is 0.
    public var description: String {
        var text = source
        if line > 0 { text += ":\(line)" }
        if let column { text += ":\(column)" }
        text += ": "
        if let field { text += "field \"\(field)\": " }
        return text + message
    }
}

/// The old name of ``RecordError``, which clashed with the runtime's error for an input file that
/// cannot be opened.
@available(*, deprecated, renamed: "RecordError")
public typealias InputError = RecordError
