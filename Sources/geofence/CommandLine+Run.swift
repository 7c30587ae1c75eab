import Foundation
import Geofence

/// A failure a command reports to the user: a message and an exit status.
struct CommandError: Error, CustomStringConvertible {
    let message: String
    var status: Int32 = 1
    /// Whether to start the message with "geofence: "; diagnostics that begin with a file name
    /// (`rules.yaml:3:5: ...`) read better without it.
    var prefixed = true
    var description: String { message }
}

extension CommandLine {
    static let usage = """
        usage: geofence <command> [options]

        commands:
          check RULES              check a rules file; print its places and rules, or every error
          replay RULES INPUT       run recorded fixes through the rules; print events and actions
          report RULES INPUT -o F  what the engine decided and why, as one HTML page (or --state DIR)
          run RULES --input PATH   the long-running job beside a tracker (see geofence run --help)
          demo                     print the example places and the signed distance of a few fixes
          stays FILE|-             the visits (stays) in a file of NDJSON fixes, as NDJSON or --table
          simulate day             the synthetic day as NDJSON fixes (--interval, --seed, --noise, --outliers)
          events                   the stored event log as NDJSON or --table (--state, --since, --limit)
          commutes                 the stored commutes as NDJSON or --table (--state, --limit)
          help                     show this text
        """

    /// Runs one command line, returning the process exit status.
    static func run(_ arguments: [String]) -> Int32 {
        guard let command = arguments.first else {
            FileHandle.standardError.write(Data((usage + "\n").utf8))
            return 2
        }
        let rest = Array(arguments.dropFirst())
        do {
            switch command {
            case "check": try CheckCommand.run(rest)
            case "replay": try ReplayCommand.run(rest)
            case "report": try ReportCommand.run(rest)
            case "run": try RunCommand.run(rest)
            case "demo": try DemoCommand.run(rest)
            case "stays": try StaysCommand.run(rest)
            case "simulate": try SimulateCommand.run(rest)
            case "events": try EventsCommand.run(rest)
            case "commutes": try CommutesCommand.run(rest)
            case "help", "--help", "-h": print(usage)
            default: throw CommandError(message: "unknown command '\(command)'\n\n\(usage)", status: 2)
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
}
