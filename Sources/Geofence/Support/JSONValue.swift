/// Any JSON value, for formats whose shape is checked by hand (GeoJSON, tracker messages) so that
/// errors can name the exact field.
public enum JSONValue: Hashable, Sendable, Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Decodes and checks a value written by `encode(to:)`.
    public init(from decoder: any Decoder) throws {
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
    public var number: Double? { if case .number(let value) = self { value } else { nil } }
    /// The string, if this is one.
    public var string: String? { if case .string(let value) = self { value } else { nil } }
    /// The elements, if this is an array.
    public var array: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    /// The members, if this is an object.
    public var object: [String: JSONValue]? { if case .object(let value) = self { value } else { nil } }

    /// The member of an object, or `nil`.
    public subscript(key: String) -> JSONValue? { object?[key] }

    /// A short name of the value's kind, for error messages.
    public var kindName: String {
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
