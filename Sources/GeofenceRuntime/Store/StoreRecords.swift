public import Foundation

/// The saved engine state of one device, as the rules engine encoded it (Codable JSON).
public struct DeviceState: Sendable, Equatable {
    /// The device the state belongs to.
    public var device: String
    /// The encoded state; the store never looks inside.
    public var state: Data
    /// When the state was saved.
    public var updatedAt: Date

    /// Makes a device state from its parts.
    public init(device: String, state: Data, updatedAt: Date) {
        self.device = device
        self.state = state
        self.updatedAt = updatedAt
    }
}

/// One event the engine produced, as kept in the event log.
public struct StoredEvent: Sendable, Equatable {
    /// The event's unique id; an event whose id is already stored is not stored again.
    public var id: String
    /// The device the event concerns, if any.
    public var device: String?
    /// What happened, in the engine's words (for example `enter`, `exit`, `dwell`).
    public var kind: String
    /// The place (condition identifier) concerned, if any.
    public var place: String?
    /// The best estimate of when it really happened.
    public var date: Date
    /// When the engine's confirmation completed, if that differs from `date`.
    public var confirmedAt: Date?
    /// The whole event as JSON text, printed as-is by `geofence events`.
    public var json: String

    /// Makes an event record from its parts.
    public init(
        id: String, device: String?, kind: String, place: String?, date: Date, confirmedAt: Date?,
        json: String
    ) {
        self.id = id
        self.device = device
        self.kind = kind
        self.place = place
        self.date = date
        self.confirmedAt = confirmedAt
        self.json = json
    }
}

/// One commute, open or finished; a later step with the same id replaces it.
public struct StoredCommute: Sendable, Equatable {
    /// The commute's unique id.
    public var id: String
    /// The device that travelled, if known.
    public var device: String?
    /// The commute rule that recorded it.
    public var rule: String
    /// The place it started from.
    public var fromPlace: String
    /// The place it ends at.
    public var toPlace: String
    /// The departure, if known.
    public var start: Date?
    /// The arrival, once it happened.
    public var end: Date?
    /// The time from departure to arrival, once both are known.
    public var durationSeconds: Double?
    /// The engine's status word (for example `open`, `completed`, `abandoned`).
    public var status: String
    /// The whole commute as JSON text, printed as-is by `geofence commutes`.
    public var json: String

    /// Makes a commute record from its parts.
    public init(
        id: String, device: String?, rule: String, fromPlace: String, toPlace: String, start: Date?,
        end: Date?,
        durationSeconds: Double?, status: String, json: String
    ) {
        self.id = id
        self.device = device
        self.rule = rule
        self.fromPlace = fromPlace
        self.toPlace = toPlace
        self.start = start
        self.end = end
        self.durationSeconds = durationSeconds
        self.status = status
        self.json = json
    }
}

/// A reminder that has been delivered, so that a restart does not deliver it again.
public struct ReminderDelivery: Sendable, Equatable {
    /// The reminder rule.
    public var rule: String
    /// The device it was delivered for.
    public var device: String
    /// What makes one delivery distinct from the next (for example the local date), chosen by the rule.
    public var key: String
    /// When it was delivered.
    public var at: Date

    /// Makes a delivery record from its parts.
    public init(rule: String, device: String, key: String, at: Date) {
        self.rule = rule
        self.device = device
        self.key = key
        self.at = at
    }
}

/// How far an input has been read, so that a restart resumes after the last committed line.
public struct InputPosition: Sendable, Equatable {
    /// The input's name (for example its path).
    public var input: String
    /// What identifies the file read (for example `inode:device`), to notice that it was replaced.
    public var identity: String?
    /// The byte offset just after the last line committed.
    public var offset: Int64
    /// The number of lines committed.
    public var line: Int64

    /// Makes an input position from its parts.
    public init(input: String, identity: String?, offset: Int64, line: Int64) {
        self.input = input
        self.identity = identity
        self.offset = offset
        self.line = line
    }
}

/// One line of the store's log: an engine life-cycle event or the result of an action.
public struct LogEntry: Sendable, Equatable {
    /// How serious the entry is.
    public enum Level: String, Sendable, CaseIterable {
        /// Normal operation.
        case info
        /// Something went wrong but the run goes on.
        case warning
        /// Something failed.
        case error
    }

    /// The entry's position in the log; `nil` until stored.
    public var sequence: Int64?
    /// When it was logged.
    public var at: Date
    /// How serious it is.
    public var level: Level
    /// What kind of entry it is (for example `start`, `stop`, `action`).
    public var kind: String
    /// A human-readable line.
    public var message: String
    /// The outbox action it concerns, if any.
    public var actionID: String?
    /// Details as JSON text (for a hook: its status and captured output), if any.
    public var json: String?

    /// Makes a log entry from its parts.
    public init(
        sequence: Int64? = nil, at: Date, level: Level, kind: String, message: String,
        actionID: String? = nil,
        json: String? = nil
    ) {
        self.sequence = sequence
        self.at = at
        self.level = level
        self.kind = kind
        self.message = message
        self.actionID = actionID
        self.json = json
    }
}
