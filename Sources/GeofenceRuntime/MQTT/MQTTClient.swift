import CMosquitto
import Foundation

/// One connection to a broker through libmosquitto: subscribes on every (re)connect, runs the
/// network loop on libmosquitto's own thread, reconnects with backoff, and publishes.
///
/// Callbacks arrive on the network thread and are handed to `onHappening`, which must not block
/// for long (keep-alive pings wait meanwhile).
final class MQTTClient: @unchecked Sendable {
    /// What the connection reports.
    enum Happening: Sendable {
        /// Connected (again) and the subscription was asked for.
        case connected(subscribeFailure: String?)
        /// The broker answered the connect with a refusal (bad credentials, not authorised...).
        case refused(String)
        /// The connection was lost; libmosquitto reconnects with backoff.
        case disconnected(String)
        /// A message on a subscribed topic; `payload` is `nil` when it was larger than the limit.
        case message(topic: String, payload: [UInt8]?, retained: Bool)
    }

    /// Payloads larger than this are not kept (as input lines longer than 1 MiB are not).
    static let payloadLimitBytes = 1 << 20

    private let handle: OpaquePointer
    private let settings: MQTTSettings
    private let onHappening: @Sendable (Happening) -> Void
    /// Whether the network thread runs; guards against stopping twice.
    private let running = Locked(false)

    /// libmosquitto's global set-up, done once per process (`mosquitto_lib_init` is not
    /// thread-safe and must precede every other call).
    private static let libraryReady: Bool = mosquitto_lib_init() == MOSQ_ERR_SUCCESS.rawValue

    /// Makes a client with a persistent session (clean_session false) under the settings'
    /// client id. Throws if libmosquitto cannot make one or rejects the credentials or TLS set-up.
    init(settings: MQTTSettings, onHappening: @escaping @Sendable (Happening) -> Void) throws(MQTTError) {
        guard MQTTClient.libraryReady else { throw MQTTError("libmosquitto could not be initialised") }
        // NULL when out of memory or the id is invalid.
        guard let handle = mosquitto_new(settings.clientID, false, nil) else {
            throw MQTTError("libmosquitto cannot make a client with id '\(settings.clientID)'")
        }
        self.handle = handle
        self.settings = settings
        self.onHappening = onHappening
        try check(
            mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, Int32(MQTT_PROTOCOL_V311)), "protocol")
        if let username = settings.username {
            try check(mosquitto_username_pw_set(handle, username, settings.password), "credentials")
        }
        if settings.usesTLS {
            // The system's CA store (Debian: /etc/ssl/certs), as a browser would trust.
            try check(mosquitto_int_option(handle, MOSQ_OPT_TLS_USE_OS_CERTS, 1), "TLS")
        }
        // 1 s, doubling up to 60 s, while the broker is away.
        try check(mosquitto_reconnect_delay_set(handle, 1, 60, true), "reconnect delay")
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        mosquitto_connect_callback_set(handle) { _, context, code in
            guard let context else { return }
            Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().didConnect(code)
        }
        mosquitto_disconnect_callback_set(handle) { _, context, code in
            guard let context else { return }
            Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().didDisconnect(code)
        }
        mosquitto_message_callback_set(handle) { _, context, message in
            guard let context, let message else { return }
            Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().didReceive(message.pointee)
        }
    }

    deinit {
        stop()
        mosquitto_destroy(handle)
    }

    /// Starts connecting and the network thread. A broker that cannot be reached now is tried
    /// again by the network thread with backoff; the returned text says why the first try failed.
    func start() throws(MQTTError) -> String? {
        // Returns MOSQ_ERR_ERRNO (connection refused, ...) or MOSQ_ERR_EAI (name lookup) when the
        // broker cannot be reached; the loop thread retries those.
        let code = mosquitto_connect_async(handle, settings.host, Int32(settings.port), 30)
        var firstFailure: String?
        if code == MOSQ_ERR_INVAL.rawValue {
            throw MQTTError("cannot connect to \(settings.redactedURL): invalid host or port")
        } else if code != MOSQ_ERR_SUCCESS.rawValue {
            firstFailure = MQTTClient.describe(code)
        }
        // Returns MOSQ_ERR_NOT_SUPPORTED when libmosquitto was built without threads.
        try check(mosquitto_loop_start(handle), "network thread")
        running.withLock { $0 = true }
        return firstFailure
    }

    /// Disconnects cleanly (the broker keeps the session) and waits for the network thread.
    func stop() {
        let wasRunning = running.withLock { running in
            defer { running = false }
            return running
        }
        guard wasRunning else { return }
        mosquitto_disconnect(handle)
        mosquitto_loop_stop(handle, false)
    }

    /// Publishes `payload` to `topic` at QoS 1, retained if asked; returns why it failed, if it did.
    /// A message published while the broker is away is queued by libmosquitto and sent on reconnect.
    func publish(topic: String, payload: [UInt8], retain: Bool = false) -> String? {
        guard mosquitto_pub_topic_check(topic) == MOSQ_ERR_SUCCESS.rawValue else {
            return "'\(topic)' is not a topic one can publish to"
        }
        let code = payload.withUnsafeBytes { bytes in
            mosquitto_publish(handle, nil, topic, Int32(bytes.count), bytes.baseAddress, 1, retain)
        }
        // MOSQ_ERR_NO_CONN: not connected; the QoS 1 message is kept and sent after reconnecting.
        if code == MOSQ_ERR_SUCCESS.rawValue || code == MOSQ_ERR_NO_CONN.rawValue { return nil }
        return MQTTClient.describe(code)
    }

    // MARK: Callbacks, on the network thread

    private func didConnect(_ code: Int32) {
        guard code == 0 else {
            onHappening(.refused(String(cString: mosquitto_connack_string(code))))
            return
        }
        // The broker keeps the subscription in a persistent session, but a broker restarted
        // without persistence has forgotten it: subscribe on every connect.
        let subscribed = mosquitto_subscribe(handle, nil, settings.topic, 1)
        onHappening(
            .connected(
                subscribeFailure: subscribed == MOSQ_ERR_SUCCESS.rawValue
                    ? nil : MQTTClient.describe(subscribed)))
    }

    private func didDisconnect(_ code: Int32) {
        // 0: we asked for it (stop); nothing to report.
        guard code != 0 else { return }
        onHappening(.disconnected(MQTTClient.describe(code)))
    }

    private func didReceive(_ message: mosquitto_message) {
        guard let topicPointer = message.topic else { return }
        let topic = String(cString: topicPointer)
        var payload: [UInt8]?
        if Int(message.payloadlen) <= MQTTClient.payloadLimitBytes {
            if let bytes = message.payload, message.payloadlen > 0 {
                payload = Array(UnsafeRawBufferPointer(start: bytes, count: Int(message.payloadlen)))
            } else {
                payload = []
            }
        }
        onHappening(.message(topic: topic, payload: payload, retained: message.retain))
    }

    // MARK: Errors

    private func check(_ code: Int32, _ what: String) throws(MQTTError) {
        guard code == MOSQ_ERR_SUCCESS.rawValue else {
            throw MQTTError("libmosquitto: cannot set up the \(what): \(MQTTClient.describe(code))")
        }
    }

    /// libmosquitto's words for an error code; for MOSQ_ERR_ERRNO, the system's.
    static func describe(_ code: Int32) -> String {
        if code == MOSQ_ERR_ERRNO.rawValue { return String(cString: strerror(errno)) }
        return String(cString: mosquitto_strerror(code))
    }
}
