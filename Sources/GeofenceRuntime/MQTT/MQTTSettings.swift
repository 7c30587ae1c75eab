import CMosquitto
public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// How `geofence run --mqtt URL` reaches a broker: where, as whom, which topics it reads, and
/// whether it publishes transitions back.
///
/// The password is best given in the environment variable `GEOFENCE_MQTT_PASSWORD`: one written
/// in the URL is on the command line, which every user of the machine can read with `ps`.
/// Neither ever appears in a log line (``redactedURL`` leaves it out).
public struct MQTTSettings: Sendable, CustomStringConvertible {
    /// The topic filter read when none is given: every OwnTracks device's location topic.
    public static let defaultTopic = "owntracks/+/+"
    /// The name the broker input has in logs, pause reports and the store.
    public static let inputName = "mqtt"
    /// The environment variable a password is read from.
    public static let passwordVariable = "GEOFENCE_MQTT_PASSWORD"

    /// The broker's host name or address.
    public var host: String
    /// The broker's port (1883 for `mqtt://`, 8883 for `mqtts://` unless the URL says).
    public var port: Int
    /// Whether the connection uses TLS (`mqtts://`), checked against the system's CA store.
    public var usesTLS: Bool
    /// The user name, if the broker wants one.
    public var username: String?
    /// The password, if any; never logged.
    var password: String?
    /// The topic filter subscribed to, at QoS 1.
    public var topic: String
    /// Whether enter and exit events are published back as OwnTracks transition messages.
    public var publishTransitions: Bool
    /// The client id: stable across restarts, so that the broker keeps the session (and queues
    /// QoS 1 messages) while geofence is down.
    public var clientID: String

    /// Reads `mqtt://[user[:password]@]host[:port]` or `mqtts://...`; a password missing from
    /// the URL is taken from `GEOFENCE_MQTT_PASSWORD` in `environment`. Throws if the URL or the
    /// topic filter cannot be used.
    public init(
        url: String, topic: String = MQTTSettings.defaultTopic, publishTransitions: Bool = false,
        clientID: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(MQTTError) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            throw MQTTError("--mqtt wants a URL like mqtt://host:1883 or mqtts://user@host")
        }
        switch scheme {
        case "mqtt": usesTLS = false
        case "mqtts": usesTLS = true
        default: throw MQTTError("--mqtt: the scheme is mqtt:// or mqtts://, not \(scheme)://")
        }
        guard let host = components.host, !host.isEmpty else {
            throw MQTTError("--mqtt: the URL names no host")
        }
        guard components.path.isEmpty || components.path == "/", components.query == nil,
            components.fragment == nil
        else {
            throw MQTTError("--mqtt: the URL has a path or query; give the topic with --mqtt-topic")
        }
        let port = components.port ?? (usesTLS ? 8883 : 1883)
        guard (1...65535).contains(port) else { throw MQTTError("--mqtt: port \(port) is out of range") }
        self.host = host
        self.port = port
        username = components.percentEncodedUser.flatMap { $0.removingPercentEncoding ?? $0 }
        password = components.percentEncodedPassword.flatMap { $0.removingPercentEncoding ?? $0 }
        passwordInURL = password != nil
        if password == nil, let secret = environment[MQTTSettings.passwordVariable], !secret.isEmpty {
            guard username != nil else {
                throw MQTTError(
                    "\(MQTTSettings.passwordVariable) is set but the URL names no user (mqtt://USER@host)")
            }
            password = secret
        }
        guard !topic.isEmpty, mosquitto_sub_topic_check(topic) == MOSQ_ERR_SUCCESS.rawValue else {
            throw MQTTError("--mqtt-topic: '\(topic)' is not a valid MQTT topic filter")
        }
        self.topic = topic
        self.publishTransitions = publishTransitions
        self.clientID = clientID ?? "geofence-\(MQTTSettings.hostName())"
        guard !self.clientID.isEmpty, self.clientID.utf8.count <= 65535 else {
            throw MQTTError("--mqtt-client-id: the client id must not be empty")
        }
    }

    /// Whether the URL itself carried the password (visible to `ps`): worth a warning.
    public var passwordInURL = false

    /// The URL without its password, for log lines.
    public var redactedURL: String {
        let user = username.map { "\($0)@" } ?? ""
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(usesTLS ? "mqtts" : "mqtt")://\(user)\(shownHost):\(port)"
    }

    /// The settings without the password.
    public var description: String {
        "\(redactedURL) topic \(topic)" + (publishTransitions ? " (publishing transitions)" : "")
    }

    private static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(
            decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "localhost" : name
    }
}
