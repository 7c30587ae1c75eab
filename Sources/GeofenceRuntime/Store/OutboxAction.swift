public import Foundation

/// An action waiting in, or finished from, the store's outbox.
///
/// The outbox is what makes actions at-least-once: an action is written in the same transaction as
/// the state change that caused it, before it runs, and marked finished after. The store does not
/// know what an action does; `kind` and the JSON `payloadJSON` belong to the rules engine.
public struct OutboxAction: Sendable, Equatable {
    /// Where an action is in its life.
    public enum Status: String, Sendable, CaseIterable {
        /// Written, not started.
        case pending
        /// Started, not known to have finished (after a crash: to run again).
        case running
        /// Finished and succeeded.
        case done
        /// Finished and failed; it is not run again.
        case failed
        /// Never run, on purpose: the event it answers is history (before the run started, or older
        /// than the rule's `max_delay:`); `lastError` says why.
        case skipped
    }

    /// The action's unique id, given to a hook as `GEOFENCE_EVENT_ID`; the same on every attempt.
    public var id: String
    /// What kind of action it is: the raw value of a `RuleAction.Name` (`log`, `run` or
    /// `remind`).
    public var kind: String
    /// The action's details as JSON text.
    public var payloadJSON: String
    /// When it was written to the outbox.
    public var createdAt: Date
    /// Where it is in its life.
    public var status: Status
    /// How many times it has been started.
    public var attempts: Int
    /// The last failure's message, if any.
    public var lastError: String?
    /// When it finished, if it has.
    public var finishedAt: Date?
    /// Details of how it finished as JSON text, if any.
    public var resultJSON: String?

    /// Makes a new pending action from its JSON payload text.
    public init(id: String, kind: String, payloadJSON: String, createdAt: Date) {
        self.id = id
        self.kind = kind
        self.payloadJSON = payloadJSON
        self.createdAt = createdAt
        self.status = .pending
        self.attempts = 0
        self.lastError = nil
        self.finishedAt = nil
        self.resultJSON = nil
    }

    /// Makes a new pending action whose payload is `payload` encoded as JSON.
    public init<Payload: Encodable>(id: String, kind: String, payload: Payload, createdAt: Date) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(payload)
        self.init(
            id: id, kind: kind, payloadJSON: String(decoding: data, as: UTF8.self), createdAt: createdAt)
    }

    /// Decodes the payload as `type`.
    public func payload<Payload: Decodable>(as type: Payload.Type) throws -> Payload {
        try JSONDecoder().decode(type, from: Data(payloadJSON.utf8))
    }

    /// Whether the action has finished, successfully or not; a finished action never runs again.
    public var isFinished: Bool { status == .done || status == .failed || status == .skipped }
}

/// How an action ended, as reported to ``Store/markDone(_:outcome:at:)``.
public struct ActionOutcome: Sendable, Equatable {
    /// Whether the action succeeded.
    public var succeeded: Bool
    /// A one-line summary (for a failure: what went wrong).
    public var message: String
    /// Details as JSON text (for a hook: status, duration and captured output), if any.
    public var json: String?

    /// Makes an outcome from its parts.
    public init(succeeded: Bool, message: String, json: String? = nil) {
        self.succeeded = succeeded
        self.message = message
        self.json = json
    }
}
