import Foundation

/// The usage line and `--help` text of a command, made from its definition.
enum Usage {
    /// `usage: geofence events [options]`, with the positional arguments in order.
    static func line(_ definition: CommandDefinition) -> String {
        var words = ["usage: geofence", definition.name]
        for argument in definition.arguments {
            words.append(argument.optional ? "[\(argument.name)]" : argument.name)
        }
        if !definition.options.isEmpty { words.append("[options]") }
        return words.joined(separator: " ")
    }

    /// The whole `--help` text: usage, summary, arguments, options (with `--help` last) and the
    /// discussion, the help column wrapped to fit 100 characters.
    static func help(_ definition: CommandDefinition) -> String {
        var lines = [line(definition), "", definition.summary]
        if !definition.arguments.isEmpty {
            lines += ["", "arguments:"]
            lines += table(
                definition.arguments.map { ($0.name, $0.help + ($0.optional ? " (optional)" : "")) })
        }
        let options =
            definition.options.map(\.spec) + [OptionSpec(names: ["--help", "-h"], help: "show this help")]
        lines += ["", "options:"]
        lines += table(
            options.map { spec in
                let names = spec.names.sorted { $0.count < $1.count }.reversed().joined(separator: ", ")
                let value = spec.valueName.map { " " + $0 } ?? ""
                return (names + value, spec.help + (spec.repeatable ? "; repeatable" : ""))
            })
        // Paragraphs are wrapped; lines that start with spaces (examples) are kept as written.
        for paragraph in definition.discussion.components(separatedBy: "\n\n") where !paragraph.isEmpty {
            lines.append("")
            for line in paragraph.split(separator: "\n", omittingEmptySubsequences: false) {
                lines += line.hasPrefix(" ") ? [String(line)] : wrap(String(line), width: 100)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Two columns: names padded to the widest (at most 28), help wrapped beside them.
    static func table(_ rows: [(String, String)]) -> [String] {
        let width = min(28, (rows.map(\.0.count).max() ?? 0) + 2)
        var lines: [String] = []
        for (name, help) in rows {
            let wrapped = wrap(help, width: max(30, 100 - 2 - width))
            let first = "  " + name
            if name.count + 2 <= width {
                lines.append(first.padding(toLength: width + 2, withPad: " ", startingAt: 0) + wrapped[0])
            } else {
                lines.append(first)
                lines.append(String(repeating: " ", count: width + 2) + wrapped[0])
            }
            for more in wrapped.dropFirst() { lines.append(String(repeating: " ", count: width + 2) + more) }
        }
        return lines
    }

    /// Splits text at spaces into lines of at most `width` characters (a longer word stays whole).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if current.isEmpty {
                current = String(word)
            } else if current.count + 1 + word.count <= width {
                current += " " + word
            } else {
                lines.append(current)
                current = String(word)
            }
        }
        lines.append(current)
        return lines
    }
}
