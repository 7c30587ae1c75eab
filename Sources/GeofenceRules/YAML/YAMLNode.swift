/// A place in a text file: 1-based line and column.
public struct SourceMark: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Line, counting from 1.
    public var line: Int
    /// Column, counting from 1.
    public var column: Int

    /// Makes a mark.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// Orders values the natural way (earlier first).
    public static func < (lhs: SourceMark, rhs: SourceMark) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }

    /// A readable form, for logs and messages.
    public var description: String { "\(line):\(column)" }
}

/// One node of a parsed YAML (or JSON) document, with where it starts.
///
/// Scalars keep their text; what they mean (a number, a duration, a time of day) is decided by the
/// reader that knows which field it is, so an error can say what was expected there.
indirect enum YAMLNode: Sendable, Equatable {
    /// A scalar; `quoted` is true for single- or double-quoted text, which is never a number or null.
    case scalar(String, quoted: Bool, mark: SourceMark)
    /// A sequence of nodes.
    case sequence([YAMLNode], mark: SourceMark)
    /// A mapping, in document order; keys are scalars.
    case mapping([(key: String, keyMark: SourceMark, value: YAMLNode)], mark: SourceMark)

    /// Where the node starts.
    var mark: SourceMark {
        switch self {
        case .scalar(_, _, let mark), .sequence(_, let mark), .mapping(_, let mark): mark
        }
    }

    /// Whether this is a plain `null`, `~` or empty scalar.
    var isNull: Bool {
        if case .scalar(let text, false, _) = self {
            return ["", "~", "null", "Null", "NULL"].contains(text)
        }
        return false
    }

    /// A short name of the node's kind, for error messages.
    var kindName: String {
        switch self {
        case .scalar: "a scalar"
        case .sequence: "a list"
        case .mapping: "a mapping"
        }
    }

    /// Whether two values are the same.
    static func == (lhs: YAMLNode, rhs: YAMLNode) -> Bool {
        switch (lhs, rhs) {
        case (.scalar(let a, let qa, let ma), .scalar(let b, let qb, let mb)): a == b && qa == qb && ma == mb
        case (.sequence(let a, let ma), .sequence(let b, let mb)): a == b && ma == mb
        case (.mapping(let a, let ma), .mapping(let b, let mb)):
            ma == mb && a.count == b.count
                && zip(a, b).allSatisfy {
                    $0.key == $1.key && $0.keyMark == $1.keyMark && $0.value == $1.value
                }
        default: false
        }
    }
}
