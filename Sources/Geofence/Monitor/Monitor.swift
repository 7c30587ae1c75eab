public import Foundation

/// A region monitor in the shape of CLMonitor: conditions by identifier, records, and an
/// `AsyncSequence` of events.
///
/// The actor serialises access to a ``MonitorEngine``, which does all the work and documents the
/// semantics; ``state`` is that engine, the value to save, and ``init(restoring:)`` continues from
/// it. Events go to ``events`` and are also returned by the calls that caused them.
///
/// ```swift
/// let monitor = Monitor(name: "places")
/// await monitor.add(.circle(home), identifier: "home")
/// Task { for await event in monitor.events { print(event) } }
/// await monitor.ingest(fixes)
/// ```
///
/// Feed a whole trace with the batch `ingest(_ fixes: [Fix])` rather than one fix per call: each
/// call is an actor hop, and a year of fixes one hop at a time is slow.
public actor Monitor {
    /// The monitor's name.
    public nonisolated let name: String
    /// Every event, in the order the engine produced them; it finishes when ``finish()`` is
    /// called or the monitor is released. Events are buffered until read.
    public nonisolated let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    /// The whole state of the monitor, to save; restore it with ``init(restoring:)``.
    public private(set) var state: MonitorEngine

    /// Makes a monitor with no conditions.
    public init(name: String, filter: FixFilter.Configuration = .init()) {
        self.init(restoring: MonitorEngine(name: name, filter: filter))
    }

    /// Makes a monitor that continues from a saved state: no event is repeated and none lost.
    public init(restoring engine: MonitorEngine) {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self)
        self.events = stream
        self.continuation = continuation
        self.name = engine.name
        self.state = engine
    }

    deinit { continuation.finish() }

    /// Adds a condition; see ``MonitorEngine/add(_:identifier:assuming:hysteresis:)``.
    @discardableResult
    public func add(
        _ condition: Condition, identifier: String, assuming: ConditionState = .unknown,
        hysteresis: Hysteresis = .default
    ) -> [Event] {
        publish(state.add(condition, identifier: identifier, assuming: assuming, hysteresis: hysteresis))
    }

    /// Removes a condition and its record.
    public func remove(_ identifier: String) { state.remove(identifier) }

    /// The identifiers of all conditions, in the order they were added.
    public var identifiers: [String] { state.identifiers }

    /// The condition, state and last event for an identifier.
    public func record(for identifier: String) -> MonitorRecord? { state.record(for: identifier) }

    /// Ingests one fix; `arrivedAt` is its wall-clock arrival when live, `nil` in replay.
    @discardableResult
    public func ingest(_ fix: Fix, arrivedAt: Date? = nil) -> [Event] {
        publish(state.ingest(fix, arrivedAt: arrivedAt))
    }

    /// Ingests fixes in order, in one actor hop.
    @discardableResult
    public func ingest(_ fixes: [Fix], arrivedAt: Date? = nil) -> [Event] {
        publish(state.ingest(fixes, arrivedAt: arrivedAt))
    }

    /// Ingests a visit.
    @discardableResult
    public func ingest(_ visit: Visit) -> [Event] { publish(state.ingest(visit)) }

    /// Ends ``events``, so that a `for await` loop over it finishes once it has read everything.
    public func finish() { continuation.finish() }

    private func publish(_ events: [Event]) -> [Event] {
        for event in events { continuation.yield(event) }
        return events
    }
}
