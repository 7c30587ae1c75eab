/// Something a rule does, and what a fired action carries out: one case per kind of action.
///
/// Each kind is a type of its own, in its own file beside this one, that declares everything about
/// it once (see ``ActionKind``): its rules-file key and how it is read, how `check` shows it,
/// whether it hears an abandoned commute, and its fields in the outbox payload. This enum is the
/// one list of them: a new kind is a case, its ``Name`` and a line in ``ActionKindList/all``,
/// and the compiler then points at the runtime's `ActionExecutor`, which carries it out.
public enum RuleAction: Sendable, Hashable {
    /// Append an NDJSON line to a file, and print a readable line.
    case log(LogAction)
    /// Run a hook: an argument array, never a shell string.
    case run(RunAction)
    /// Deliver a reminder, through a channel as well as the log.
    case remind(RemindAction)
    /// POST the event to an HTTP endpoint (a webhook: ntfy, Gotify, Home Assistant...).
    case post(PostAction)

    /// The name of an action kind: its key in a rule, the outbox's `kind` column and the payload's
    /// `action` field. A raw value never changes for an existing case.
    public enum Name: String, Sendable, Hashable, Codable, CaseIterable {
        /// ``LogAction``.
        case log
        /// ``RunAction``.
        case run
        /// ``RemindAction``.
        case remind
        /// ``PostAction``.
        case post
    }

    /// The kind behind the case.
    var kind: any ActionKind {
        switch self {
        case .log(let action): action
        case .run(let action): action
        case .remind(let action): action
        case .post(let action): action
        }
    }
}

/// Every action kind, in the order a rule's actions are read and fired.
enum ActionKindList {
    /// The order gives each action of a rule its index, and so its id (`EVENT/INDEX`): it never
    /// changes for the existing kinds, and a new kind goes at the end.
    static let all: [any ActionKind.Type] = [
        LogAction.self, RunAction.self, PostAction.self, RemindAction.self,
    ]
}

extension RuleAction {
    /// This action's kind name.
    public var name: Name { kind.name }

    /// Whether the action also fires for an abandoned commute. An abandoned commute is a record,
    /// not a success, so only actions that record hear of it; each kind chooses in its own file.
    public var hearsAbandonedCommutes: Bool { type(of: kind).hearsAbandonedCommutes }

    /// The action as `check` shows it.
    public var summary: String { kind.summary }

    /// What the action does, as `replay` prints it under the event: `log to x`, `run prog arg`,
    /// `REMINDER: text`, `post to URL` (without its query).
    public var replayText: String { kind.replayText }

    /// What the action does, as `geofence actions` lists it, with nothing secret (a webhook's
    /// host only).
    public var listingText: String { kind.listingText }

    /// What the outbox carries when the action fires: the action without what only the rule needs
    /// (a reminder's repetition).
    var fired: RuleAction { kind.fired }
}
