import Foundation

/// One kind of action, declared in one place: a type per kind (``LogAction``, ``RunAction``,
/// ``RemindAction``, ``PostAction``), listed once in ``RuleAction`` and ``ActionKindList``.
///
/// Reading the rules file, `check`'s summary, the abandoned-commute filter, the outbox payload
/// and the printed lines all go through these members, so nothing else in GeofenceRules or the
/// command line switches over the kinds.
protocol ActionKind: Sendable, Hashable {
    /// The kind's name: the key that asks for it in a rule, and what the outbox stores.
    static var name: RuleAction.Name { get }
    /// The other keys of a rule that belong to this kind (`run:`'s `timeout:`); `read` checks them,
    /// including when they appear without the kind's own key.
    static var modifierKeys: [String] { get }
    /// Whether it also fires for an abandoned commute (only kinds that record should).
    static var hearsAbandonedCommutes: Bool { get }

    /// Reads the kind from a rule's members: `nil` when the rule does not ask for it or asks
    /// wrongly (then `reader` holds the errors, naming where).
    static func read(_ rule: ActionSource, reader: inout NodeReader) -> Self?

    /// Makes the kind again from an outbox payload written by ``encodePayload(to:)``; `message` is
    /// the payload's `message` field.
    init(payload: KeyedDecodingContainer<PayloadKey>, message: String?) throws
    /// Writes the kind's own fields of the outbox payload (beside `"action": NAME`).
    func encodePayload(to container: inout KeyedEncodingContainer<PayloadKey>) throws

    /// The case of ``RuleAction`` that holds this value.
    var action: RuleAction { get }
    /// What the outbox carries when it fires; the action itself unless part of it is only the
    /// rule's business.
    var fired: RuleAction { get }
    /// As `check` shows it.
    var summary: String { get }
    /// As `replay` prints it under the event.
    var replayText: String { get }
    /// As `geofence actions` lists it, without secrets.
    var listingText: String { get }
}

extension ActionKind {
    /// The kind's name.
    var name: RuleAction.Name { Self.name }
    /// Every key of a rule that belongs to the kind.
    static var keys: [String] { [name.rawValue] + modifierKeys }
    /// Unchanged by default.
    var fired: RuleAction { action }
}

/// What an action kind reads from a rule.
struct ActionSource {
    /// The rule's members (already checked against the allowed keys).
    let members: Members
    /// "rule \"name\"", for errors.
    let context: String
    /// The rule's trigger, when it could be read.
    let trigger: Trigger?
    /// The file's `channels:`, by name.
    let channels: [String: Channel]
}

/// A field of the outbox payload (``FiredAction``'s JSON), named by its string.
struct PayloadKey: CodingKey, ExpressibleByStringLiteral, Hashable {
    let stringValue: String
    var intValue: Int? { nil }

    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
    init(stringLiteral value: String) { stringValue = value }
}
