import Foundation
import GeofenceInput
import Synchronization

/// The MQTT broker as an input of `geofence run`: every message on the subscribed topics is
/// handed to the engine's loop as one line. Its connection also carries the transitions
/// ``MQTTTransitionPublisher`` sends back.
///
/// MQTT has no position to resume from: after a restart the broker delivers what it queued for
/// the persistent session (QoS 1 messages sent while geofence was away) and nothing else.
final class MQTTInput: RunInput, @unchecked Sendable {
    /// The input's name in logs, pauses and the store.
    let name = MQTTSettings.inputName
    private let settings: MQTTSettings
    /// Set by ``start(into:)``, before the network thread that reads it starts.
    private let queue = Mutex<RecordQueue?>(nil)
    private let live: Bool
    private let log: RunLog
    private let messageCount = Mutex<Int64>(0)
    private let everConnected = Mutex(false)
    private var client: MQTTClient?

    /// Makes the input; nothing is connected until ``start()``.
    init(settings: MQTTSettings, history: Bool, log: RunLog) throws(MQTTError) {
        self.settings = settings
        self.live = !history
        self.log = log
        client = try MQTTClient(settings: settings) { [weak self] happening in
            self?.handle(happening)
        }
    }

    /// Turns what the connection reports into items for the engine's loop (on the network thread).
    private func handle(_ happening: MQTTClient.Happening) {
        guard let queue = queue.withLock({ $0 }) else { return }
        switch happening {
        case .connected(let subscribeFailure):
            let again = everConnected.withLock { ever in
                defer { ever = true }
                return ever
            }
            let message =
                subscribeFailure.map {
                    "connected to \(settings.redactedURL) but cannot subscribe to \(settings.topic): \($0)"
                }
                ?? "\(again ? "reconnected" : "connected") to \(settings.redactedURL), subscribed to \(settings.topic) (QoS 1)"
            queue.put(.note(input: name, message: message, level: subscribeFailure == nil ? .info : .error))
        case .refused(let reason):
            queue.put(
                .note(
                    input: name,
                    message: "\(settings.redactedURL) refused the connection: \(reason); retrying",
                    level: .error))
        case .disconnected(let reason):
            queue.put(
                .note(
                    input: name,
                    message:
                        "disconnected from \(settings.redactedURL) (\(reason)); reconnecting with backoff",
                    level: .warning))
        case .message(let topic, let payload, _):
            let number = messageCount.withLock { count in
                count += 1
                return count
            }
            let text = payload.map { OwnTracksMessage.line(payload: $0, topic: topic) }
            queue.put(.message(input: name, topic: topic, text: text, number: number, live: live))
        }
    }

    /// OwnTracks JSON, whatever `--format` says: that is what the broker carries.
    func decoder(format: InputFormat, timeZone: TimeZone) -> StreamDecoder {
        StreamDecoder(format: .owntracks, source: name, timeZone: timeZone)
    }

    /// Connects and starts the network thread.
    func start(into queue: RecordQueue) throws {
        self.queue.withLock { $0 = queue }
        guard let client else { return }
        if settings.passwordInURL {
            log.warning(
                "input mqtt: the password is in the --mqtt URL, which ps shows to every user; set \(MQTTSettings.passwordVariable) instead"
            )
        }
        log.info("input mqtt: connecting to \(settings.description) as client \(settings.clientID)")
        if let failure = try client.start() {
            log.warning(
                "input mqtt: cannot reach \(settings.redactedURL) (\(failure)); retrying with backoff")
        }
    }

    /// Disconnects (the broker keeps the session) and stops the network thread.
    func stop() {
        client?.stop()
    }
}

extension MQTTInput {
    /// The output that publishes transitions over this input's connection, when
    /// `--mqtt-publish` asked for it.
    func transitionPublisher() -> MQTTTransitionPublisher? {
        guard settings.publishTransitions, let client else { return nil }
        return MQTTTransitionPublisher(client: client, log: log)
    }
}
