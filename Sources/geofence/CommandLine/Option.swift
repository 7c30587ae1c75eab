import Foundation

/// One option of a command, declared once: its names, its value's name, its help and its parser.
///
/// A flag (an option without a value) is an `Option<Bool>` made with ``flag(_:_:help:)``.
struct Option<Value: Sendable>: Sendable {
    /// The names and help, without the value's type (what the parser and usage need).
    let spec: OptionSpec
    /// Reads the value the user wrote.
    let parse: @Sendable (String) throws(ValueError) -> Value

    /// An option that takes a value: `--limit N`, also written `--limit=N`.
    init(
        _ name: String, _ short: String? = nil, value: String, help: String, repeatable: Bool = false,
        parse: @escaping @Sendable (String) throws(ValueError) -> Value
    ) {
        spec = OptionSpec(
            names: [name] + (short.map { [$0] } ?? []), valueName: value, help: help, repeatable: repeatable)
        self.parse = parse
    }

    /// The option as the list in a ``CommandDefinition`` holds it.
    var erased: AnyOption {
        AnyOption(spec: spec, parse: { (text: String) throws(ValueError) -> any Sendable in try parse(text) })
    }
}

extension Option where Value == Bool {
    /// An option without a value, true when given.
    static func flag(_ name: String, _ short: String? = nil, help: String) -> Option<Bool> {
        Option(
            spec: OptionSpec(names: [name] + (short.map { [$0] } ?? []), valueName: nil, help: help),
            parse: { _ in true })
    }
}

extension Option {
    fileprivate init(spec: OptionSpec, parse: @escaping @Sendable (String) throws(ValueError) -> Value) {
        self.spec = spec
        self.parse = parse
    }
}

/// An option's names and help.
struct OptionSpec: Sendable {
    /// The long name first (`--limit`), then a short one if any (`-n`).
    var names: [String]
    /// The name usage gives the value (`N`, `DIR`); nil for a flag.
    var valueName: String?
    /// One line of help; may mention the default.
    var help: String
    /// Whether it may be given more than once (each value is kept); otherwise the last one wins.
    var repeatable = false

    /// The long name.
    var name: String { names[0] }
}

/// An option of any value type, as a command's list of options holds it.
struct AnyOption: Sendable {
    /// Its names and help.
    let spec: OptionSpec
    /// Reads a value the user wrote.
    let parse: @Sendable (String) throws(ValueError) -> any Sendable
}

/// Why a value cannot be read: what was expected, and what might have been meant.
struct ValueError: Error {
    /// What the option wants (`a whole number of at least 1`).
    var expected: String
    /// A close value the user may have meant.
    var suggestion: String?
}
