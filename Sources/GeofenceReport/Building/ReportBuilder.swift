import Foundation
import Geofence
public import GeofenceInput
public import GeofenceRules

/// Builds a ``Report`` by replaying records through the same ``Pipeline`` that `replay` and `run`
/// use, keeping what the pictures need: every fix of the device shown (kept or dropped, with the
/// reason), the events, the visits, the actions and the commutes.
///
/// The signed distances in the charts are computed from the places' conditions directly, not taken
/// from inside the monitor, so the report reads the monitor only through its public events.
public struct ReportBuilder {
    private let rules: RulesFile
    private var pipeline: Pipeline
    private var device: String?
    private var devicesSeen: Set<String> = []
    private var fixes = FixTable()
    private var events: [ReportEvent] = []
    private var actions: [ReportAction] = []
    private var commutes: [CommuteRecord] = []
    /// Visits by their arrival (or departure when the arrival is unknown): a stay reported at its
    /// start and again at its end is one stay.
    private var visits: [Date: Visit] = [:]
    private var summary = ReportSummary()
    /// A detector of the report's own, with the default settings, when the rules ask for none:
    /// the map shows stays either way, and nothing it finds reaches the rules.
    private var ownDetector: VisitDetector?

    /// Makes a builder for `rules`; `device` picks the device shown (default: the first one read).
    public init(rules: RulesFile, device: String? = nil) {
        self.rules = rules
        self.pipeline = Pipeline(rules: rules)
        self.device = device
        self.ownDetector = rules.visitConfiguration == nil ? VisitDetector(configuration: .init()) : nil
    }

    /// Replays one record.
    public mutating func add(_ record: InputRecord) {
        summary.recordsRead += 1
        guard let output = pipeline.process(record, arrivedAt: nil) else { return }
        devicesSeen.insert(output.device)
        if device == nil { device = output.device }
        guard output.device == device else { return }
        if let fix = record.fix {
            summary.fixesRead += 1
            fixes.append(fix, dropped: output.dropped)
            if let reason = output.dropped {
                summary.dropped[reason, default: 0] += 1
            } else {
                summary.fixesKept += 1
                if var detector = ownDetector {
                    for visit in detector.ingest(fix) { note(visit) }
                    ownDetector = detector
                }
            }
        }
        collect(output)
    }

    /// Counts a line that could not be read.
    public mutating func addUnreadable() { summary.unreadable += 1 }

    /// Ends the input (closing open stays, as replay does) and assembles the report.
    public mutating func finish(source: String) -> Report {
        for output in pipeline.finish() where output.device == device { collect(output) }
        if var detector = ownDetector {
            for visit in detector.finish() { note(visit) }
            ownDetector = detector
        }
        let places = rules.places.map {
            ReportPlace(name: $0.name, condition: $0.condition, hysteresis: rules.hysteresis(for: $0))
        }
        let shown = device ?? Pipeline.defaultDevice
        let others = devicesSeen.subtracting([shown]).sorted()
        let sourceLine =
            others.isEmpty
            ? source : "\(source); device \(shown) (also in the input: \(others.joined(separator: ", ")))"
        let assembly = DayAssembly(
            places: places, timeZone: rules.timeZone, fixes: fixes.sortedByTime(), events: events,
            actions: actions, visits: Array(visits.values))
        return Report(
            source: sourceLine, device: shown, timeZone: rules.timeZone, places: places,
            days: assembly.days(), commutes: commutes.sorted { $0.start < $1.start }, summary: summary)
    }

    private mutating func note(_ visit: Visit) {
        guard let key = visit.arrival ?? visit.departure else { return }
        visits[key] = visit
    }

    private mutating func collect(_ output: PipelineOutput) {
        for event in output.placeEvents {
            events.append(ReportEvent(event))
            summary.eventsPerPlace[event.place, default: [:]][event.transition.rawValue, default: 0] += 1
        }
        for visit in output.visits { note(visit) }
        for action in output.actions {
            let kind = action.kind.name.rawValue
            if case .run = action.kind { summary.hooksNotRun += 1 }
            actions.append(
                ReportAction(
                    id: action.id, rule: action.rule, kind: kind, transition: action.transition.rawValue,
                    place: action.place,
                    date: action.date, outcome: .notRun, detail: "replay: nothing is executed"))
        }
        commutes += output.commutes
    }
}

extension ReportEvent {
    /// The report's form of an event the engine logged.
    init(_ event: PlaceEvent) {
        let coordinate = event.latitude.flatMap { latitude in
            event.longitude.flatMap { try? Coordinate(latitude: latitude, longitude: $0) }
        }
        self.init(
            id: event.id, place: event.place, transition: event.transition.rawValue,
            state: event.state.rawValue,
            date: event.date,
            confirmedAt: event.confirmedAt, coordinate: coordinate, accuracy: event.accuracy)
    }
}
