import Foundation

/// A command of the `geofence` tool: its options declared once, its usage and `--help` made from them.
///
/// # Declaring a command
///
/// 1. Write `Sources/geofence/NameCommand.swift` with `enum NameCommand: Command`.
/// 2. Declare each option once, as a static property holding an ``Option``: its names, the name of
///    its value, one line of help and the ``ValueParser`` that reads it. Options several commands
///    share (`--state`, `--format`, `--time-zone`, `--table`, `--limit`) are in ``SharedOptions``;
///    use those rather than declaring your own, so they read and behave the same everywhere.
///
///    ```swift
///    static let limit = Option("--limit", value: "N", help: "only the last N", parse: ValueParser.count)
///    static let failed = Option.flag("--failed", help: "only actions that failed")
///    ```
/// 3. Declare `definition`: the name, a one-line summary (shown by `geofence help`), the
///    positional arguments, the options, and a paragraph of discussion if the options do not say
///    enough. `--help` and `-h` are added to every command.
/// 4. Implement `run(_:)`, reading the values with ``ParsedArguments/value(_:)``,
///    ``ParsedArguments/values(_:)``, ``ParsedArguments/flag(_:)`` and
///    ``ParsedArguments/positional(_:)``. Throw ``CommandError`` for what the user must fix.
/// 5. Add the type to ``Commands/all`` (one line in `CommandLine+Run.swift`).
protocol Command {
    /// The command's name, arguments, options and help text.
    static var definition: CommandDefinition { get }
    /// Runs the command with its parsed arguments.
    static func run(_ arguments: ParsedArguments) throws
}

/// What a command accepts, and the text its `--help` prints.
struct CommandDefinition: Sendable {
    /// The word that selects the command (`events`).
    var name: String
    /// One line for `geofence help`.
    var summary: String
    /// The positional arguments in order; optional ones come last.
    var arguments: [Positional] = []
    /// Every option the command accepts.
    var options: [AnyOption] = []
    /// Text printed after the options in `--help` (examples, signals, notes).
    var discussion: String = ""
}

/// A positional argument (`RULES`, `INPUT`).
struct Positional: Sendable {
    /// The name usage shows (`RULES`).
    var name: String
    /// One line of help.
    var help: String
    /// Whether the command runs without it.
    var optional = false
}

/// A failure a command reports to the user: a message and an exit status.
struct CommandError: Error, CustomStringConvertible {
    /// What went wrong and, where it can, what to do.
    let message: String
    /// The exit status: 2 for a command line that cannot be understood, 1 for a failure.
    var status: Int32 = 1
    /// Whether to start the message with "geofence: "; diagnostics that begin with a file name
    /// (`rules.yaml:3:5: ...`) read better without it.
    var prefixed = true
    var description: String { message }

    /// A command line the named command cannot understand (exit status 2), with its usage line
    /// and a pointer to its help.
    static func usage(_ message: String, command: String) -> CommandError {
        var usage = ""
        if let type = Commands.named(command) { usage = Usage.line(type.definition) + "\n" }
        return CommandError(message: "\(message)\n\(usage)see 'geofence \(command) --help'", status: 2)
    }
}
