import Foundation
import GeofenceRuntime

/// The shared listing options (``SharedOptions/listing``) as `events`, `commutes` and `actions` use them.
struct StoredListing {
    /// The state directory.
    var state: String
    /// The last N rows, if asked.
    var limit: Int?
    /// Whether to print a table.
    var table: Bool
    /// The display zone.
    var timeZone: TimeZone

    init(_ arguments: ParsedArguments) {
        state = arguments.value(SharedOptions.state) ?? Store.defaultDirectory()
        limit = arguments.value(SharedOptions.limit)
        table = arguments.flag(SharedOptions.table)
        timeZone = DisplayZone.resolve(arguments)
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
