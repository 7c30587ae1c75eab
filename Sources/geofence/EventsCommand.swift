import Foundation
import GeofenceRuntime

/// `geofence events`: the stored event log, as NDJSON (each event's stored JSON) or as a table.
enum EventsCommand {
    static let usage = """
        usage: geofence events [--state DIR] [--since DATE] [--limit N] [--table] [--time-zone ID]
          --since DATE   events at or after DATE (2026-03-03, or 2026-03-03T07:00:00Z)
          --limit N      only the last N of them
        """

    static func run(_ arguments: [String]) throws {
        if arguments.contains("-h") || arguments.contains("--help") {
            print(usage)
            return
        }
        let options = try StoredListingOptions.parse(arguments, usage: usage, acceptsSince: true)
        let reader = try options.openReader()
        defer { reader.close() }
        let events = try reader.events(since: options.since, limit: options.limit)
        guard options.table else {
            printLines(events.map(\.json))
            return
        }
        let header = [
            tableCell("date", 21), tableCell("event", 14), tableCell("place", 16), tableCell("device", 14),
            "confirmed",
        ].joined()
        printLines(
            [header]
                + events.map { event in
                    [
                        tableCell(TimeText.local(event.date, in: options.timeZone), 21),
                        tableCell(event.kind, 14),
                        tableCell(event.place ?? "-", 16), tableCell(event.device ?? "-", 14),
                        event.confirmedAt.map { "+" + TimeText.duration($0.timeIntervalSince(event.date)) }
                            ?? "-",
                    ].joined()
                })
    }
}
