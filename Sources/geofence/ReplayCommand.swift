import Foundation
import Geofence
import GeofenceInput
import GeofenceRules

/// `geofence replay RULES INPUT`: runs recorded fixes and visits through the filter, visit
/// detection, the monitor and the rules, and prints every event and every action that would fire.
/// Nothing is executed: no hook runs, no log file is written.
enum ReplayCommand {
    static let usage = """
        usage: geofence replay RULES INPUT [--table] [--format FORMAT] [--time-zone ZONE] [--verbose]

          INPUT              a file, or - for standard input
          --table            print for a person instead of NDJSON
          --format FORMAT    auto (default: told from the content), ndjson, owntracks, rec, gpx,
                             csv, json, takeout, geojson, kml, nmea or geolife
          --time-zone ZONE   the zone of input times written without one (default UTC)
          --verbose          also print each fix the filter drops, with the reason
        """

    struct Options {
        var rulesPath: String?
        var inputPath: String?
        var table = false
        var verbose = false
        var format = InputFormat.auto
        var timeZone = TimeZone.gmt
    }

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--table": options.table = true
            case "--verbose", "-v": options.verbose = true
            case "--format": options.format = try ArgumentText.format(after: argument, in: &rest)
            case "--time-zone": options.timeZone = try ArgumentText.timeZone(after: argument, in: &rest)
            default:
                if argument.hasPrefix("-"), argument != "-" {
                    throw CommandError(message: "unknown option '\(argument)'\n\n\(usage)", status: 2)
                }
                if options.rulesPath == nil {
                    options.rulesPath = argument
                } else if options.inputPath == nil {
                    options.inputPath = argument
                } else {
                    throw CommandError(message: "one input at a time\n\n\(usage)", status: 2)
                }
            }
        }
        return options
    }

    static func run(_ arguments: [String]) throws {
        if arguments.contains("-h") || arguments.contains("--help") {
            print(usage)
            return
        }
        let options = try parse(arguments)
        guard let rulesPath = options.rulesPath, let inputPath = options.inputPath else {
            throw CommandError(message: usage, status: 2)
        }
        let rules: RulesFile
        switch RulesLoader.load(path: rulesPath) {
        case .success(let loaded): rules = loaded
        case .failure(let error):
            throw CommandError(
                message: "\(error)\nthe rules have errors; nothing was replayed", status: 1, prefixed: false)
        }
        var pipeline = Pipeline(rules: rules)
        let printer = ReplayPrinter(table: options.table, timeZone: rules.timeZone)
        var summary = ReplaySummary()
        let reader = RecordReader(path: inputPath, format: options.format, timeZone: options.timeZone)
        printer.header()
        let tally = try reader.read(
            record: { record in
                guard let output = pipeline.process(record, arrivedAt: nil) else {
                    summary.ignored += 1
                    return
                }
                summary.count(output)
                if let reason = output.dropped, options.verbose, let fix = record.fix {
                    printer.dropped(fix, reason: reason)
                }
                printer.print(output)
            },
            error: { failure in
                summary.errors += 1
                FileHandle.standardError.write(Data("geofence: \(failure)\n".utf8))
            },
            note: { FileHandle.standardError.write(Data("geofence: \(reader.source): \($0)\n".utf8)) })
        for output in pipeline.finish() {
            summary.count(output)
            printer.print(output)
        }
        printer.footer(summary.latencyText)
        // One summary line: what replay decided, then what the input gave (lines, fixes, fixes used).
        FileHandle.standardError.write(
            Data("geofence: \(summary); read \(InputSummary.line(tally, dropped: summary.dropped))\n".utf8))
        try InputSummary.requireSomethingRead(tally)
    }
}

/// Counts for the line replay prints on standard error at the end.
struct ReplaySummary: CustomStringConvertible {
    var dropped: [FixFilter.Reason: Int] = [:]
    var events = 0
    var actions = 0
    var commutes = 0
    var errors = 0
    var ignored = 0
    /// Seconds from each crossing (enter or exit, not first determinations) to its confirmation.
    var latencies: [Double] = []

    mutating func count(_ output: PipelineOutput) {
        if let reason = output.dropped { dropped[reason, default: 0] += 1 }
        for event in output.placeEvents where event.transition == .enter || event.transition == .exit {
            latencies.append(event.confirmedAt.timeIntervalSince(event.date))
        }
        events += output.placeEvents.count
        actions += output.actions.count
        commutes += output.commutes.count
    }

    var description: String {
        let drops = dropped.sorted { $0.key.rawValue < $1.key.rawValue }.map {
            "\($0.key.rawValue) \($0.value)"
        }
        let dropText = drops.isEmpty ? "" : " (" + drops.joined(separator: ", ") + ")"
        return "replayed: \(events) events, \(actions) actions, \(commutes) commutes; "
            + "\(dropped.values.reduce(0, +)) fixes dropped by the filter\(dropText), \(errors) unreadable lines, "
            + "\(ignored) records that move nothing; " + latencyText
    }

    /// The price of the hysteresis: median and worst time from a crossing to its confirmation.
    var latencyText: String {
        guard !latencies.isEmpty else { return "no crossings to confirm" }
        let sorted = latencies.sorted()
        let middle = sorted.count / 2
        let median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        return "confirmation latency median \(RulesDuration.text(median.rounded())), "
            + "worst \(RulesDuration.text((sorted.last ?? 0).rounded())) over \(sorted.count) crossings"
    }
}
