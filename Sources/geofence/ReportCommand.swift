import Foundation
import Geofence
import GeofenceInput
import GeofenceReport
import GeofenceRules
import GeofenceRuntime

/// `geofence report RULES INPUT -o report.html` (a replay) or `geofence report --state DIR`
/// (what a `run` stored): one self-contained HTML page showing what the engine decided and why.
enum ReportCommand {
    static let usage = """
        usage: geofence report RULES INPUT -o FILE [--device NAME] [--format FORMAT] [--time-zone ZONE]
               geofence report --state DIR [RULES] -o FILE [--device NAME]

          INPUT              a file, or - for standard input, replayed as `geofence replay` does
          --state DIR        report what a `geofence run` stored in DIR instead (events, commutes,
                             hooks and their outcomes; the store keeps no fixes, so no track);
                             RULES, if given, draws the places and sets the time zone
          -o, --output FILE  where to write the page (default report.html)
          --device NAME      the device shown (default: the first in the input, or the busiest in
                             the store)
          --format FORMAT    auto (default: told from the content), ndjson, owntracks, rec, gpx,
                             csv, json, takeout, geojson, kml, nmea or geolife
          --time-zone ZONE   the zone of input times written without one (default UTC)
        """

    struct Options {
        var paths: [String] = []
        var state: String?
        var output = "report.html"
        var device: String?
        var format = InputFormat.auto
        var timeZone = TimeZone.gmt
    }

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "-o", "--output": options.output = try ArgumentText.value(after: argument, in: &rest)
            case "--state": options.state = try ArgumentText.value(after: argument, in: &rest)
            case "--device": options.device = try ArgumentText.value(after: argument, in: &rest)
            case "--format": options.format = try ArgumentText.format(after: argument, in: &rest)
            case "--time-zone": options.timeZone = try ArgumentText.timeZone(after: argument, in: &rest)
            default:
                if argument.hasPrefix("-"), argument != "-" {
                    throw CommandError(message: "unknown option '\(argument)'\n\n\(usage)", status: 2)
                }
                options.paths.append(argument)
            }
        }
        let wanted = options.state == nil ? 2...2 : 0...1
        guard wanted.contains(options.paths.count) else { throw CommandError(message: usage, status: 2) }
        return options
    }

    static func run(_ arguments: [String]) throws {
        if arguments.contains("-h") || arguments.contains("--help") {
            print(usage)
            return
        }
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
            guard let rules else { throw CommandError(message: usage, status: 2) }
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
