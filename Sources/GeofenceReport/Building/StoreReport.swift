import Foundation
import Geofence
public import GeofenceRules
import GeofenceRuntime

/// Builds a ``Report`` from what a `geofence run` stored: its events, commutes and actions with
/// their outcomes (hooks run, failed, timed out).
///
/// The store keeps no fixes, so such a report has no track and no distance charts; the places are
/// drawn when a rules file is given, and each event where it was decided.
public enum StoreReport {
    /// Reads the store in `directory`; `rules` gives the places and the time zone; `device` picks
    /// the device shown (default: the one with the most events).
    public static func make(directory: String, rules: RulesFile?, device: String? = nil) throws -> Report {
        let reader = try StoreReader(directory: directory)
        defer { reader.close() }
        let decoder = EngineJSON.decoder()
        let placeEvents = try reader.events().compactMap {
            try? decoder.decode(PlaceEvent.self, from: Data($0.json.utf8))
        }
        let fired: [(FiredAction, OutboxAction)] = try reader.actions().compactMap { outbox in
            (try? decoder.decode(FiredAction.self, from: Data(outbox.payloadJSON.utf8))).map { ($0, outbox) }
        }
        let allCommutes = try reader.commutes().compactMap {
            try? decoder.decode(CommuteRecord.self, from: Data($0.json.utf8))
        }
        var counts: [String: Int] = [:]
        for event in placeEvents { counts[event.device, default: 0] += 1 }
        let shown =
            device ?? counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key
            ?? Pipeline.defaultDevice

        var summary = ReportSummary()
        summary.hasFixes = false
        let events = placeEvents.filter { $0.device == shown }
        for event in events {
            summary.eventsPerPlace[event.place, default: [:]][event.transition.rawValue, default: 0] += 1
        }
        var actions: [ReportAction] = []
        for (action, outbox) in fired where action.device == shown || action.device == "engine" {
            let result = outbox.resultJSON.flatMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            let timedOut = (result?["timed_out"] as? Bool) ?? false
            let outcome: ReportAction.Outcome
            switch outbox.status {
            case .pending, .running: outcome = .pending
            case .done: outcome = .succeeded
            case .failed: outcome = timedOut ? .timedOut : .failed
            }
            if outbox.kind == "run" {
                switch outcome {
                case .pending, .notRun: summary.hooksNotRun += 1
                case .succeeded: summary.hooksRun += 1
                case .failed:
                    summary.hooksRun += 1
                    summary.hooksFailed += 1
                case .timedOut:
                    summary.hooksRun += 1
                    summary.hooksFailed += 1
                    summary.hooksTimedOut += 1
                }
            }
            actions.append(
                ReportAction(
                    id: action.id, rule: action.rule, kind: outbox.kind,
                    transition: action.transition.rawValue,
                    place: action.place, date: action.date, outcome: outcome, detail: outbox.lastError))
        }
        let timeZone = rules?.timeZone ?? .gmt
        let places =
            rules?.places.map {
                ReportPlace(
                    name: $0.name, condition: $0.condition, hysteresis: rules?.hysteresis(for: $0) ?? .default
                )
            } ?? []
        let assembly = DayAssembly(
            places: places, timeZone: timeZone, fixes: FixTable(), events: events.map(ReportEvent.init),
            actions: actions, visits: [])
        return Report(
            source: "the store in \(directory) (a store keeps no fixes: no track, no distance charts)",
            device: shown, timeZone: timeZone, places: places, days: assembly.days(),
            commutes: allCommutes.filter { $0.device == shown }.sorted { $0.start < $1.start },
            summary: summary)
    }
}
