import Foundation
import GeofenceRuntime

/// `geofence commutes`: the stored commutes, as NDJSON (each commute's stored JSON) or as a table.
enum CommutesCommand {
    static let usage = """
        usage: geofence commutes [--state DIR] [--limit N] [--table] [--time-zone ID]
          --limit N      only the last N commutes to start
        """

    static func run(_ arguments: [String]) throws {
        if arguments.contains("-h") || arguments.contains("--help") {
            print(usage)
            return
        }
        let options = try StoredListingOptions.parse(arguments, usage: usage, acceptsSince: false)
        let reader = try options.openReader()
        defer { reader.close() }
        let commutes = try reader.commutes(limit: options.limit)
        guard options.table else {
            printLines(commutes.map(\.json))
            return
        }
        let header = [
            tableCell("start", 21), tableCell("end", 21), tableCell("took", 9), tableCell("from", 14),
            tableCell("to", 14), tableCell("rule", 14), tableCell("status", 11), "device",
        ].joined()
        printLines(
            [header]
                + commutes.map { commute in
                    [
                        tableCell(commute.start.map { TimeText.local($0, in: options.timeZone) } ?? "?", 21),
                        tableCell(commute.end.map { TimeText.local($0, in: options.timeZone) } ?? "-", 21),
                        tableCell(commute.durationSeconds.map(TimeText.duration) ?? "-", 9),
                        tableCell(commute.fromPlace, 14), tableCell(commute.toPlace, 14),
                        tableCell(commute.rule, 14),
                        tableCell(commute.status, 11), commute.device ?? "-",
                    ].joined()
                })
    }
}
