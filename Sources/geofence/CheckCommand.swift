import Foundation
import GeofenceRules
import GeofenceRuntime

/// `geofence check RULES`: validates a rules file before anything runs, and warns about actions
/// that cannot work on this machine (a missing hook program, a log directory that is not writable).
enum CheckCommand: Command {
    static let definition = CommandDefinition(
        name: "check", summary: "check a rules file; print its places and rules, or every error",
        arguments: [Positional(name: "RULES", help: "the rules file (YAML or JSON)")],
        options: [SharedOptions.logDirectory.erased],
        discussion: """
            Errors name the file, line and column, and exit with status 1. Warnings (a hook program \
            that does not exist or is not executable, a log: file that cannot be written) do not fail \
            the check: they are judged as the user running check, which may not be the user the \
            service runs as.
            """)

    static func run(_ arguments: ParsedArguments) throws {
        guard let path = arguments.positional("RULES") else { return }
        switch RulesLoader.load(path: path) {
        case .success(let rules):
            print("\(path): OK")
            // What was read in a way the writer may not have meant, before the summary.
            for note in rules.notes {
                print("\(note.file):\(note.mark.line):\(note.mark.column): note: \(note.message)")
            }
            print(rules.summary)
            let warnings = ActionPreflight.warnings(
                for: rules, logDirectory: arguments.value(SharedOptions.logDirectory))
            if !warnings.isEmpty {
                FileHandle.standardError.write(
                    Data((warnings.map(\.description).joined(separator: "\n") + "\n").utf8))
            }
        case .failure(let error):
            let count = error.diagnostics.count
            throw CommandError(
                message: "\(error)\n\(count) error\(count == 1 ? "" : "s") in \(path)", status: 1,
                prefixed: false)
        }
    }
}
