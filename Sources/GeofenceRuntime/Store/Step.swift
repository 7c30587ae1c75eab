/// Everything one step of the engine changes, written to the store in one transaction.
///
/// A step is the unit of atomicity: the new device states, the events and commutes they produced,
/// how far the inputs were read and the actions to run are stored together or not at all, so after
/// a crash the store is at the end of some step, never in the middle of one.
public struct Step: Sendable, Equatable {
    /// New saved states, replacing each device's previous one.
    public var states: [DeviceState]
    /// New events; one whose id is already stored is skipped.
    public var events: [StoredEvent]
    /// New or updated commutes, replacing any with the same id.
    public var commutes: [StoredCommute]
    /// Reminders delivered in this step.
    public var remindersDelivered: [ReminderDelivery]
    /// New read positions of inputs, replacing each input's previous one.
    public var inputPositions: [InputPosition]
    /// New actions for the outbox, stored as pending; one whose id is already stored is skipped, so
    /// re-deriving a step never re-queues an action that already ran.
    public var actions: [OutboxAction]
    /// Log lines to store with the step.
    public var log: [LogEntry]

    /// Makes a step; every part defaults to nothing.
    public init(
        states: [DeviceState] = [], events: [StoredEvent] = [], commutes: [StoredCommute] = [],
        remindersDelivered: [ReminderDelivery] = [], inputPositions: [InputPosition] = [],
        actions: [OutboxAction] = [], log: [LogEntry] = []
    ) {
        self.states = states
        self.events = events
        self.commutes = commutes
        self.remindersDelivered = remindersDelivered
        self.inputPositions = inputPositions
        self.actions = actions
        self.log = log
    }

    /// Whether the step changes nothing.
    public var isEmpty: Bool {
        states.isEmpty && events.isEmpty && commutes.isEmpty && remindersDelivered.isEmpty
            && inputPositions.isEmpty && actions.isEmpty && log.isEmpty
    }
}
