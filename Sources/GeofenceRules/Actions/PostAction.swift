import Foundation

/// `post:`: POST the event to an HTTP endpoint (a webhook: ntfy, Gotify, Home Assistant...).
public struct PostAction: Sendable, Hashable {
    /// Where and how.
    public var target: WebhookTarget

    /// Makes a post action.
    public init(_ target: WebhookTarget) { self.target = target }
}

extension PostAction: ActionKind {
    static let name = RuleAction.Name.post
    static let modifierKeys: [String] = []
    /// A webhook announces something that happened; an abandoned commute did not.
    static let hearsAbandonedCommutes = false

    static func read(_ rule: ActionSource, reader: inout NodeReader) -> PostAction? {
        guard let post = rule.members["post"] else { return nil }
        return reader.webhookTarget(post, context: rule.context).map(PostAction.init)
    }

    init(payload: KeyedDecodingContainer<PayloadKey>, message: String?) throws {
        target = try payload.decode(WebhookTarget.self, forKey: "target")
    }

    func encodePayload(to container: inout KeyedEncodingContainer<PayloadKey>) throws {
        try container.encode(target, forKey: "target")
    }

    var action: RuleAction { .post(self) }
    var summary: String { Channel.post(target).summary }
    /// Without the query, where tokens live (Gotify's ?token=...).
    var replayText: String { "post to \(target.url.split(separator: "?").first.map(String.init) ?? "")" }
    /// The host only: tokens often live in a webhook's path or query.
    var listingText: String { "post to " + (URLComponents(string: target.url)?.host ?? "(a URL)") }
}
