import Foundation

/// One value SQLite stores: its five storage classes, typed.
enum SQLiteValue: Sendable, Equatable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
    case null

    /// The value as an integer, if it is one.
    var int64: Int64? { if case .integer(let value) = self { value } else { nil } }

    /// The value as a double; integers are widened because SQLite may store a whole REAL as one.
    var double: Double? {
        switch self {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }

    /// The value as text, if it is text.
    var string: String? { if case .text(let value) = self { value } else { nil } }

    /// The value as bytes; text is given as its UTF-8 bytes.
    var data: Data? {
        switch self {
        case .blob(let value): value
        case .text(let value): Data(value.utf8)
        default: nil
        }
    }

    /// Whether the value is SQL NULL.
    var isNull: Bool { if case .null = self { true } else { false } }
}

extension SQLiteValue {
    /// Text, or NULL when the optional is empty.
    static func text(_ value: String?) -> SQLiteValue { value.map { .text($0) } ?? .null }
    /// A real, or NULL when the optional is empty.
    static func real(_ value: Double?) -> SQLiteValue { value.map { .real($0) } ?? .null }
    /// An integer, or NULL when the optional is empty.
    static func integer(_ value: Int64?) -> SQLiteValue { value.map { .integer($0) } ?? .null }
}

/// One row of a result, its values by column position and by name.
struct SQLiteRow: Sendable {
    /// The column names, in order.
    let columns: [String]
    /// The values, in column order.
    let values: [SQLiteValue]

    /// The value of the named column, or NULL when there is no such column.
    subscript(name: String) -> SQLiteValue {
        guard let index = columns.firstIndex(of: name) else { return .null }
        return values[index]
    }
}
