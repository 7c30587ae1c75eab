import Foundation

/// `log:`: append the action as an NDJSON line to a file (relative to the rules file) and print a
/// readable line; `log: true` prints only.
public struct LogAction: Sendable, Hashable {
    /// The file, as the rules file wrote it; `nil` prints only.
    public var path: String?

    /// Makes a log action.
    public init(path: String?) { self.path = path }
}

extension RuleAction {
    /// A `log:` action.
    public static func log(path: String?) -> RuleAction { .log(LogAction(path: path)) }
}

extension LogAction: ActionKind {
    static let name = RuleAction.Name.log
    static let modifierKeys: [String] = []
    /// A log records, so it also hears of an abandoned commute.
    static let hearsAbandonedCommutes = true

    static func read(_ rule: ActionSource, reader: inout NodeReader) -> LogAction? {
        guard let log = rule.members["log"] else { return nil }
        if case .scalar(let text, let quoted, _) = log, !quoted,
            ["true", "yes", "stdout"].contains(text.lowercased())
        {
            return LogAction(path: nil)
        }
        return reader.string(log, field: "log").map(LogAction.init(path:))
    }

    init(payload: KeyedDecodingContainer<PayloadKey>, message: String?) throws {
        path = try payload.decodeIfPresent(String.self, forKey: "path")
    }

    func encodePayload(to container: inout KeyedEncodingContainer<PayloadKey>) throws {
        try container.encodeIfPresent(path, forKey: "path")
    }

    var action: RuleAction { .log(self) }
    var summary: String { path.map { "log to \($0)" } ?? "log" }
    var replayText: String { "log" + (path.map { " to \($0)" } ?? "") }
    var listingText: String { replayText }
}
