import Foundation

/// `remind:`: deliver a reminder, once unless `repeat: true`, through the channel `to:` names as
/// well as the log.
public struct RemindAction: Sendable, Hashable {
    /// The reminder's text; it is also every action's `message` in the same rule.
    public var message: String
    /// Whether it is delivered every time the rule fires, not only the first (the rule's
    /// business: a fired reminder does not carry it).
    public var repeats: Bool
    /// The channel it goes through besides the log (`to:`); `nil` for the log only.
    public var channel: Channel?

    /// Makes a reminder.
    public init(message: String, repeats: Bool = false, channel: Channel? = nil) {
        self.message = message
        self.repeats = repeats
        self.channel = channel
    }
}

extension RuleAction {
    /// A `remind:` action.
    public static func remind(message: String, repeats: Bool = false, channel: Channel? = nil) -> RuleAction {
        .remind(RemindAction(message: message, repeats: repeats, channel: channel))
    }
}

extension RemindAction: ActionKind {
    static let name = RuleAction.Name.remind
    static let modifierKeys = ["repeat", "to"]
    /// A reminder is for arriving or leaving, not for a commute that did not happen.
    static let hearsAbandonedCommutes = false

    static func read(_ rule: ActionSource, reader: inout NodeReader) -> RemindAction? {
        let (members, context) = (rule.members, rule.context)
        var channel: Channel?
        if let to = members["to"], let name = reader.string(to, field: "to") {
            if let known = rule.channels[name] {
                channel = known
            } else {
                reader.error(
                    to.mark,
                    "\(context): unknown channel \"\(name)\""
                        + DidYouMean.hint(for: name, among: Array(rule.channels.keys))
                        + (rule.channels.isEmpty ? " (define it under channels:)" : ""))
            }
            if members["remind"] == nil { reader.error(to.mark, "\(context): to: only goes with remind:") }
        }
        guard let remind = members["remind"] else {
            if let r = members["repeat"] {
                reader.error(r.mark, "\(context): repeat: only goes with remind:")
            }
            return nil
        }
        var repeats = false
        if let n = members["repeat"] { repeats = reader.bool(n, field: "repeat") ?? false }
        let message = reader.string(remind, field: "remind")
        if case .lifecycle? = rule.trigger {
            reader.error(
                remind.mark, "\(context): remind: is for arriving or leaving places, not engine events")
        }
        return message.map { RemindAction(message: $0, repeats: repeats, channel: channel) }
    }

    init(payload: KeyedDecodingContainer<PayloadKey>, message: String?) throws {
        self.init(
            message: message ?? "", channel: try payload.decodeIfPresent(Channel.self, forKey: "channel"))
    }

    func encodePayload(to container: inout KeyedEncodingContainer<PayloadKey>) throws {
        try container.encodeIfPresent(channel, forKey: "channel")
    }

    var action: RuleAction { .remind(self) }
    /// Without `repeats`: whether to deliver it again is decided when the rule fires.
    var fired: RuleAction { .remind(RemindAction(message: message, channel: channel)) }
    var summary: String {
        "remind \"\(message)\"" + (repeats ? " every time" : " once")
            + (channel.map { ", \($0.summary)" } ?? "")
    }
    var replayText: String { "REMINDER: \(message)" }
    var listingText: String { "remind \"\(message)\"" }
}
