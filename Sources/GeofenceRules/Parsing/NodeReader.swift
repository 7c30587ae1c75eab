import Foundation

/// Reads typed values out of YAML nodes, collecting every problem with its position instead of
/// stopping at the first.
struct NodeReader {
    let file: String
    private(set) var diagnostics: [RulesDiagnostic] = []
    /// What was read in a way the user may not have meant (a swapped axis order, a wrapped
    /// longitude): not errors, but `check` shows them.
    private(set) var notes: [RulesDiagnostic] = []

    init(file: String) { self.file = file }

    mutating func note(_ mark: SourceMark, _ message: String) {
        notes.append(RulesDiagnostic(file: file, mark: mark, message: message))
    }

    mutating func error(_ mark: SourceMark, _ message: String) {
        diagnostics.append(RulesDiagnostic(file: file, mark: mark, message: message))
    }

    /// The members of a mapping, after reporting any key not in `allowed`.
    mutating func mapping(_ node: YAMLNode, allowed: [String], context: String) -> Members? {
        guard case .mapping(let pairs, _) = node else {
            error(node.mark, "\(context) must be a mapping, not \(node.kindName)")
            return nil
        }
        for pair in pairs where !allowed.contains(pair.key) {
            error(
                pair.keyMark,
                "unknown key \"\(pair.key)\" in \(context)" + DidYouMean.hint(for: pair.key, among: allowed))
        }
        return Members(
            pairs: pairs.filter { allowed.contains($0.key) }.map { ($0.key, $0.keyMark, $0.value) })
    }

    mutating func string(_ node: YAMLNode, field: String) -> String? {
        guard case .scalar(let text, _, _) = node, !node.isNull else {
            error(node.mark, "\(field) must be text, not \(node.isNull ? "empty" : node.kindName)")
            return nil
        }
        return text
    }

    mutating func number(_ node: YAMLNode, field: String, minimum: Double? = nil, exclusive: Bool = false)
        -> Double?
    {
        guard case .scalar(let text, let quoted, _) = node, !quoted, let value = Double(text), value.isFinite
        else {
            error(node.mark, "\(field) must be a number, not \(describe(node))")
            return nil
        }
        if let minimum, exclusive ? value <= minimum : value < minimum {
            error(
                node.mark,
                "\(field) must be \(exclusive ? "more than" : "at least") \(format(minimum)), not \(text)")
            return nil
        }
        return value
    }

    mutating func integer(_ node: YAMLNode, field: String, minimum: Int) -> Int? {
        guard case .scalar(let text, let quoted, _) = node, !quoted, let value = Int(text) else {
            error(node.mark, "\(field) must be a whole number, not \(describe(node))")
            return nil
        }
        guard value >= minimum else {
            error(node.mark, "\(field) must be at least \(minimum), not \(value)")
            return nil
        }
        return value
    }

    mutating func bool(_ node: YAMLNode, field: String) -> Bool? {
        if case .scalar(let text, false, _) = node {
            switch text.lowercased() {
            case "true", "yes", "on": return true
            case "false", "no", "off": return false
            default: break
            }
        }
        error(node.mark, "\(field) must be true or false, not \(describe(node))")
        return nil
    }

    /// A duration: a number of seconds, or a number with a unit, or several (`90s`, `20m`, `1h30m`,
    /// `2d`).
    mutating func duration(_ node: YAMLNode, field: String) -> Double? {
        guard case .scalar(let text, _, _) = node, !node.isNull else {
            error(node.mark, "\(field) must be a duration like 90s, 20m or 1h30m, not \(describe(node))")
            return nil
        }
        guard let seconds = NodeReader.parseDuration(text), seconds > 0 else {
            error(
                node.mark,
                "\(field): bad duration \"\(text)\": use a number with s, m, h or d, like 90s, 20m or 1h30m")
            return nil
        }
        return seconds
    }

    /// The longest duration read: 100 years (see ``DurationText/maxSeconds``).
    static let maxDurationSeconds = DurationText.maxSeconds

    static func parseDuration(_ text: String) -> Double? {
        DurationText.parse(text)
    }

    /// A local time of day `HH:MM`, as minutes after midnight.
    mutating func timeOfDay(_ node: YAMLNode, field: String) -> Int? {
        guard case .scalar(let text, _, _) = node else {
            error(node.mark, "\(field) must be a time like \"07:30\", not \(node.kindName)")
            return nil
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]),
            (0...24).contains(hour), (0..<60).contains(minute), hour * 60 + minute <= 1440
        else {
            error(node.mark, "\(field): bad time \"\(text)\": use 24-hour HH:MM, like \"07:30\"")
            return nil
        }
        return hour * 60 + minute
    }

    /// A window `["HH:MM", "HH:MM"]`.
    mutating func window(_ node: YAMLNode, field: String) -> TimeWindow? {
        guard case .sequence(let items, _) = node, items.count == 2 else {
            error(node.mark, "\(field) must be a list of two times, like [\"09:00\", \"17:30\"]")
            return nil
        }
        guard let start = timeOfDay(items[0], field: field), let end = timeOfDay(items[1], field: field)
        else {
            return nil
        }
        return TimeWindow(startMinute: start, endMinute: end)
    }

    func describe(_ node: YAMLNode) -> String {
        if case .scalar(let text, _, _) = node { return node.isNull ? "empty" : "\"\(text)\"" }
        return node.kindName
    }

    private func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// The members of a mapping that passed the key check, in document order.
struct Members {
    let pairs: [(key: String, keyMark: SourceMark, value: YAMLNode)]

    subscript(key: String) -> YAMLNode? { pairs.first { $0.key == key }?.value }
    func keyMark(_ key: String) -> SourceMark? { pairs.first { $0.key == key }?.keyMark }
}
