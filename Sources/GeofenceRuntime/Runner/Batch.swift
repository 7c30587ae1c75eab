import Foundation
import GeofenceRules

/// Everything a batch of records produced, turned into one store ``Step``.
struct Batch {
    var outputs: [PipelineOutput] = []
    /// For each output, when the evidence that produced it was true (nil: now, as for engine events).
    var evidence: [Date?] = []
    var changedDevices: Set<String> = []
    var engineChanged = false
    var positions: [String: InputPosition] = [:]
    var lifecycle: [LogEntry] = []
    /// The HTTP requests whose lines are in the batch, answered once it is committed.
    var tickets: [CommitTicket] = []
    /// How many records and engine events the batch holds, kept or not in ``outputs``.
    private(set) var records = 0
    /// The device of the last output added: a run of one device's records inserts it once.
    private var lastDevice: String?

    var isEmpty: Bool {
        outputs.isEmpty && positions.isEmpty && lifecycle.isEmpty && changedDevices.isEmpty && !engineChanged
    }

    /// Adds what one record or engine event produced; `device` is `nil` for engine events.
    ///
    /// An output that carries nothing (most fixes change no state of a place) is kept only as its
    /// device's first in the batch, so that outputs still hear of every device seen (the waypoints
    /// go to each new one): a batch of history holds its events, not a copy of every record.
    ///
    /// `evidence` is read only for an output that is kept: for a record, it is the record's own
    /// date, read out of the record, and most records' outputs are not kept.
    mutating func add(_ output: PipelineOutput, device: String?, evidence: @autoclosure () -> Date? = nil) {
        records += 1
        var firstOfDevice = true
        if let device {
            if device == lastDevice {
                firstOfDevice = false
            } else {
                firstOfDevice = changedDevices.insert(device).inserted
                lastDevice = device
            }
        } else {
            engineChanged = true
        }
        // The person's other devices, which hold the same rules (see `Pipeline`).
        if !output.alsoChanged.isEmpty { changedDevices.formUnion(output.alsoChanged) }
        if !firstOfDevice, Batch.carriesNothing(output) { return }
        outputs.append(output)
        self.evidence.append(evidence())
    }

    /// Whether an output has nothing for the store or an output to take.
    private static func carriesNothing(_ output: PipelineOutput) -> Bool {
        // The usual fix's output holds no lists at all: nothing to read in them.
        output.isBare
            || (output.placeEvents.isEmpty && output.events.isEmpty && output.visits.isEmpty
                && output.actions.isEmpty && output.commutes.isEmpty && output.alsoChanged.isEmpty)
    }

    /// The store step; actions whose evidence is too old for `policy` are in it as skipped.
    func step(pipeline: Pipeline, now: Date, policy: HistoryPolicy = HistoryPolicy(fireHistory: true)) throws
        -> Step
    {
        let encoder = EngineJSON.encoder()
        var step = Step()
        let devices = changedDevices.sorted().compactMap { name in
            pipeline.state.devices[name].map { (name: name, engine: $0) }
        }
        step.states = try StateEncoding.encode(devices, now: now)
        if engineChanged {
            step.states.append(
                DeviceState(
                    device: Runner.engineStateKey,
                    state: try EngineJSON.stateEncoder().encode(pipeline.state.engine), updatedAt: now))
        }
        var maxDelays: [String: Double] = [:]
        for rule in pipeline.rules.rules { maxDelays[rule.name] = rule.maxDelaySeconds }
        for (index, output) in outputs.enumerated() {
            let evidence = index < self.evidence.count ? self.evidence[index] : nil
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
                let skip = policy.skipReason(
                    evidence: evidence ?? now, now: now, maxDelay: maxDelays[action.rule] ?? nil)
                // A skipped reminder is not delivered.
                if case .remind = action.kind, skip == nil {
                    step.remindersDelivered.append(
                        ReminderDelivery(rule: action.rule, device: action.device, key: action.id, at: now))
                }
                let payload = String(decoding: try encoder.encode(action), as: UTF8.self)
                var outbox = OutboxAction(
                    id: action.id, kind: action.kind.name.rawValue, payloadJSON: payload, createdAt: now)
                if let skip {
                    outbox.status = .skipped
                    outbox.lastError = skip
                    outbox.finishedAt = now
                }
                step.actions.append(outbox)
            }
        }
        step.inputPositions = positions.keys.sorted().compactMap { positions[$0] }
        step.log = lifecycle
        return step
    }
}
