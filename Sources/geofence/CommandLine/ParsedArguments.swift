import Foundation

/// A command line read against a ``CommandDefinition``: the values of its options and its
/// positional arguments, each already checked by its parser.
struct ParsedArguments {
    /// The command these belong to.
    let definition: CommandDefinition
    private var values: [String: [any Sendable]] = [:]
    private var positionals: [String] = []
    /// Whether `--help` or `-h` was given; the caller prints the help and runs nothing.
    private(set) var wantsHelp = false

    /// Reads `words` (what follows the command's name).
    ///
    /// An option's value follows it (`--limit 5`) or is joined with `=` (`--limit=5`); `-` alone is
    /// a positional argument (standard input). `--help` anywhere asks for help and stops reading, so
    /// `geofence run --help` prints help even when other words are wrong.
    ///
    /// - Throws: ``CommandError`` with exit status 2, naming the option or argument, with a
    ///   suggestion for a misspelt option.
    init(_ words: [String], definition: CommandDefinition) throws {
        self.definition = definition
        var byName: [String: AnyOption] = [:]
        for option in definition.options {
            for name in option.spec.names { byName[name] = option }
        }
        var rest = words[...]
        var onlyPositionals = false
        while let word = rest.popFirst() {
            if onlyPositionals || !word.hasPrefix("-") || word == "-" {
                positionals.append(word)
                continue
            }
            if word == "--" {
                onlyPositionals = true
                continue
            }
            if word == "--help" || word == "-h" {
                wantsHelp = true
                return
            }
            var name = word
            var attached: String?
            if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                attached = String(word[word.index(after: equals)...])
            }
            guard let option = byName[name] else {
                // Help wins over every other mistake on the line.
                if rest.contains("--help") || rest.contains("-h") {
                    wantsHelp = true
                    return
                }
                let known =
                    definition.options.flatMap(\.spec.names).filter { $0.hasPrefix("--") } + ["--help"]
                throw CommandError.usage(
                    "unknown option '\(name)' for \(definition.name)"
                        + Suggestion.didYouMean(name, among: known), command: definition.name)
            }
            let text: String
            if option.spec.valueName == nil {
                guard attached == nil else {
                    throw CommandError.usage("\(name) takes no value", command: definition.name)
                }
                text = ""
            } else if let attached {
                text = attached
            } else {
                guard let next = rest.popFirst() else {
                    throw CommandError.usage(
                        "\(name) needs a value (\(option.spec.valueName ?? "VALUE"))",
                        command: definition.name)
                }
                text = next
            }
            do {
                let value = try option.parse(text)
                if option.spec.repeatable {
                    values[option.spec.name, default: []].append(value)
                } else {
                    values[option.spec.name] = [value]
                }
            } catch {
                let hint = error.suggestion.map { "; did you mean '\($0)'?" } ?? ""
                throw CommandError.usage(
                    "\(name) wants \(error.expected), not '\(text)'\(hint)", command: definition.name)
            }
        }
        let required = definition.arguments.filter { !$0.optional }
        if positionals.count < required.count {
            let missing = required[positionals.count...].map(\.name).joined(separator: " ")
            throw CommandError.usage("\(definition.name) needs \(missing)", command: definition.name)
        }
        if positionals.count > definition.arguments.count {
            let extra = positionals[definition.arguments.count...].map { "'\($0)'" }.joined(separator: " ")
            let takes =
                definition.arguments.isEmpty
                ? "no arguments" : definition.arguments.map(\.name).joined(separator: " ")
            throw CommandError.usage(
                "\(definition.name) takes \(takes); unexpected \(extra)", command: definition.name)
        }
    }

    /// The option's value, the last one given; nil when it was not given.
    func value<Value>(_ option: Option<Value>) -> Value? {
        values[option.spec.name]?.last as? Value
    }

    /// Every value given for a repeatable option, in order.
    func values<Value>(_ option: Option<Value>) -> [Value] {
        (values[option.spec.name] ?? []).compactMap { $0 as? Value }
    }

    /// Whether a flag was given.
    func flag(_ option: Option<Bool>) -> Bool {
        value(option) ?? false
    }

    /// Whether the option was given at all.
    func given<Value>(_ option: Option<Value>) -> Bool {
        values[option.spec.name] != nil
    }

    /// The positional argument declared as `name`, if given.
    func positional(_ name: String) -> String? {
        guard let index = definition.arguments.firstIndex(where: { $0.name == name }),
            index < positionals.count
        else { return nil }
        return positionals[index]
    }
}
