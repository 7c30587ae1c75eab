import Foundation
import GeofenceRuntime

/// The options `geofence events` and `geofence commutes` share.
struct StoredListingOptions {
    var state = Store.defaultDirectory()
    var limit: Int?
    var since: Date?
    var table = false
    var timeZone = TimeZone.current

    /// Reads the options; `acceptsSince` is false for a listing that has no `--since`.
    static func parse(_ arguments: [String], usage: String, acceptsSince: Bool) throws -> StoredListingOptions
    {
        var options = StoredListingOptions()
        var sinceText: String?
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--state": options.state = try ArgumentText.value(after: argument, in: &rest)
            case "--limit":
                options.limit = try ArgumentText.count(
                    ArgumentText.value(after: argument, in: &rest), for: argument)
            case "--since" where acceptsSince: sinceText = try ArgumentText.value(after: argument, in: &rest)
            case "--table": options.table = true
            case "--time-zone": options.timeZone = try ArgumentText.timeZone(after: argument, in: &rest)
            default:
                throw CommandError(message: "unknown option '\(argument)'\n\n\(usage)", status: 2)
            }
        }
        // Read after the loop so that `--time-zone` applies to a `--since` given before it.
        if let sinceText {
            options.since = try ArgumentText.date(sinceText, for: "--since", timeZone: options.timeZone)
        }
        return options
    }

    /// The store, read-only: a running `geofence run` holds the directory's lock, and a listing
    /// must neither wait for it nor create a store where there was none.
    func openReader() throws -> StoreReader {
        do {
            return try StoreReader(directory: state)
        } catch let error as StoreError {
            throw CommandError(message: error.description)
        }
    }
}

/// Writes lines to standard output, one write per call.
func printLines(_ lines: [String]) {
    guard !lines.isEmpty else { return }
    FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
}
