import Foundation

/// A line of the project's NDJSON, written member by member.
struct NDJSONLine {
    private var members: [String] = []

    /// Adds a number member, if there is a value.
    mutating func add(_ key: String, _ value: Double?) {
        guard let value else { return }
        let text =
            value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        members.append("\"\(key)\":\(text)")
    }

    /// Adds a string member, if there is a value.
    mutating func add(_ key: String, _ value: String?) {
        guard let value else { return }
        members.append("\"\(key)\":\(OwnTracksMessage.quoted(value))")
    }

    /// The JSON object.
    var text: String { "{" + members.joined(separator: ",") + "}" }
}
