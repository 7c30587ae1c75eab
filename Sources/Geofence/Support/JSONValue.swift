/// Any JSON value, for formats whose shape is checked by hand (GeoJSON, tracker messages) so that
/// errors can name the exact field.
enum JSONValue: Hashable, Sendable, Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Decodes and checks a value written by `encode(to:)`.
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// The number, if this is one.
    var number: Double? { if case .number(let value) = self { value } else { nil } }
    /// The string, if this is one.
    var string: String? { if case .string(let value) = self { value } else { nil } }
    /// The elements, if this is an array.
    var array: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    /// The members, if this is an object.
    var object: [String: JSONValue]? { if case .object(let value) = self { value } else { nil } }

    /// The member of an object, or `nil`.
    subscript(key: String) -> JSONValue? { object?[key] }

    /// A short name of the value's kind, for error messages.
    var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
