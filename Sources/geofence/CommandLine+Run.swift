import Foundation
import Geofence

/// Every command of the tool, in the order `geofence help` lists them.
enum Commands {
    /// The commands. Adding one is one line here (see ``Command``).
    static var all: [any Command.Type] {
        [
            CheckCommand.self,
            ReplayCommand.self,
            ReportCommand.self,
            RunCommand.self,
            ActionsCommand.self,
            EventsCommand.self,
            CommutesCommand.self,
            StaysCommand.self,
            SimulateCommand.self,
            DemoCommand.self,
            WaypointsCommand.self,
        ]
    }

    /// The command called `name`.
    static func named(_ name: String) -> (any Command.Type)? {
        all.first { $0.definition.name == name }
    }
}

extension CommandLine {
    /// The version `geofence --version` prints.
    static let version = "0.3.0"

    /// The text `geofence help` prints: every command with its summary.
    static var usage: String {
        let rows = Commands.all.map { ($0.definition.name, $0.definition.summary) }
        return
            (["usage: geofence <command> [options]", "", "commands:"] + Usage.table(rows)
            + [
                "", "geofence help COMMAND (or geofence COMMAND --help) shows a command's options.",
                "geofence --version prints the version.",
            ]).joined(separator: "\n")
    }

    /// Runs one command line, returning the process exit status.
    static func run(_ arguments: [String]) -> Int32 {
        guard let word = arguments.first else {
            FileHandle.standardError.write(Data((usage + "\n").utf8))
            return 2
        }
        let rest = Array(arguments.dropFirst())
        do {
            switch word {
            case "help", "--help", "-h":
                guard let topic = rest.first else {
                    print(usage)
                    return 0
                }
                try help(for: topic)
            case "--version", "version":
                print("geofence \(version)")
            default:
                guard let type = Commands.named(word) else {
                    let names = Commands.all.map { $0.definition.name } + ["help"]
                    throw CommandError(
                        message: "unknown command '\(word)'\(Suggestion.didYouMean(word, among: names))\n"
                            + "see 'geofence help' for the list of commands",
                        status: 2)
                }
                let parsed = try ParsedArguments(rest, definition: type.definition)
                if parsed.wantsHelp {
                    print(Usage.help(type.definition))
                } else {
                    try type.run(parsed)
                }
            }
            return 0
        } catch let error as CommandError {
            FileHandle.standardError.write(
                Data("\(error.prefixed ? "geofence: " : "")\(error.message)\n".utf8))
            return error.status
        } catch {
            FileHandle.standardError.write(Data("geofence: \(error)\n".utf8))
            return 1
        }
    }

    /// Prints the help of the command called `topic`.
    private static func help(for topic: String) throws {
        guard let type = Commands.named(topic) else {
            let names = Commands.all.map { $0.definition.name }
            throw CommandError(
                message: "no command '\(topic)'\(Suggestion.didYouMean(topic, among: names))", status: 2)
        }
        print(Usage.help(type.definition))
    }
}
