public import Foundation

/// The durable state of a geofence run: device states, the event log, commutes, delivered
/// reminders, input positions, the outbox of actions and a log, in one SQLite database.
///
/// The database is `<directory>/geofence.sqlite` in write-ahead-log mode. The directory is created
/// with mode 0700 and the database and its -wal and -shm files with mode 0600.
///
/// Only one store at a time may have a state directory open (an exclusive `flock` on
/// `<directory>/lock`): two runs sharing an outbox would both run its pending actions.
///
/// The store is safe to share between threads: one lock serialises every use of its single
/// connection, so each ``commit(_:)`` is one transaction that no other call interleaves with.
public final class Store: Sendable {
    /// How hard SQLite works to make a commit survive a crash of the machine, not only of geofence.
    public enum Durability: String, Sendable {
        /// `synchronous=FULL`: each commit is on disk before it returns, even across a power cut.
        case full
        /// `synchronous=NORMAL`: a commit survives geofence being killed but the last few may be
        /// lost in a power cut; for replays, where the input can simply be read again.
        case normal
    }

    /// The database's file name inside the state directory.
    public static let fileName = "geofence.sqlite"

    /// The state directory used when none is given: `$XDG_STATE_HOME/geofence`, else
    /// `$HOME/.local/state/geofence`, else `.geofence-state` in the working directory.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment)
        -> String
    {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/geofence" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.local/state/geofence" }
        return ".geofence-state"
    }

    /// The state directory.
    public let directory: String
    /// The database file's path.
    public let databasePath: String
    private let database: Locked<SQLiteDatabase>
    private let directoryLock: StateLock

    /// Opens the store in `directory`, creating the directory, the database and its tables as needed.
    ///
    /// - Parameter durability: `.full` by default, because an action's outbox row must survive
    ///   whatever the action did in the world (see ``Durability``).
    public init(directory: String, durability: Durability = .full) throws {
        self.directory = directory
        databasePath = directory.hasSuffix("/") ? directory + Self.fileName : directory + "/" + Self.fileName
        try StateDirectory.create(directory)
        directoryLock = try StateLock(directory: directory)
        try StateDirectory.createPrivateFile(databasePath)
        let connection: SQLiteDatabase
        do {
            connection = try SQLiteDatabase(path: databasePath)
            let mode =
                try connection.query("PRAGMA journal_mode=WAL").first?.values.first?.string ?? "unknown"
            guard mode.lowercased() == "wal" else { throw StoreError.journalMode(mode) }
            try connection.execute("PRAGMA synchronous=\(durability == .full ? "FULL" : "NORMAL")")
            try StoreSchema.migrate(connection)
        } catch let error as StoreError {
            throw error
        } catch {
            // A damaged file (or one that is not a database) says so in SQLite's words only: name it.
            throw StoreError.unreadable(path: databasePath, reason: "\(error)")
        }
        // The -wal and -shm files exist by now; SQLite gives them the database's mode, and this
        // makes sure of it even if they were left behind by an older run with another mode.
        for suffix in ["-wal", "-shm"] { try StateDirectory.restrict(databasePath + suffix, mode: 0o600) }
        database = Locked(connection)
    }

    /// Closes the database and releases the state directory; every later call throws.
    public func close() {
        database.withLock { $0.close() }
        directoryLock.release()
    }

    /// The schema version of the open database.
    public func schemaVersion() throws -> Int {
        try database.withLock { try StoreSchema.version($0) }
    }

    // MARK: - The atomic step

    /// Writes everything in `step` in one transaction: all of it is stored, or, if this throws,
    /// none of it.
    public func commit(_ step: Step) throws {
        if step.isEmpty { return }
        try database.withLock { database in
            try database.transaction {
                try Self.write(step, to: database)
            }
        }
    }

    private static func write(_ step: Step, to database: SQLiteDatabase) throws {
        if !step.states.isEmpty {
            let statement = try database.prepare(
                """
                INSERT INTO monitor_state(device, state, updated_at) VALUES (?, ?, ?)
                ON CONFLICT(device) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at
                """)
            for state in step.states {
                try statement.bind([.text(state.device), .blob(state.state), .real(seconds(state.updatedAt))])
                while try statement.step() {}
            }
        }
        if !step.events.isEmpty {
            let statement = try database.prepare(
                """
                INSERT OR IGNORE INTO events(id, device, kind, place, date, confirmed_at, json)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
            for event in step.events {
                try statement.bind([
                    .text(event.id), .text(event.device), .text(event.kind), .text(event.place),
                    .real(seconds(event.date)), .real(event.confirmedAt.map(seconds)), .text(event.json),
                ])
                while try statement.step() {}
            }
        }
        if !step.commutes.isEmpty {
            let statement = try database.prepare(
                """
                INSERT OR REPLACE INTO commutes(id, device, rule, from_place, to_place, start, "end", duration,
                    status, json)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for commute in step.commutes {
                try statement.bind([
                    .text(commute.id), .text(commute.device), .text(commute.rule), .text(commute.fromPlace),
                    .text(commute.toPlace), .real(commute.start.map(seconds)),
                    .real(commute.end.map(seconds)),
                    .real(commute.durationSeconds), .text(commute.status), .text(commute.json),
                ])
                while try statement.step() {}
            }
        }
        if !step.remindersDelivered.isEmpty {
            let statement = try database.prepare(
                "INSERT OR REPLACE INTO reminders_delivered(rule, device, key, at) VALUES (?, ?, ?, ?)")
            for delivery in step.remindersDelivered {
                try statement.bind([
                    .text(delivery.rule), .text(delivery.device), .text(delivery.key),
                    .real(seconds(delivery.at)),
                ])
                while try statement.step() {}
            }
        }
        if !step.inputPositions.isEmpty {
            let statement = try database.prepare(
                "INSERT OR REPLACE INTO input_positions(input, identity, offset, line) VALUES (?, ?, ?, ?)")
            for position in step.inputPositions {
                try statement.bind([
                    .text(position.input), .text(position.identity), .integer(position.offset),
                    .integer(position.line),
                ])
                while try statement.step() {}
            }
        }
        if !step.actions.isEmpty {
            // OR IGNORE: an id already in the outbox keeps its row, finished or not.
            let statement = try database.prepare(
                """
                INSERT OR IGNORE INTO outbox(
                    id, kind, created_at, action_json, status, attempts, last_error, finished_at)
                VALUES (?, ?, ?, ?, ?, 0, ?, ?)
                """)
            for action in step.actions {
                // New actions are pending, or skipped (history) with the reason and the time.
                let skipped = action.status == .skipped
                try statement.bind([
                    .text(action.id), .text(action.kind), .real(seconds(action.createdAt)),
                    .text(action.payloadJSON), .text(skipped ? "skipped" : "pending"),
                    skipped ? .text(action.lastError) : .null,
                    skipped ? .real(seconds(action.finishedAt ?? action.createdAt)) : .null,
                ])
                while try statement.step() {}
            }
        }
        for entry in step.log { try insert(entry, into: database) }
    }

    // MARK: - The outbox

    /// The actions not yet finished, oldest first: those never started and those started but not
    /// marked finished (interrupted by a crash), which must run again with the same id.
    public func pendingActions() throws -> [OutboxAction] {
        try database.withLock { database in
            try database.query(
                "SELECT * FROM outbox WHERE status IN ('pending', 'running') ORDER BY created_at, rowid"
            ).map(Self.action(from:))
        }
    }

    /// The action with `id`, in whatever state it is, or `nil`.
    public func action(id: String) throws -> OutboxAction? {
        try database.withLock { database in
            try database.query("SELECT * FROM outbox WHERE id = ?", [.text(id)]).first.map(Self.action(from:))
        }
    }

    /// Records that the action `id` is starting, counting the attempt.
    ///
    /// - Throws: ``StoreError/unknownAction(_:)``, or ``StoreError/actionFinished(_:)`` if it has
    ///   already finished: a finished action never runs again.
    public func markRunning(_ id: String) throws {
        try database.withLock { database in
            try database.transaction {
                try Self.requireUnfinished(id, in: database)
                try database.run(
                    "UPDATE outbox SET status = 'running', attempts = attempts + 1 WHERE id = ?", [.text(id)])
            }
        }
    }

    /// Records that the action `id` finished, and logs how, in one transaction.
    ///
    /// A failed action is finished too: it ran, and running it again would repeat whatever it did.
    ///
    /// - Throws: ``StoreError/unknownAction(_:)``, or ``StoreError/actionFinished(_:)`` if it was
    ///   already marked finished.
    public func markDone(_ id: String, outcome: ActionOutcome, at date: Date = Date()) throws {
        try database.withLock { database in
            try database.transaction {
                try Self.requireUnfinished(id, in: database)
                try database.run(
                    """
                    UPDATE outbox SET status = ?, finished_at = ?, last_error = ?, result_json = ?
                    WHERE id = ?
                    """,
                    [
                        .text(
                            outcome.succeeded
                                ? OutboxAction.Status.done.rawValue : OutboxAction.Status.failed.rawValue),
                        .real(Self.seconds(date)), outcome.succeeded ? .null : .text(outcome.message),
                        .text(outcome.json), .text(id),
                    ])
                let entry = LogEntry(
                    at: date, level: outcome.succeeded ? .info : .error, kind: "action",
                    message: outcome.message,
                    actionID: id, json: outcome.json)
                try Self.insert(entry, into: database)
            }
        }
    }

    private static func requireUnfinished(_ id: String, in database: SQLiteDatabase) throws {
        let rows = try database.query("SELECT status FROM outbox WHERE id = ?", [.text(id)])
        guard let status = rows.first?["status"].string else { throw StoreError.unknownAction(id) }
        if let known = OutboxAction.Status(rawValue: status), known != .pending, known != .running {
            throw StoreError.actionFinished(id)
        }
    }

    // MARK: - Reading back

    /// The saved state of `device`, or `nil` if none was saved.
    public func deviceState(_ device: String) throws -> DeviceState? {
        try database.withLock { database in
            try database.query("SELECT * FROM monitor_state WHERE device = ?", [.text(device)]).first.map(
                Self.deviceState(from:))
        }
    }

    /// Every device's saved state, by device id.
    public func deviceStates() throws -> [DeviceState] {
        try database.withLock { database in
            try database.query("SELECT * FROM monitor_state ORDER BY device").map(Self.deviceState(from:))
        }
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

    /// Whether the reminder `rule` was already delivered for `device` under `key`.
    public func reminderDelivered(rule: String, device: String, key: String) throws -> Bool {
        try database.withLock { database in
            try !database.query(
                "SELECT 1 FROM reminders_delivered WHERE rule = ? AND device = ? AND key = ?",
                [.text(rule), .text(device), .text(key)]
            ).isEmpty
        }
    }

    /// How far `input` was read, or `nil` if it never was.
    public func inputPosition(_ input: String) throws -> InputPosition? {
        try database.withLock { database in
            try database.query("SELECT * FROM input_positions WHERE input = ?", [.text(input)]).first.map {
                row in
                InputPosition(
                    input: row["input"].string ?? input, identity: row["identity"].string,
                    offset: row["offset"].int64 ?? 0, line: row["line"].int64 ?? 0)
            }
        }
    }

    /// Forgets the bulky part of old history: log lines older than `date`, and the results (captured
    /// hook output) of actions that finished before it. Events, commutes and the outbox rows
    /// themselves are the user's records and are kept. Returns how many log lines and results
    /// went.
    @discardableResult
    public func prune(before date: Date) throws -> (logLines: Int, results: Int) {
        try database.withLock { database in
            try database.transaction {
                let cutoff = SQLiteValue.real(Self.seconds(date))
                try database.run("DELETE FROM log WHERE at < ?", [cutoff])
                let logLines = database.changes
                try database.run(
                    "UPDATE outbox SET result_json = NULL WHERE finished_at < ? AND result_json IS NOT NULL",
                    [cutoff])
                return (logLines, database.changes)
            }
        }
    }

    /// Appends one line to the log in a transaction of its own.
    public func appendLog(_ entry: LogEntry) throws {
        try database.withLock { database in try Self.insert(entry, into: database) }
    }

    /// The log in the order it was written, the last `limit` lines if given.
    public func log(limit: Int? = nil) throws -> [LogEntry] {
        try database.withLock { database in
            let rows = try database.query(
                "SELECT * FROM (SELECT * FROM log ORDER BY seq DESC LIMIT ?) ORDER BY seq",
                [.integer(Int64(limit ?? -1))])
            return rows.map { row in
                LogEntry(
                    sequence: row["seq"].int64, at: Self.date(row["at"]) ?? Date(timeIntervalSince1970: 0),
                    level: row["level"].string.flatMap(LogEntry.Level.init(rawValue:)) ?? .info,
                    kind: row["kind"].string ?? "", message: row["message"].string ?? "",
                    actionID: row["action_id"].string, json: row["json"].string)
            }
        }
    }

    // MARK: - Rows and values

    private static func insert(_ entry: LogEntry, into database: SQLiteDatabase) throws {
        try database.run(
            "INSERT INTO log(at, level, kind, message, action_id, json) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .real(seconds(entry.at)), .text(entry.level.rawValue), .text(entry.kind),
                .text(entry.message),
                .text(entry.actionID), .text(entry.json),
            ])
    }

    static func action(from row: SQLiteRow) -> OutboxAction {
        var action = OutboxAction(
            id: row["id"].string ?? "", kind: row["kind"].string ?? "",
            payloadJSON: row["action_json"].string ?? "",
            createdAt: date(row["created_at"]) ?? Date(timeIntervalSince1970: 0))
        action.status = row["status"].string.flatMap(OutboxAction.Status.init(rawValue:)) ?? .pending
        action.attempts = Int(row["attempts"].int64 ?? 0)
        action.lastError = row["last_error"].string
        action.finishedAt = date(row["finished_at"])
        action.resultJSON = row["result_json"].string
        return action
    }

    private static func deviceState(from row: SQLiteRow) -> DeviceState {
        DeviceState(
            device: row["device"].string ?? "", state: row["state"].data ?? Data(),
            updatedAt: date(row["updated_at"]) ?? Date(timeIntervalSince1970: 0))
    }

    private static func seconds(_ date: Date) -> Double { date.timeIntervalSince1970 }

    private static func date(_ value: SQLiteValue) -> Date? {
        value.double.map { Date(timeIntervalSince1970: $0) }
    }
}
