import Foundation
import GeofenceRules
import GeofenceRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// `geofence actions`: what the rules fired and how each action ended (status, attempts, outcome,
/// a hook's output), read from the store without disturbing a running `geofence run`.
enum ActionsCommand: Command {
    static let failed = Option.flag("--failed", help: "only actions that failed")
    static let follow = Option.flag(
        "--follow", "-f",
        help: "keep printing actions as they are written and as they finish (like journalctl -f)")
    static let output = Option(
        "--output-lines", value: "N",
        help: "with --table, the last N lines of a hook's output to show (default 5)",
        parse: ValueParser.wholeNumber)

    static let definition = CommandDefinition(
        name: "actions", summary: "what the rules fired, when, and how it ended (a hook's output, retries)",
        options: [failed.erased, follow.erased, output.erased] + SharedOptions.listing,
        discussion: """
            Each action is one NDJSON line (its id, status, attempts, outcome, the action itself and, for \
            a hook, its exit status and output), or a row with --table. With --follow the last 10 (or \
            --limit) are printed, then each action again whenever it is written or finishes, until \
            interrupted.
            """)

    static func run(_ arguments: ParsedArguments) throws {
        var listing = StoredListing(arguments)
        let failedOnly = arguments.flag(failed)
        let following = arguments.flag(follow)
        if following, listing.limit == nil { listing.limit = 10 }
        let reader = try listing.openReader()
        defer { reader.close() }
        var printer = ActionPrinter(
            table: listing.table, timeZone: listing.timeZone,
            outputLines: arguments.value(output) ?? 5)
        let first = try reader.listActions(failedOnly: failedOnly, limit: listing.limit)
        printer.print(first)
        guard following else { return }
        // Only an unfinished action can change; a finished one is printed again only if it is new.
        var position = first.last?.position ?? 0
        var lastSeen: [String: OutboxAction.Status] = [:]
        for stored in first { lastSeen[stored.action.id] = stored.action.status }
        var finishedSince = Date()
        while true {
            usleep(500_000)
            let polledAt = Date().addingTimeInterval(-1)
            let changed = try reader.listActions(
                failedOnly: failedOnly, after: position, finishedSince: finishedSince
            ).filter { lastSeen[$0.action.id] != $0.action.status }
            for stored in changed { lastSeen[stored.action.id] = stored.action.status }
            position = max(position, changed.map(\.position).max() ?? position)
            finishedSince = polledAt
            printer.print(changed)
        }
    }
}

/// Prints actions as NDJSON or as table rows whose columns grow to fit what has been printed.
struct ActionPrinter {
    let table: Bool
    let timeZone: TimeZone
    let outputLines: Int
    private var widths: [Int] = []
    private var headerPrinted = false

    init(table: Bool, timeZone: TimeZone, outputLines: Int) {
        self.table = table
        self.timeZone = timeZone
        self.outputLines = outputLines
    }

    mutating func print(_ actions: [StoredAction]) {
        guard table else {
            printLines(actions.map(Self.json))
            return
        }
        let columns = [
            "fired (\(DisplayZone.name(timeZone)))", "rule", "action", "on", "status", "tries", "outcome",
        ]
        var rows = actions.map { (cells: cells($0), output: outputLines($0)) }
        if !headerPrinted { rows.insert((columns, []), at: 0) }
        headerPrinted = true
        for row in rows {
            for (index, cell) in row.cells.enumerated() {
                if index >= widths.count { widths.append(0) }
                widths[index] = max(widths[index], cell.count)
            }
        }
        var lines: [String] = []
        for row in rows {
            var text = ""
            for (index, cell) in row.cells.enumerated() {
                text +=
                    index == row.cells.count - 1
                    ? cell : cell.padding(toLength: widths[index] + 2, withPad: " ", startingAt: 0)
            }
            lines.append(text)
            lines += row.output
        }
        printLines(lines)
    }

    private func cells(_ stored: StoredAction) -> [String] {
        let outbox = stored.action
        let fired = try? EngineJSON.decoder().decode(FiredAction.self, from: Data(outbox.payloadJSON.utf8))
        let what = fired?.kind.listingText ?? outbox.kind
        let on = fired.map { $0.transition.rawValue + ($0.place.map { " " + $0 } ?? "") } ?? "-"
        let outcome = outbox.lastError ?? stored.outcome ?? (outbox.isFinished ? "" : "-")
        return [
            TimeText.local(fired?.date ?? outbox.createdAt, in: timeZone), fired?.rule ?? "-", what, on,
            outbox.status.rawValue, String(outbox.attempts), outcome,
        ]
    }

    /// The last lines of a hook's standard output and error, indented under its row.
    private func outputLines(_ stored: StoredAction) -> [String] {
        guard outputLines > 0, let json = stored.action.resultJSON,
            let result = try? JSONDecoder().decode(HookOutput.self, from: Data(json.utf8))
        else { return [] }
        var lines: [String] = []
        for (name, text) in [("stdout", result.stdout), ("stderr", result.stderr)] {
            guard let text, !text.isEmpty else { continue }
            let all = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let trimmed = all.last == "" ? Array(all.dropLast()) : all
            if trimmed.count > outputLines {
                lines.append("    \(name): ... \(trimmed.count - outputLines) lines before")
            }
            lines += trimmed.suffix(outputLines).map { "    \(name)| \($0)" }
        }
        return lines
    }

    /// One action as NDJSON: the row's fields, the action (`action`) and a hook's result (`result`)
    /// as the stored JSON objects.
    static func json(_ stored: StoredAction) -> String {
        let outbox = stored.action
        let head = Head(
            id: outbox.id, kind: outbox.kind, status: outbox.status.rawValue, attempts: outbox.attempts,
            createdAt: TimeText.iso8601(outbox.createdAt),
            finishedAt: outbox.finishedAt.map { TimeText.iso8601($0) },
            outcome: stored.outcome, error: outbox.lastError)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(head) else { return "{\"id\":\"\(outbox.id)\"}" }
        let text = String(decoding: data, as: UTF8.self)
        // The payload and result are JSON this program wrote; they are spliced in as objects.
        return String(text.dropLast()) + ",\"action\":"
            + (outbox.payloadJSON.isEmpty ? "null" : outbox.payloadJSON)
            + ",\"result\":" + (outbox.resultJSON ?? "null") + "}"
    }

    private struct Head: Encodable {
        var id: String
        var kind: String
        var status: String
        var attempts: Int
        var createdAt: String
        var finishedAt: String?
        var outcome: String?
        var error: String?

        enum CodingKeys: String, CodingKey {
            case id, kind, status, attempts, outcome, error
            case createdAt = "created_at"
            case finishedAt = "finished_at"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(kind, forKey: .kind)
            try container.encode(status, forKey: .status)
            try container.encode(attempts, forKey: .attempts)
            try container.encode(createdAt, forKey: .createdAt)
            try container.encode(finishedAt, forKey: .finishedAt)
            try container.encode(outcome, forKey: .outcome)
            try container.encode(error, forKey: .error)
        }
    }

    private struct HookOutput: Decodable {
        var stdout: String?
        var stderr: String?
    }
}
