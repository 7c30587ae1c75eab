/// What was read from one input: lines, fixes, visits, records that move nothing (by kind) and
/// errors (by kind), so that every command can say what it read and, when no fix came, why.
public struct InputTally: Sendable, Equatable {
    /// The name of the input, as errors give it.
    public var source: String
    /// Lines read (for a JSON document, its lines as well: a record may span several).
    public var lines = 0
    /// Fixes read.
    public var fixes = 0
    /// Visits read.
    public var visits = 0
    /// OwnTracks transitions read (they move nothing: the engine decides crossings itself).
    public var transitions = 0
    /// Records recognised and skipped, by kind (`waypoint`, `nmea`, `trip`...).
    public var ignored: [String: Int] = [:]
    /// Lines or records that could not be read, by kind.
    public var errors: [RecordError.Kind: Int] = [:]
    /// The first error, to quote when nothing could be read.
    public var firstError: RecordError?

    /// An empty tally for an input.
    public init(source: String) {
        self.source = source
    }

    /// Counts one record.
    public mutating func count(_ record: InputRecord) {
        switch record {
        case .fix: fixes += 1
        case .visit: visits += 1
        case .transition: transitions += 1
        case .ignored(let kind, _): ignored[kind, default: 0] += 1
        }
    }

    /// Counts one error.
    public mutating func count(_ error: RecordError) {
        errors[error.kind, default: 0] += 1
        if firstError == nil { firstError = error }
    }

    /// Records that move nothing: transitions and the ignored.
    public var movingNothing: Int { transitions + ignored.values.reduce(0, +) }

    /// Errors of every kind.
    public var errorCount: Int { errors.values.reduce(0, +) }

    /// `12 lines: 10 fixes, 1 visit, 1 moving nothing (1 waypoint), 0 unreadable`.
    public var description: String {
        var parts = ["\(fixes) fix\(fixes == 1 ? "" : "es")"]
        if visits > 0 { parts.append("\(visits) visit\(visits == 1 ? "" : "s")") }
        var nothing = ignored.map { ($0.key, $0.value) }
        if transitions > 0 { nothing.append(("transition", transitions)) }
        let detail = nothing.sorted { $0.0 < $1.0 }.map { "\($0.1) \($0.0)" }.joined(separator: ", ")
        parts.append("\(movingNothing) moving nothing" + (detail.isEmpty ? "" : " (\(detail))"))
        let kinds = errors.sorted { $0.key.rawValue < $1.key.rawValue }.map {
            "\($0.value) \($0.key.rawValue)"
        }
        parts.append(
            "\(errorCount) unreadable" + (kinds.isEmpty ? "" : " (\(kinds.joined(separator: ", ")))"))
        return "\(source): \(lines) line\(lines == 1 ? "" : "s"): " + parts.joined(separator: ", ")
    }

    /// Why no fix (and no visit) came from the input, in words; `nil` when one did.
    public var whyNothingWasRead: String? {
        guard fixes == 0, visits == 0 else { return nil }
        if lines == 0 { return "no fix was read from \(source): it is empty" }
        if errorCount > 0, movingNothing == 0 {
            let quoted = firstError.map { "; the first: \($0)" } ?? ""
            return
                "no fix was read from \(source): none of its records could be read (\(errorCount) unreadable\(quoted))"
        }
        if movingNothing > 0, errorCount == 0 {
            return
                "no fix was read from \(source): its \(movingNothing) records carry no position (\(kindsText))"
        }
        if movingNothing > 0 {
            let quoted = firstError.map { "; the first error: \($0)" } ?? ""
            return
                "no fix was read from \(source): \(movingNothing) records carry no position (\(kindsText)) and \(errorCount) could not be read\(quoted)"
        }
        return "no fix was read from \(source): its \(lines) lines are blank or comments"
    }

    private var kindsText: String {
        var nothing = ignored.map { ($0.key, $0.value) }
        if transitions > 0 { nothing.append(("transition", transitions)) }
        return nothing.sorted { $0.0 < $1.0 }.map { "\($0.1) \($0.0)" }.joined(separator: ", ")
    }
}
