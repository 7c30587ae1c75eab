public import Foundation

/// A read-only view of a state directory's store, for commands that only look (`geofence events`,
/// `geofence commutes`) while a `geofence run` may be writing it.
///
/// It takes no lock on the directory and opens the database with `SQLITE_OPEN_READONLY`: in
/// write-ahead-log mode readers never block the writer nor see half a step, so it can be used
/// beside a running ``Store``. It never creates the directory or the database.
public final class StoreReader: Sendable {
    /// The state directory.
    public let directory: String
    /// The database file's path.
    public let databasePath: String
    private let database: Locked<SQLiteDatabase>

    /// Opens the store in `directory` for reading.
    ///
    /// - Throws: ``StoreError/noDatabase(_:)`` if the directory holds no database,
    ///   ``StoreError/newerSchema(found:known:)`` if a newer geofence wrote it, or a ``SQLiteError``.
    public init(directory: String) throws {
        self.directory = directory
        databasePath =
            directory.hasSuffix("/") ? directory + Store.fileName : directory + "/" + Store.fileName
        guard FileManager.default.fileExists(atPath: databasePath) else {
            throw StoreError.noDatabase(directory)
        }
        let connection = try SQLiteDatabase(path: databasePath, readOnly: true)
        // A database with no tables yet (a store opened but never migrated) has nothing to show.
        let tables = try connection.query(
            "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'")
        guard tables.first?["n"].int64 == 1 else { throw StoreError.noDatabase(directory) }
        let version = try StoreSchema.version(connection)
        guard version <= StoreSchema.migrations.count else {
            throw StoreError.newerSchema(found: version, known: StoreSchema.migrations.count)
        }
        guard version >= 1 else { throw StoreError.noDatabase(directory) }
        database = Locked(connection)
    }

    /// Closes the database; every later call throws.
    public func close() {
        database.withLock { $0.close() }
    }

    /// Events in the order they happened: those at or after `since` if given, and of those the
    /// last `limit` if given.
    public func events(since: Date? = nil, limit: Int? = nil) throws -> [StoredEvent] {
        try database.withLock { try StoreQueries.events(in: $0, since: since, limit: limit) }
    }

    /// Commutes in the order they started (those with no known start first), the last `limit` if given.
    public func commutes(limit: Int? = nil) throws -> [StoredCommute] {
        try database.withLock { try StoreQueries.commutes(in: $0, limit: limit) }
    }

    /// Outbox actions in the order they were written, the last `limit` if given; only the failed
    /// ones if `failedOnly`.
    public func listActions(failedOnly: Bool = false, limit: Int? = nil) throws -> [StoredAction] {
        try database.withLock { try StoreQueries.actions(in: $0, failedOnly: failedOnly, limit: limit) }
    }

    /// For following: the actions written after `position`, still unfinished, or finished at or
    /// after `finishedSince`.
    public func listActions(failedOnly: Bool = false, after position: Int64, finishedSince: Date) throws
        -> [StoredAction]
    {
        try database.withLock {
            try StoreQueries.actions(
                in: $0, failedOnly: failedOnly, limit: nil, after: position, finishedSince: finishedSince)
        }
    }

    /// Every action in the outbox, finished or not, in the order they were queued (for reports:
    /// what ran, what failed, what timed out).
    public func actions() throws -> [OutboxAction] {
        try database.withLock { database in
            try database.query("SELECT * FROM outbox ORDER BY created_at, rowid").map(Store.action(from:))
        }
    }
}
