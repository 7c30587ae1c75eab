/// The store's tables, as a list of migrations applied in order.
///
/// The version kept in `schema_version` is the number of migrations applied. A migration is only
/// ever appended, never edited, so every store can be brought forward from wherever it is.
enum StoreSchema {
    static let migrations: [String] = [
        // 1: the first schema. Dates are REAL seconds since 1970 (UTC), so ranges compare as numbers.
        """
        CREATE TABLE monitor_state(
            device TEXT PRIMARY KEY,
            state BLOB NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE TABLE events(
            id TEXT PRIMARY KEY,
            device TEXT,
            kind TEXT NOT NULL,
            place TEXT,
            date REAL NOT NULL,
            confirmed_at REAL,
            json TEXT NOT NULL
        );
        CREATE INDEX events_by_date ON events(date);
        CREATE TABLE commutes(
            id TEXT PRIMARY KEY,
            device TEXT,
            rule TEXT NOT NULL,
            from_place TEXT NOT NULL,
            to_place TEXT NOT NULL,
            start REAL,
            "end" REAL,
            duration REAL,
            status TEXT NOT NULL,
            json TEXT NOT NULL
        );
        CREATE INDEX commutes_by_start ON commutes(start);
        CREATE TABLE reminders_delivered(
            rule TEXT NOT NULL,
            device TEXT NOT NULL,
            key TEXT NOT NULL,
            at REAL NOT NULL,
            PRIMARY KEY(rule, device, key)
        );
        CREATE TABLE input_positions(
            input TEXT PRIMARY KEY,
            identity TEXT,
            offset INTEGER NOT NULL,
            line INTEGER NOT NULL
        );
        CREATE TABLE outbox(
            id TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            created_at REAL NOT NULL,
            action_json TEXT NOT NULL,
            status TEXT NOT NULL CHECK(status IN ('pending', 'running', 'done', 'failed')),
            attempts INTEGER NOT NULL DEFAULT 0,
            last_error TEXT,
            finished_at REAL,
            result_json TEXT
        );
        CREATE INDEX outbox_unfinished ON outbox(status) WHERE status IN ('pending', 'running');
        CREATE TABLE log(
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            at REAL NOT NULL,
            level TEXT NOT NULL,
            kind TEXT NOT NULL,
            message TEXT NOT NULL,
            action_id TEXT,
            json TEXT
        );
        """,
        // 2: an action can be recorded as skipped (history, or older than its rule's max_delay)
        // instead of run. SQLite cannot change a CHECK constraint, so the table is rebuilt, rows and
        // their order (rowid) kept.
        """
        CREATE TABLE outbox_new(
            id TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            created_at REAL NOT NULL,
            action_json TEXT NOT NULL,
            status TEXT NOT NULL CHECK(status IN ('pending', 'running', 'done', 'failed', 'skipped')),
            attempts INTEGER NOT NULL DEFAULT 0,
            last_error TEXT,
            finished_at REAL,
            result_json TEXT
        );
        INSERT INTO outbox_new(
            rowid, id, kind, created_at, action_json, status, attempts, last_error, finished_at, result_json)
        SELECT rowid, id, kind, created_at, action_json, status, attempts, last_error, finished_at, result_json
        FROM outbox;
        DROP TABLE outbox;
        ALTER TABLE outbox_new RENAME TO outbox;
        CREATE INDEX outbox_unfinished ON outbox(status) WHERE status IN ('pending', 'running');
        """,
    ]

    /// Brings `database` up to the latest schema, one transaction per migration.
    static func migrate(_ database: SQLiteDatabase) throws {
        try database.execute("CREATE TABLE IF NOT EXISTS schema_version(version INTEGER NOT NULL)")
        var current = try version(database)
        guard current <= migrations.count else {
            throw StoreError.newerSchema(found: current, known: migrations.count)
        }
        while current < migrations.count {
            let next = current + 1
            try database.transaction {
                // Re-read inside the write lock: another process may have migrated meanwhile.
                guard try version(database) == current else { return }
                try database.execute(migrations[current])
                try database.run("DELETE FROM schema_version")
                try database.run("INSERT INTO schema_version(version) VALUES (?)", [.integer(Int64(next))])
            }
            current = try version(database)
        }
    }

    /// The schema version recorded in `database`, 0 for a new one.
    static func version(_ database: SQLiteDatabase) throws -> Int {
        let rows = try database.query("SELECT max(version) AS version FROM schema_version")
        return Int(rows.first?["version"].int64 ?? 0)
    }
}
