import CSQLite
import Foundation

/// One open SQLite database connection.
///
/// Threading: the connection is opened with `SQLITE_OPEN_NOMUTEX` and is confined to one owner at
/// a time. SQLite's own FULLMUTEX would only make single calls safe; a transaction is several
/// calls, so the owner has to serialise anyway, and ``Store`` does so with one lock.
final class SQLiteDatabase {
    private var handle: OpaquePointer?
    /// The file the connection was opened on.
    let path: String

    /// Opens (creating if needed) the database at `path`.
    ///
    /// - Parameters:
    ///   - busyTimeoutMilliseconds: how long a statement waits for another connection's lock
    ///     before failing with `SQLITE_BUSY`.
    ///   - readOnly: open an existing database for reading only, never creating or writing it.
    init(path: String, busyTimeoutMilliseconds: Int32 = 5000, readOnly: Bool = false) throws {
        self.path = path
        var connection: OpaquePointer?
        let flags =
            (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            | SQLITE_OPEN_NOMUTEX
        let result = sqlite3_open_v2(path, &connection, flags, nil)
        guard result == SQLITE_OK, let connection else {
            // sqlite3_open_v2 returns a handle even on failure (except out of memory); it holds the message.
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open \(path)"
            sqlite3_close_v2(connection)
            throw SQLiteError(code: result, message: message, sql: nil)
        }
        handle = connection
        sqlite3_extended_result_codes(connection, 1)
        sqlite3_busy_timeout(connection, busyTimeoutMilliseconds)
    }

    deinit { sqlite3_close_v2(handle) }

    /// Closes the connection; every later call throws.
    func close() {
        // close_v2 defers the real close until outstanding statements are finalised.
        sqlite3_close_v2(handle)
        handle = nil
    }

    /// The open handle, or an error once closed.
    private func connection(_ sql: String?) throws -> OpaquePointer {
        guard let handle else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "the database is closed", sql: sql)
        }
        return handle
    }

    /// The connection's last error, as a Swift error naming `sql`.
    func lastError(_ code: Int32, sql: String?) -> SQLiteError {
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "the database is closed"
        return SQLiteError(code: code, message: message, sql: sql)
    }

    /// Runs one or more statements that take no parameters and return no rows we need.
    func execute(_ sql: String) throws {
        let connection = try connection(sql)
        var message: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(connection, sql, nil, nil, &message)
        if result != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(result))
            sqlite3_free(message)
            throw SQLiteError(code: result, message: text, sql: sql)
        }
    }

    /// Compiles one statement.
    func prepare(_ sql: String) throws -> SQLiteStatement {
        let connection = try connection(sql)
        var statement: OpaquePointer?
        let result = sqlite3_prepare_v2(connection, sql, -1, &statement, nil)
        guard result == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw lastError(result, sql: sql)
        }
        return SQLiteStatement(database: self, handle: statement, sql: sql)
    }

    /// Runs one statement with `values` bound to its parameters, ignoring any rows.
    func run(_ sql: String, _ values: [SQLiteValue] = []) throws {
        let statement = try prepare(sql)
        try statement.bind(values)
        while try statement.step() {}
    }

    /// Runs one statement with `values` bound to its parameters and returns all its rows.
    func query(_ sql: String, _ values: [SQLiteValue] = []) throws -> [SQLiteRow] {
        let statement = try prepare(sql)
        try statement.bind(values)
        var rows: [SQLiteRow] = []
        while try statement.step() { rows.append(statement.row()) }
        return rows
    }

    /// The number of rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int {
        guard let handle else { return 0 }
        return Int(sqlite3_changes(handle))
    }

    /// Whether a transaction is open on this connection.
    var inTransaction: Bool {
        guard let handle else { return false }
        return sqlite3_get_autocommit(handle) == 0
    }

    /// Runs `body` in one transaction: BEGIN IMMEDIATE, then COMMIT, or ROLLBACK if `body` throws.
    ///
    /// IMMEDIATE takes the write lock at the start, so a transaction never fails half-way with
    /// `SQLITE_BUSY` when it first writes; the busy timeout covers waiting for the lock. Nesting is
    /// refused rather than silently merged into the outer transaction.
    @discardableResult
    func transaction<T>(_ body: () throws -> T) throws -> T {
        if inTransaction {
            throw SQLiteError(
                code: SQLITE_MISUSE, message: "a transaction is already open", sql: "BEGIN IMMEDIATE")
        }
        try execute("BEGIN IMMEDIATE")
        let value: T
        do {
            value = try body()
            try execute("COMMIT")
        } catch {
            // A failed COMMIT may leave the transaction open; a ROLLBACK after an automatic one fails
            // harmlessly, so its error is not the one to report.
            if inTransaction { try? execute("ROLLBACK") }
            throw error
        }
        return value
    }
}

