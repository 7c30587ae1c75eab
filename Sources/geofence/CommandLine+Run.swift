import Foundation
import Geofence

/// Every command of the tool, in the order `geofence help` lists them.
enum Commands {
    /// A command as the dispatcher knows it.
    enum Entry {
        /// A command declared with ``Command``: parsed, usage and `--help` made from its definition.
        case command(any Command.Type)
        /// A command that parses its own words (see ``Command`` to convert it).
        case legacy(name: String, summary: String, run: ([String]) throws -> Void)

        var name: String {
            switch self {
            case .command(let type): type.definition.name
            case .legacy(let name, _, _): name
            }
        }

        var summary: String {
            switch self {
            case .command(let type): type.definition.summary
            case .legacy(_, let summary, _): summary
            }
        }
    }

    /// The commands. Adding one is one line here (see ``Command``).
    static var all: [Entry] {
        [
            .command(CheckCommand.self),
            .command(ReplayCommand.self),
            .command(ReportCommand.self),
            .command(RunCommand.self),
            .command(ActionsCommand.self),
            .command(EventsCommand.self),
            .command(CommutesCommand.self),
            .command(StaysCommand.self),
            .command(SimulateCommand.self),
            .command(DemoCommand.self),
            .legacy(
                name: "waypoints", summary: "the places as an OwnTracks setWaypoints command",
                run: WaypointsCommand.run),
        ]
    }

    /// The command called `name`.
    static func named(_ name: String) -> Entry? {
        all.first { $0.name == name }
    }
}

extension CommandLine {
    /// The version `geofence --version` prints.
    static let version = "0.3.0"

    /// The text `geofence help` prints: every command with its summary.
    static var usage: String {
        let rows = Commands.all.map { ($0.name, $0.summary) }
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
                guard let entry = Commands.named(word) else {
                    let names = Commands.all.map(\.name) + ["help"]
                    throw CommandError(
                        message: "unknown command '\(word)'\(Suggestion.didYouMean(word, among: names))\n"
                            + "see 'geofence help' for the list of commands",
                        status: 2)
                }
                switch entry {
                case .command(let type):
                    let parsed = try ParsedArguments(rest, definition: type.definition)
                    if parsed.wantsHelp {
                        print(Usage.help(type.definition))
                    } else {
                        try type.run(parsed)
                    }
                case .legacy(_, _, let run): try run(rest)
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
        switch Commands.named(topic) {
        case .command(let type): print(Usage.help(type.definition))
        // A command that parses its own words prints its own help.
        case .legacy(_, _, let run): try run(["--help"])
        case nil:
            let names = Commands.all.map(\.name)
            throw CommandError(
                message: "no command '\(topic)'\(Suggestion.didYouMean(topic, among: names))", status: 2)
        }
    }
}
