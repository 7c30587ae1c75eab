import Foundation

/// What to tell a user whose broker connection does not work: what is wrong and what to do.
///
/// libmosquitto reports little by itself: a TLS handshake sent to a plain MQTT port never
/// completes and is silent until a timeout, a broker that cannot be reached is retried in the
/// background without a word, and a refused password says only "not authorised". This keeps the
/// connection's story (since when it is down, how often it was refused) and turns it into
/// warnings at growing intervals, each with the likely causes.
struct MQTTDiagnosis: Sendable {
    let settings: MQTTSettings
    /// When the input started, or the connection was last lost.
    private(set) var downSince: Date
    private(set) var connected = false
    private var everConnected = false
    /// How many "still not connected" warnings were given since the connection went down.
    private var warnings = 0
    private var refusals = 0

    /// Seconds after which a connection still down is reported again: 10 s, 1 min, 5 min,
    /// 15 min, then every hour.
    static let warnAfterSeconds: [Double] = [10, 60, 300, 900]

    init(settings: MQTTSettings, now: Date) {
        self.settings = settings
        downSince = now
    }

    mutating func didConnect() {
        connected = true
        everConnected = true
        warnings = 0
        refusals = 0
    }

    mutating func didDisconnect(now: Date) {
        if connected { downSince = now }
        connected = false
        warnings = 0
    }

    /// The message for a refused connection: the broker's reason, and for a refused password
    /// whether one was sent at all.
    mutating func refused(_ reason: String) -> String {
        refusals += 1
        let reason = reason.hasSuffix(".") ? String(reason.dropLast()) : reason
        var message = "\(settings.redactedURL) refused the connection: \(reason)"
        let lower = reason.lowercased()
        if lower.contains("user name or password") || lower.contains("not authori") {
            if settings.username == nil {
                message += "; no user name was given: write it in the URL (mqtt://USER@HOST)"
            } else if settings.password == nil {
                message +=
                    "; no password was sent: \(MQTTSettings.passwordVariable) is not set in geofence's "
                    + "environment (for a service: EnvironmentFile=, see Examples/systemd/geofence.env.example)"
            } else {
                message +=
                    "; check the password in \(MQTTSettings.passwordVariable) and the broker's ACL for "
                    + "user \(settings.username ?? "")"
            }
        }
        if lower.contains("identifier rejected") {
            message +=
                "; the broker rejects the client id \(settings.clientID): give another with --mqtt-client-id"
        }
        return message
            + (refusals > 1
                ? " (refused \(refusals) times; retrying with backoff)" : "; retrying with backoff")
    }

    /// A warning if the connection has been down long enough for the next one, else nil.
    mutating func check(now: Date) -> String? {
        guard !connected else { return nil }
        let down = now.timeIntervalSince(downSince)
        let due =
            warnings < Self.warnAfterSeconds.count
            ? Self.warnAfterSeconds[warnings]
            : (Self.warnAfterSeconds.last ?? 900) + Double(warnings - Self.warnAfterSeconds.count + 1) * 3600
        guard down >= due else { return nil }
        warnings += 1
        let duration = Self.duration(down)
        let what =
            everConnected
            ? "the connection to \(settings.redactedURL) has been down"
            : "not connected to \(settings.redactedURL)"
        var causes: [String] = []
        if refusals > 0 {
            causes.append("the broker refuses the connection (see the error above)")
        } else if settings.usesTLS {
            causes.append(
                "no answer over TLS: if \(settings.port) is a plain MQTT port (1883 usually is), use mqtt:// "
                    + "or the broker's TLS port (8883)")
            causes.append("the broker's certificate is not trusted by the system's CA store")
        } else {
            causes.append(
                "no MQTT answer: is the broker running (systemctl status mosquitto) and listening on "
                    + "\(settings.host):\(settings.port)?")
            if settings.port == 8883 { causes.append("8883 is usually a TLS port: use mqtts://") }
        }
        causes.append("a firewall between here and the broker")
        return "\(what) for \(duration): " + causes.joined(separator: "; ")
            + ". Retrying with backoff; messages sent meanwhile are queued by the broker for this client id "
            + "if the session was made before (QoS 1)"
    }

    private static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\(whole / 60) min" }
        return "\(whole / 3600) h \(whole % 3600 / 60) min"
    }
}
