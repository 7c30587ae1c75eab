import Foundation
import GeofenceRuntime

/// `geofence commutes`: the stored commutes, as NDJSON (each commute's stored JSON) or as a table.
enum CommutesCommand: Command {
    static let definition = CommandDefinition(
        name: "commutes", summary: "the stored commutes as NDJSON or --table",
        options: SharedOptions.listing)

    static func run(_ arguments: ParsedArguments) throws {
        let listing = StoredListing(arguments)
        let reader = try listing.openReader()
        defer { reader.close() }
        let commutes = try reader.commutes(limit: listing.limit)
        guard listing.table else {
            printLines(commutes.map(\.json))
            return
        }
        let zone = listing.timeZone
        var table = TextTable(columns: [
            "start (\(DisplayZone.name(zone)))", "end", "took", "from", "to", "rule", "status", "device",
        ])
        table.rows = commutes.map { commute in
            [
                commute.start.map { TimeText.local($0, in: zone) } ?? "?",
                commute.end.map { TimeText.local($0, in: zone) } ?? "-",
                commute.durationSeconds.map(TimeText.duration) ?? "-",
                commute.fromPlace, commute.toPlace, commute.rule, commute.status, commute.device ?? "-",
            ]
        }
        printLines(table.lines())
    }
}
