import Foundation
import Geofence
import GeofenceInput

/// `geofence stays FILE|-`: the visits hidden in a file of fixes, as NDJSON or as a table.
///
/// Visits are printed as the detector reports them, so on standard input they appear while the
/// input is still being written: each stay once when it starts and once when it ends.
enum StaysCommand: Command {
    private static let defaults = VisitDetector.Configuration()
    static let radius = Option(
        "--radius", value: "METRES",
        help: "a stay keeps within this distance of its centre (default \(Int(defaults.radiusMeters)))",
        parse: ValueParser.number)
    static let minimumStay = Option(
        "--min-stay", value: "DURATION",
        help: "the shortest stay (default \(TimeText.duration(defaults.minimumStaySeconds)))",
        parse: ValueParser.duration)
    static let maxStrays = Option(
        "--max-strays", value: "N",
        help: "stray fixes tolerated inside a stay (default \(defaults.maxStrays))",
        parse: ValueParser.wholeNumber)
    static let maxGap = Option(
        "--max-gap", value: "DURATION",
        help: "a silence longer than this ends a stay (default \(TimeText.duration(defaults.maxGapSeconds)))",
        parse: ValueParser.duration)
    static let accuracyLimit = Option(
        "--accuracy-limit", value: "METRES",
        help: "ignore fixes less accurate than this (default \(Int(defaults.accuracyLimitMeters)))",
        parse: ValueParser.number)

    static let definition = CommandDefinition(
        name: "stays", summary: "the visits (stays) in a file of fixes, as NDJSON or --table",
        arguments: [Positional(name: "INPUT", help: "a file of fixes, or - for standard input")],
        options: [
            SharedOptions.table.erased, SharedOptions.timeZone.erased, SharedOptions.format.erased,
            radius.erased, minimumStay.erased,
            maxStrays.erased, maxGap.erased, accuracyLimit.erased,
        ],
        discussion:
            "Each stay is printed when it starts and again when it ends, as the system reports a CLVisit.")

    static func run(_ arguments: ParsedArguments) throws {
        guard let path = arguments.positional("INPUT") else { return }
        var configuration = VisitDetector.Configuration()
        if let value = arguments.value(radius) { configuration.radiusMeters = value }
        if let value = arguments.value(minimumStay) { configuration.minimumStaySeconds = value }
        if let value = arguments.value(maxStrays) { configuration.maxStrays = value }
        if let value = arguments.value(maxGap) { configuration.maxGapSeconds = value }
        if let value = arguments.value(accuracyLimit) { configuration.accuracyLimitMeters = value }
        let tableWanted = arguments.flag(SharedOptions.table)
        var detector = VisitDetector(configuration: configuration)
        let output = FileHandle.standardOutput
        let table = VisitTable(timeZone: DisplayZone.resolve(arguments))
        func emit(_ visits: [Visit]) {
            guard !visits.isEmpty else { return }
            let lines = visits.map { tableWanted ? table.row($0) : ndjson($0) }
            output.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        }
        if tableWanted { output.write(Data((table.header + "\n").utf8)) }
        var reader = RecordReader(path: path, format: arguments.value(SharedOptions.format) ?? .auto)
        // Decoding is most of the work: JSON lines are decoded on every processor (at most 8).
        reader.decodingThreads = min(8, max(1, ProcessInfo.processInfo.activeProcessorCount))
        let source = reader.source
        func report(_ failure: RecordError) {
            FileHandle.standardError.write(Data("geofence: \(failure)\n".utf8))
        }
        func remark(_ note: String) {
            FileHandle.standardError.write(Data("geofence: \(source): \(note)\n".utf8))
        }
        let tally: InputTally
        if path == "-" {
            // Standard input may be live: each stay is printed as the fix that ends it comes.
            tally = try reader.read(
                record: { if let fix = $0.fix { emit(detector.ingest(fix)) } }, error: report, note: remark)
        } else {
            // A file is read and decoded on threads of their own while the detector takes the
            // batch before, as replay does.
            tally = try RecordBatches.read(
                reader, batchSize: ReplayCommand.batchSize, report: report, remark: remark
            ) { records in
                for record in records {
                    if case .fix(let fix) = record { emit(detector.ingest(fix)) }
                }
            }
        }
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

    /// The arrival column's title names the zone every time in the table is in.
    private var arrivalTitle: String { "arrival (\(DisplayZone.name(timeZone)))" }
    private var arrivalWidth: Int { max(17, arrivalTitle.count + 1) }

    var header: String {
        [
            pad("", 8), pad(arrivalTitle, arrivalWidth), pad("departure", 17), pad("stayed", 8),
            pad("latitude", 12),
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
        let stayed = visit.duration.map(TimeText.duration) ?? "-"
        return [
            pad(visit.isOngoing ? "arrived" : "left", 8), pad(arrival, arrivalWidth), pad(departure, 17),
            pad(stayed, 8),
            pad(String(format: "%.5f", visit.coordinate.latitude), 12),
            pad(String(format: "%.5f", visit.coordinate.longitude), 12),
            String(format: "%.0f m", visit.horizontalAccuracy),
        ].joined()
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text.padding(toLength: width, withPad: " ", startingAt: 0)
    }
}