/// A compiled statement; finalised when released.
final class SQLiteStatement {
    private let database: SQLiteDatabase
    private let handle: OpaquePointer
    /// The statement's SQL, for error messages.
    let sql: String

    fileprivate init(database: SQLiteDatabase, handle: OpaquePointer, sql: String) {
        self.database = database
        self.handle = handle
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds `values` to parameters 1, 2, … in order, after clearing any earlier bindings.
    func bind(_ values: [SQLiteValue]) throws {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard values.count == expected else {
            throw SQLiteError(
                code: SQLITE_RANGE, message: "\(values.count) values for \(expected) parameters", sql: sql)
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let result: Int32
            switch value {
            case .integer(let number): result = sqlite3_bind_int64(handle, index, number)
            case .real(let number): result = sqlite3_bind_double(handle, index, number)
            case .text(let text):
                // Bound with its byte length, so text holding a NUL is stored whole.
                result = Self.withTerminatedBytes(Array(text.utf8)) { pointer, count in
                    sqlite3_bind_text64(
                        handle, index, pointer, sqlite3_uint64(count), csqlite_transient(), UInt8(SQLITE_UTF8)
                    )
                }
            case .blob(let bytes):
                result = Self.withTerminatedBytes(Array(bytes)) { pointer, count in
                    sqlite3_bind_blob64(handle, index, pointer, sqlite3_uint64(count), csqlite_transient())
                }
            case .null: result = sqlite3_bind_null(handle, index)
            }
            guard result == SQLITE_OK else { throw database.lastError(result, sql: sql) }
        }
    }

    /// Calls `body` with a pointer to `bytes` and their count; the pointer is never NULL, because
    /// SQLite stores NULL rather than an empty text or blob when given one.
    private static func withTerminatedBytes(
        _ bytes: [UInt8], _ body: (UnsafePointer<CChar>, Int) -> Int32
    ) -> Int32 {
        var terminated = bytes
        terminated.append(0)
        return terminated.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                guard let base = chars.baseAddress else { return SQLITE_NOMEM }
                return body(base, bytes.count)
            }
        }
    }

    /// Advances to the next row; `true` when a row is available, `false` when the statement is done.
    func step() throws -> Bool {
        let result = sqlite3_step(handle)
        switch result {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            // Reset so the statement can be reused; step's own code is the one to report.
            let error = database.lastError(result, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// The current row's values, typed by SQLite's storage class.
    func row() -> SQLiteRow {
        let count = sqlite3_column_count(handle)
        var names: [String] = []
        var values: [SQLiteValue] = []
        names.reserveCapacity(Int(count))
        values.reserveCapacity(Int(count))
        for column in 0..<count {
            names.append(sqlite3_column_name(handle, column).map { String(cString: $0) } ?? "")
            values.append(value(at: column))
        }
        return SQLiteRow(columns: names, values: values)
    }

    private func value(at column: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            // Read by byte count, not as a C string, so an embedded NUL does not cut the text short.
            let count = Int(sqlite3_column_bytes(handle, column))
            guard let bytes = sqlite3_column_text(handle, column) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }
}
