public import Geofence

/// What happened, in the words events, actions, hooks and the store use: `enter`, `exit`,
/// `visit-start`, an engine event's name...
///
/// One type for every place a transition is written or compared, so that the compiler finds each
/// switch a new trigger must extend. The raw value is what stored JSON, the store's `kind`
/// columns, `GEOFENCE_TRANSITION` and printed lines hold; it never changes for an existing case.
public enum Transition: Sendable, Hashable {
    /// The person arrived at the place (a confirmed crossing).
    case enter
    /// The person left the place.
    case exit
    /// A place's state was found for the first time (at start, or for a new place): not a crossing.
    case determined
    /// The person has been inside the place for a rule's (or the monitor's) dwell time.
    case dwell
    /// The place was added past the monitor's limit of twenty and is not evaluated.
    case conditionLimitExceeded
    /// A visit started at the place.
    case visitStart
    /// A visit at the place ended.
    case visitEnd
    /// A commute reached its destination.
    case commute
    /// A commute came back to its start first, or took longer than its maximum.
    case commuteAbandoned
    /// Something happened to the engine itself.
    case engine(LifecycleKind)

    /// Every transition, engine events included.
    public static let allCases: [Transition] =
        [
            .enter, .exit, .determined, .dwell, .conditionLimitExceeded, .visitStart, .visitEnd, .commute,
            .commuteAbandoned,
        ] + LifecycleKind.allCases.map { .engine($0) }

    /// The transition a monitor event stands for: a first determination, an arrival or a
    /// departure for state changes, otherwise the event's kind.
    public init(_ event: borrowing Event) {
        switch event.kind {
        case .transition:
            if event.isFirstDetermination {
                self = .determined
            } else {
                self = event.state == .satisfied ? .enter : .exit
            }
        case .dwell: self = .dwell
        case .conditionLimitExceeded: self = .conditionLimitExceeded
        }
    }
}

extension Transition: RawRepresentable, Codable {
    /// The name stored and shown: `enter`, `visit-start`, `commute-abandoned`, `input-paused`...
    public var rawValue: String {
        switch self {
        case .enter: "enter"
        case .exit: "exit"
        case .determined: "determined"
        case .dwell: "dwell"
        case .conditionLimitExceeded: "conditionLimitExceeded"
        case .visitStart: "visit-start"
        case .visitEnd: "visit-end"
        case .commute: "commute"
        case .commuteAbandoned: "commute-abandoned"
        case .engine(let kind): kind.rawValue
        }
    }

    /// The transition with this name, or `nil` for a name no version of geofence wrote.
    public init?(rawValue: String) {
        guard let match = Transition.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = match
    }
}

extension Transition: CustomStringConvertible {
    /// The raw value, so that interpolating a transition prints what the store holds.
    public var description: String { rawValue }
}
