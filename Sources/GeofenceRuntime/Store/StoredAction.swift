import Foundation

/// An action from the outbox as `geofence actions` lists it: the row, with how it ended.
public struct StoredAction: Sendable, Equatable {
    /// The outbox row: id, kind, payload, status, attempts, error, result.
    public var action: OutboxAction
    /// The row's position in the outbox (grows with each action written), for following.
    public var position: Int64
    /// The last outcome line logged for it (`exited with status 0 after 0.012 s`,
    /// `appended to /var/log/x`), if it has finished and the line was not pruned.
    public var outcome: String?
}

extension StoreQueries {
    /// Outbox actions in the order they were written: those written after `position`, or not yet
    /// finished, or finished at or after `finishedSince` (when following); only failed ones if
    /// `failedOnly`; of those the last `limit`.
    static func actions(
        in database: SQLiteDatabase, failedOnly: Bool, limit: Int?, after position: Int64? = nil,
        finishedSince: Date? = nil
    ) throws -> [StoredAction] {
        var conditions: [String] = []
        var parameters: [SQLiteValue] = []
        if failedOnly { conditions.append("status = 'failed'") }
        if let position {
            conditions.append("(rowid > ? OR status IN ('pending', 'running') OR finished_at >= ?)")
            parameters += [
                .integer(position), .real(finishedSince.map(\.timeIntervalSince1970) ?? 0),
            ]
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let rows = try database.query(
            """
            SELECT * FROM (
                SELECT rowid AS position, *,
                    (SELECT message FROM log WHERE log.action_id = outbox.id ORDER BY seq DESC LIMIT 1)
                        AS outcome
                FROM outbox \(filter) ORDER BY rowid DESC LIMIT ?
            ) ORDER BY position
            """, parameters + [.integer(Int64(limit ?? -1))])
        return rows.map { row in
            var action = OutboxAction(
                id: row["id"].string ?? "", kind: row["kind"].string ?? "",
                payloadJSON: row["action_json"].string ?? "",
                createdAt: row["created_at"].double.map { Date(timeIntervalSince1970: $0) }
                    ?? Date(timeIntervalSince1970: 0))
            action.status = row["status"].string.flatMap(OutboxAction.Status.init(rawValue:)) ?? .pending
            action.attempts = Int(row["attempts"].int64 ?? 0)
            action.lastError = row["last_error"].string
            action.finishedAt = row["finished_at"].double.map { Date(timeIntervalSince1970: $0) }
            action.resultJSON = row["result_json"].string
            return StoredAction(
                action: action, position: row["position"].int64 ?? 0, outcome: row["outcome"].string)
        }
    }
}
