/// An error from the store that is not SQLite's own.
public enum StoreError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The state directory or a file in it could not be created or given owner-only permissions.
    case stateDirectory(path: String, reason: String)
    /// The database was written by a newer geofence, whose schema this one does not know.
    case newerSchema(found: Int, known: Int)
    /// Another store (another geofence run) has the state directory open.
    case locked(String)
    /// SQLite would not switch the database to write-ahead logging.
    case journalMode(String)
    /// There is no database in this state directory (nothing has run with it yet).
    case noDatabase(String)
    /// The database file cannot be opened or read as a geofence store (damaged on disk, or not
    /// a database): its path and SQLite's reason.
    case unreadable(path: String, reason: String)
    /// No action in the outbox has this id.
    case unknownAction(String)
    /// The action has already finished and must not run again.
    case actionFinished(String)

    /// A sentence saying what went wrong, naming the path or id.
    public var description: String {
        switch self {
        case .stateDirectory(let path, let reason): "state directory \(path): \(reason)"
        case .newerSchema(let found, let known):
            "the store has schema version \(found), newer than this geofence knows (\(known)); upgrade geofence"
        case .locked(let path): "state directory \(path) is in use by another geofence run"
        case .journalMode(let mode): "SQLite kept journal mode \(mode) instead of wal"
        case .noDatabase(let path): "no geofence store in \(path) (has geofence run with this --state?)"
        case .unreadable(let path, let reason):
            "the store \(path) cannot be read: \(reason); if the file is damaged, move it aside (a new store starts empty) or restore a copy"
        case .unknownAction(let id): "no action with id \(id) in the outbox"
        case .actionFinished(let id): "action \(id) has already finished"
        }
    }
}
