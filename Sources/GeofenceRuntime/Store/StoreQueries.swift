import Foundation

/// The reading queries that both ``Store`` and ``StoreReader`` answer, on a connection the caller
/// holds.
enum StoreQueries {
    /// Events at or after `since`, the last `limit` of them, in the order they happened.
    static func events(in database: SQLiteDatabase, since: Date?, limit: Int?) throws -> [StoredEvent] {
        // The newest `limit` are chosen in descending order, then put back in time order.
        let rows = try database.query(
            """
            SELECT * FROM (
                SELECT rowid AS position, * FROM events WHERE date >= ? ORDER BY date DESC, rowid DESC LIMIT ?
            ) ORDER BY date, position
            """,
            [
                .real(since.map(seconds) ?? -Double.greatestFiniteMagnitude),
                .integer(Int64(limit ?? -1)),
            ])
        return rows.map { row in
            StoredEvent(
                id: row["id"].string ?? "", device: row["device"].string, kind: row["kind"].string ?? "",
                place: row["place"].string,
                date: date(row["date"]) ?? Date(timeIntervalSince1970: 0),
                confirmedAt: date(row["confirmed_at"]), json: row["json"].string ?? "")
        }
    }

    /// The last `limit` commutes in the order they started, those with no known start first.
    static func commutes(in database: SQLiteDatabase, limit: Int?) throws -> [StoredCommute] {
        let rows = try database.query(
            """
            SELECT * FROM (
                SELECT rowid AS position, * FROM commutes ORDER BY start DESC, rowid DESC LIMIT ?
            ) ORDER BY start, position
            """, [.integer(Int64(limit ?? -1))])
        return rows.map { row in
            StoredCommute(
                id: row["id"].string ?? "", device: row["device"].string, rule: row["rule"].string ?? "",
                fromPlace: row["from_place"].string ?? "", toPlace: row["to_place"].string ?? "",
                start: date(row["start"]), end: date(row["end"]),
                durationSeconds: row["duration"].double,
                status: row["status"].string ?? "", json: row["json"].string ?? "")
        }
    }

    private static func seconds(_ date: Date) -> Double { date.timeIntervalSince1970 }

    private static func date(_ value: SQLiteValue) -> Date? {
        value.double.map { Date(timeIntervalSince1970: $0) }
    }
}
