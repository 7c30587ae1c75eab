import Foundation
import GeofenceInput

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
    private let queue = Locked<RecordQueue?>(nil)
    private let live: Bool
    private let log: RunLog
    private let messageCount = Locked<Int64>(0)
    private let everConnected = Locked(false)
    private var client: MQTTClient?
    /// The connection's story, for warnings that say what is wrong (see ``MQTTDiagnosis``).
    private let diagnosis: Locked<MQTTDiagnosis>
    /// Whether messages still come in the burst that follows a (re)connect, and when the last
    /// came: the broker sends what it queued for the session (and retained positions) at once.
    private let burst = Locked((active: false, last: Date.distantPast))
    /// A gap this long after a connect, or between two messages of the burst, ends the burst.
    static let burstGapSeconds = 2.0
    /// Looks at the connection every few seconds while it is down.
    private var watchdog: DispatchSourceTimer?
    /// Opens payloads the apps encrypted (`--owntracks-keys`).
    private let keys: OwnTracksKeys
    private let warnedKeyless = OnceEach()

    /// Makes the input; nothing is connected until ``start()``.
    init(settings: MQTTSettings, history: Bool, log: RunLog, keys: OwnTracksKeys = OwnTracksKeys())
        throws(MQTTError)
    {
        self.settings = settings
        self.keys = keys
        self.live = !history
        self.log = log
        diagnosis = Locked(MQTTDiagnosis(settings: settings, now: Date()))
        client = try MQTTClient(settings: settings) { [weak self] happening in
            self?.handle(happening)
        }
    }

    /// Turns what the connection reports into items for the engine's loop (on the network thread).
    private func handle(_ happening: MQTTClient.Happening) {
        guard let queue = queue.withLock({ $0 }) else { return }
        switch happening {
        case .connected(let subscribeFailure):
            diagnosis.withLock { $0.didConnect() }
            burst.withLock { $0 = (true, Date()) }
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
            let message = diagnosis.withLock { $0.refused(reason) }
            queue.put(.note(input: name, message: message, level: .error))
        case .disconnected(let reason):
            diagnosis.withLock { $0.didDisconnect(now: Date()) }
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
            var readable = payload
            if let payload {
                let device = OwnTracksMessage.device(topic: topic)
                switch keys.open(payload, device: device) {
                case .plain: break
                case .decrypted(let clear): readable = clear
                case .noKey:
                    if warnedKeyless.first(device ?? topic) {
                        queue.put(
                            .note(
                                input: name, message: OwnTracksKeys.keylessWarning(device: device ?? topic),
                                level: .warning))
                    }
                    return
                case .failed(let reason):
                    queue.put(
                        .note(
                            input: name,
                            message:
                                "message \(number) on \(topic): the encrypted payload cannot be read: \(reason); skipped",
                            level: .warning))
                    return
                }
            }
            let text = readable.map { OwnTracksMessage.line(payload: $0, topic: topic) }
            // Messages the broker queued while geofence was away arrive in one burst after the
            // connect. They are history: judged with their own dates (not dropped as expired), and
            // their actions decided by each rule's max_delay. Later messages are live.
            let queued = burst.withLock { burst -> Bool in
                guard burst.active else { return false }
                let now = Date()
                guard now.timeIntervalSince(burst.last) <= MQTTInput.burstGapSeconds else {
                    burst.active = false
                    return false
                }
                burst.last = now
                return true
            }
            queue.put(.message(input: name, topic: topic, text: text, number: number, live: live && !queued))
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
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + 2, repeating: 2)
        timer.setEventHandler { [weak self] in
            guard let self, let warning = diagnosis.withLock({ $0.check(now: Date()) }) else { return }
            queue.put(.note(input: name, message: warning, level: .warning))
        }
        timer.resume()
        watchdog = timer
    }

    /// Disconnects (the broker keeps the session) and stops the network thread.
    func stop() {
        watchdog?.cancel()
        watchdog = nil
        client?.stop()
    }
}

extension MQTTInput {
    /// With `--mqtt-publish`, the outputs on this connection besides the transitions: Home
    /// Assistant's state and discovery, and (`--mqtt-waypoints`) the waypoints sent to phones.
    func homeAssistantOutputs(waypoints: Bool) -> [any RunOutput] {
        guard settings.publishTransitions, let client else { return [] }
        var outputs: [any RunOutput] = [HomeAssistantOutput(client: client, log: log)]
        if waypoints { outputs.append(WaypointsOutput(client: client, log: log)) }
        return outputs
    }

    /// Publishing on the broker's connection, for reminders sent to an MQTT channel.
    func publisher() -> ActionExecutor.MQTTPublish? {
        guard let client else { return nil }
        return { topic, payload in client.publish(topic: topic, payload: payload) }
    }

    /// The output that publishes transitions over this input's connection, when
    /// `--mqtt-publish` asked for it.
    func transitionPublisher() -> MQTTTransitionPublisher? {
        guard settings.publishTransitions, let client else { return nil }
        return MQTTTransitionPublisher(client: client, log: log)
    }
}
