import Foundation
import GeofenceRules

/// With `--mqtt-publish`: Home Assistant's view of each person (or device), kept up to date from committed
/// place events as retained MQTT messages (``HomeAssistantTopics``), best effort.
final class HomeAssistantOutput: RunOutput {
    /// The broker input's connection.
    let client: MQTTClient
    let log: RunLog
    private let topics = Locked(HomeAssistantTopics())

    init(client: MQTTClient, log: RunLog) {
        self.client = client
        self.log = log
    }

    func deliver(_ batch: CommittedBatch) {
        let events = batch.outputs.flatMap(\.placeEvents)
        guard !events.isEmpty else { return }
        let messages = topics.withLock { $0.messages(for: events, people: batch.people) }
        for message in messages {
            if let failure = client.publish(
                topic: message.topic, payload: Array(message.payload.utf8), retain: message.retain)
            {
                log.warning("mqtt: cannot publish to \(message.topic): \(failure)")
            }
        }
    }
}
