import Foundation
import Geofence
import GeofenceInput

/// `geofence stays FILE|-`: the visits hidden in a file of fixes, as NDJSON or as a table.
///
/// Visits are printed as the detector reports them, so on standard input they appear while the
/// input is still being written: each stay once when it starts and once when it ends.
enum StaysCommand {
    static let usage = """
        usage: geofence stays FILE|- [--table] [--time-zone ID] [--format FORMAT] [--radius METRES]
                                     [--min-stay DURATION] [--max-strays N] [--max-gap DURATION]
                                     [--accuracy-limit METRES]
        """

    /// What the command line asked for.
    struct Options {
        var path: String?
        var table = false
        var timeZone = TimeZone.current
        var configuration = VisitDetector.Configuration()
        var format = InputFormat.auto
    }

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--table": options.table = true
            case "--format": options.format = try ArgumentText.format(after: argument, in: &rest)
            case "--time-zone": options.timeZone = try ArgumentText.timeZone(after: argument, in: &rest)
            case "--radius":
                options.configuration.radiusMeters = try ArgumentText.number(
                    ArgumentText.value(after: argument, in: &rest), for: argument)
            case "--min-stay":
                options.configuration.minimumStaySeconds = try ArgumentText.seconds(
                    ArgumentText.value(after: argument, in: &rest), for: argument)
            case "--max-strays":
                let text = try ArgumentText.value(after: argument, in: &rest)
                guard let count = Int(text), count >= 0 else {
                    throw CommandError(message: "\(argument) wants a whole number, not '\(text)'", status: 2)
                }
                options.configuration.maxStrays = count
            case "--max-gap":
                options.configuration.maxGapSeconds = try ArgumentText.seconds(
                    ArgumentText.value(after: argument, in: &rest), for: argument)
            case "--accuracy-limit":
                options.configuration.accuracyLimitMeters = try ArgumentText.number(
                    ArgumentText.value(after: argument, in: &rest), for: argument)
            default:
                if argument.hasPrefix("-") && argument != "-" {
                    throw CommandError(message: "unknown option '\(argument)'\n\n\(usage)", status: 2)
                }
                guard options.path == nil else {
                    throw CommandError(message: "one input at a time, not '\(argument)' as well", status: 2)
                }
                options.path = argument
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
        guard let path = options.path else {
            throw CommandError(message: "which file? ('-' reads standard input)\n\n\(usage)", status: 2)
        }
        var detector = VisitDetector(configuration: options.configuration)
        let output = FileHandle.standardOutput
        let table = VisitTable(timeZone: options.timeZone)
        func emit(_ visits: [Visit]) {
            guard !visits.isEmpty else { return }
            let lines = visits.map { options.table ? table.row($0) : ndjson($0) }
            output.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        }
        if options.table { output.write(Data((table.header + "\n").utf8)) }
        let reader = RecordReader(path: path, format: options.format)
        let tally = try reader.read(
            record: { if let fix = $0.fix { emit(detector.ingest(fix)) } },
            error: { FileHandle.standardError.write(Data("geofence: \($0)\n".utf8)) },
            note: { FileHandle.standardError.write(Data("geofence: \(reader.source): \($0)\n".utf8)) })
        emit(detector.finish())
        FileHandle.standardError.write(Data("geofence: \(InputSummary.line(tally, dropped: nil))\n".utf8))
        try InputSummary.requireSomethingRead(tally)
    }

    /// One visit as a line of NDJSON; unknown times are `null`.
    static func ndjson(_ visit: Visit) -> String {
        func time(_ date: Date?) -> String { date.map { "\"\(TimeText.iso8601($0))\"" } ?? "null" }
        return "{\"arrival\":\(time(visit.arrival)),\"departure\":\(time(visit.departure)),"
            + String(
                format: "\"latitude\":%.7f,\"longitude\":%.7f,\"horizontalAccuracy\":%.1f}",
                visit.coordinate.latitude, visit.coordinate.longitude, visit.horizontalAccuracy)
    }
}

/// Visits as rows a person reads: what happened, when, how long, where.
struct VisitTable {
    let timeZone: TimeZone

    var header: String {
        [
            pad("", 8), pad("arrival", 17), pad("departure", 17), pad("stayed", 8), pad("latitude", 12),
            pad("longitude", 12), "accuracy",
        ].joined()
    }

    func row(_ visit: Visit) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        let arrival = visit.arrival.map(formatter.string(from:)) ?? "?"
        let departure = visit.departure.map(formatter.string(from:)) ?? "-"
        let stayed = visit.duration.map(Self.hoursAndMinutes) ?? "-"
        return [
            pad(visit.isOngoing ? "arrived" : "left", 8), pad(arrival, 17), pad(departure, 17),
            pad(stayed, 8),
            pad(String(format: "%.5f", visit.coordinate.latitude), 12),
            pad(String(format: "%.5f", visit.coordinate.longitude), 12),
            String(format: "%.0f m", visit.horizontalAccuracy),
        ].joined()
    }

    /// `4:05` for four hours and five minutes.
    static func hoursAndMinutes(_ seconds: TimeInterval) -> String {
        let minutes = Int((seconds / 60).rounded())
        return String(format: "%d:%02d", minutes / 60, minutes % 60)
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text.padding(toLength: width, withPad: " ", startingAt: 0)
    }
}
