/// An error SQLite reported, with its result code, its own message and the SQL it was running.
struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// SQLite's extended result code (for example 5, `SQLITE_BUSY`; 19, `SQLITE_CONSTRAINT`).
    let code: Int32
    /// SQLite's message for the failure, or ours when the failure is a misuse of the wrapper.
    let message: String
    /// The statement that failed, when there was one.
    let sql: String?

    /// Makes an error from its parts.
    init(code: Int32, message: String, sql: String?) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// The message followed by the SQL, so a log line alone says what went wrong where.
    var description: String {
        if let sql {
            "SQLite error \(code): \(message) (in: \(sql))"
        } else {
            "SQLite error \(code): \(message)"
        }
    }
}
