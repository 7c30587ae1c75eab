import Foundation
import GeofenceRules

/// Everything a batch of records produced, turned into one store ``Step``.
struct Batch {
    var outputs: [PipelineOutput] = []
    var changedDevices: Set<String> = []
    var engineChanged = false
    var positions: [String: InputPosition] = [:]
    var lifecycle: [LogEntry] = []

    var isEmpty: Bool { outputs.isEmpty && positions.isEmpty && lifecycle.isEmpty }

    /// Adds what one record or engine event produced; `device` is `nil` for engine events.
    mutating func add(_ output: PipelineOutput, device: String?) {
        outputs.append(output)
        if let device { changedDevices.insert(device) } else { engineChanged = true }
    }

    func step(pipeline: Pipeline, now: Date) throws -> Step {
        let encoder = EngineJSON.encoder()
        let stateEncoder = EngineJSON.stateEncoder()
        var step = Step()
        for name in changedDevices.sorted() {
            guard let device = pipeline.state.devices[name] else { continue }
            step.states.append(
                DeviceState(device: name, state: try stateEncoder.encode(device), updatedAt: now))
        }
        if engineChanged {
            step.states.append(
                DeviceState(
                    device: Runner.engineStateKey, state: try stateEncoder.encode(pipeline.state.engine),
                    updatedAt: now))
        }
        for output in outputs {
            for event in output.placeEvents {
                step.events.append(
                    StoredEvent(
                        id: event.id, device: event.device, kind: event.transition.rawValue,
                        place: event.place,
                        date: event.date,
                        confirmedAt: event.confirmedAt, json: try EngineJSON.line("event", event)))
            }
            for commute in output.commutes {
                step.commutes.append(
                    StoredCommute(
                        id: commute.id, device: commute.device, rule: commute.rule, fromPlace: commute.from,
                        toPlace: commute.to, start: commute.start, end: commute.end,
                        durationSeconds: commute.durationSeconds, status: commute.status.rawValue,
                        json: try EngineJSON.line("commute", commute)))
            }
            for action in output.actions {
                if case .remind = action.kind {
                    step.remindersDelivered.append(
                        ReminderDelivery(rule: action.rule, device: action.device, key: action.id, at: now))
                }
                let payload = String(decoding: try encoder.encode(action), as: UTF8.self)
                step.actions.append(
                    OutboxAction(
                        id: action.id, kind: action.kind.name.rawValue, payloadJSON: payload, createdAt: now))
            }
        }
        step.inputPositions = positions.keys.sorted().compactMap { positions[$0] }
        step.log = lifecycle
        return step
    }
}
