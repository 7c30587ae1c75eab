import Foundation
import GeofenceRuntime

/// `geofence events`: the stored event log, as NDJSON (each event's stored JSON) or as a table.
enum EventsCommand: Command {
    static let since = Option(
        "--since", value: "DATE", help: "events at or after DATE (2026-03-03, or 2026-03-03T07:00:00Z)",
        parse: ValueParser.text)

    static let definition = CommandDefinition(
        name: "events", summary: "the stored event log as NDJSON or --table",
        options: [since.erased] + SharedOptions.listing,
        discussion: "A date without a time means its midnight in the display zone.")

    static func run(_ arguments: ParsedArguments) throws {
        let listing = StoredListing(arguments)
        let since = try arguments.value(Self.since).map {
            try ValueParser.date($0, for: "--since", timeZone: listing.timeZone, command: definition.name)
        }
        let reader = try listing.openReader()
        defer { reader.close() }
        let events = try reader.events(since: since, limit: listing.limit)
        guard listing.table else {
            printLines(events.map(\.json))
            return
        }
        var table = TextTable(columns: [
            "date (\(DisplayZone.name(listing.timeZone)))", "event", "place", "device", "confirmed",
        ])
        table.rows = events.map { event in
            [
                TimeText.local(event.date, in: listing.timeZone), event.kind, event.place ?? "-",
                event.device ?? "-",
                event.confirmedAt.map { "+" + TimeText.duration($0.timeIntervalSince(event.date)) } ?? "-",
            ]
        }
        printLines(table.lines())
    }
}
