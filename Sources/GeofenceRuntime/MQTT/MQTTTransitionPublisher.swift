import Geofence
import Foundation
import GeofenceRules

/// Publishes committed enter and exit events back to the broker as OwnTracks transition
/// messages (`owntracks/USER/DEVICE/event`), the way the apps publish their own, best effort.
struct MQTTTransitionPublisher: RunOutput {
    /// The input's connection; publishing while it is down fails and is logged.
    let client: MQTTClient
    let log: RunLog

    func deliver(_ batch: CommittedBatch) {
        for output in batch.outputs { publish(output, regionsDefinedAt: batch.rulesChangedAt) }
    }

    private func publish(_ output: PipelineOutput, regionsDefinedAt: Date) {
        for event in output.placeEvents {
            let kind: String
            switch event.transition {
            case .enter: kind = "enter"
            case .exit: kind = "leave"
            default: continue
            }
            let label = output.events.first { $0.identifier == event.place && $0.date == event.date }?.fix?
                .label
            let message = OwnTracksTransitionMessage(
                event: kind, desc: event.place, tst: Int64(event.date.timeIntervalSince1970.rounded(.down)),
                wtst: Int64(regionsDefinedAt.timeIntervalSince1970.rounded(.down)),
                lat: event.latitude.map(MQTTTransitionPublisher.sixDecimals),
                lon: event.longitude.map(MQTTTransitionPublisher.sixDecimals),
                acc: event.accuracy.map { Int($0.rounded()) }, tid: label)
            let topic = OwnTracksMessage.eventTopic(device: event.device)
            let failure: String?
            do {
                failure = client.publish(topic: topic, payload: try message.json())
            } catch {
                failure = "cannot encode: \(error)"
            }
            if let failure {
                log.warning("mqtt: cannot publish the \(kind) of \(event.place) to \(topic): \(failure)")
            }
        }
    }

    /// Coordinates to six decimals (11 cm), as geofence prints them.
    private static func sixDecimals(_ degrees: Double) -> Double { (degrees * 1e6).rounded() / 1e6 }
}
