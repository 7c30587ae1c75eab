import Foundation
import Geofence
import GeofenceInput
import GeofenceReport
import GeofenceRules
import GeofenceRuntime

/// `geofence report RULES INPUT -o report.html` (a replay) or `geofence report --state DIR`
/// (what a `run` stored): one self-contained HTML page showing what the engine decided and why.
enum ReportCommand: Command {
    static let output = Option(
        "--output", "-o", value: "FILE", help: "where to write the page (default report.html)",
        parse: ValueParser.text)
    static let device = Option(
        "--device", value: "NAME",
        help: "the device shown (default: the first in the input, or the busiest in the store)",
        parse: ValueParser.text)
    static let state = Option(
        "--state", value: "DIR",
        help: "report what a `geofence run` stored in DIR instead (events, commutes, hooks and their "
            + "outcomes; the store keeps no fixes, so no track); RULES, if given, draws the places and "
            + "sets the time zone", parse: ValueParser.text)

    static let definition = CommandDefinition(
        name: "report", summary: "what the engine decided and why, as one self-contained HTML page",
        arguments: [
            Positional(name: "RULES", help: "the rules file (needed for a replay)", optional: true),
            Positional(
                name: "INPUT", help: "a file, or - for standard input, replayed as `geofence replay` does",
                optional: true),
        ],
        options: [output.erased, state.erased, device.erased] + SharedOptions.reading,
        discussion: """
            geofence report RULES INPUT -o FILE      a replay
            geofence report --state DIR [RULES] -o FILE   what a run stored
            """)

    struct Options {
        var paths: [String] = []
        var state: String?
        var output = "report.html"
        var device: String?
        var format = InputFormat.auto
        var timeZone = TimeZone.gmt
    }

    static func parse(_ arguments: ParsedArguments) throws -> Options {
        var options = Options()
        options.paths = ["RULES", "INPUT"].compactMap { arguments.positional($0) }
        options.state = arguments.value(state)
        options.output = arguments.value(output) ?? options.output
        options.device = arguments.value(device)
        options.format = arguments.value(SharedOptions.format) ?? .auto
        options.timeZone = arguments.value(SharedOptions.inputTimeZone) ?? .gmt
        let wanted = options.state == nil ? 2...2 : 0...1
        guard wanted.contains(options.paths.count) else {
            throw CommandError.usage(
                options.state == nil
                    ? "report needs RULES and INPUT (or --state DIR)"
                    : "with --state, report takes at most RULES",
                command: "report")
        }
        return options
    }

    static func run(_ arguments: ParsedArguments) throws {
        let options = try parse(arguments)
        let rules = try options.paths.first.map(loadRules)
        let report: Report
        if let state = options.state {
            do {
                report = try StoreReport.make(directory: state, rules: rules, device: options.device)
            } catch let error as StoreError {
                throw CommandError(message: error.description)
            }
        } else {
            guard let rules else { throw CommandError.usage("report needs RULES", command: "report") }
            let inputPath = options.paths[1]
            var builder = ReportBuilder(rules: rules, device: options.device)
            let reader = RecordReader(path: inputPath, format: options.format, timeZone: options.timeZone)
            var errors = 0
            try reader.read(
                record: { builder.add($0) },
                error: { failure in
                    builder.addUnreadable()
                    errors += 1
                    if errors <= 20 { FileHandle.standardError.write(Data("geofence: \(failure)\n".utf8)) }
                })
            if errors > 20 {
                FileHandle.standardError.write(Data("geofence: \(errors - 20) more unreadable lines\n".utf8))
            }
            report = builder.finish(source: "replay of \(inputPath) through \(rules.path)")
        }
        let page = ReportHTML.render(report)
        do {
            try Data(page.utf8).write(to: URL(fileURLWithPath: options.output))
        } catch {
            throw CommandError(message: "cannot write \(options.output): \(error.localizedDescription)")
        }
        FileHandle.standardError.write(
            Data(
                "geofence: wrote \(options.output) (\(page.utf8.count / 1024) KB: \(report.days.count) days, \(report.commutes.count) commutes)\n"
                    .utf8))
    }

    private static func loadRules(_ path: String) throws -> RulesFile {
        switch RulesLoader.load(path: path) {
        case .success(let loaded): return loaded
        case .failure(let error):
            throw CommandError(
                message: "\(error)\nthe rules have errors; no report was written", status: 1, prefixed: false)
        }
    }
}
