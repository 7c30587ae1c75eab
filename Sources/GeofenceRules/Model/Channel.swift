import Foundation

/// Where a `post:` action sends: an HTTP endpoint, and how.
public struct WebhookTarget: Sendable, Hashable, Codable {
    /// The URL (`http` or `https`).
    public var url: String
    /// Send the readable message alone as `text/plain` (ntfy) instead of the JSON object.
    public var text: Bool
    /// Extra headers (an `Authorization`, ntfy's `Priority`...).
    public var headers: [String: String]
    /// How long one attempt may take.
    public var timeoutSeconds: Double

    /// Makes a target.
    public init(url: String, text: Bool = false, headers: [String: String] = [:], timeoutSeconds: Double = 10)
    {
        self.url = url
        self.text = text
        self.headers = headers
        self.timeoutSeconds = timeoutSeconds
    }
}

/// A named destination for reminders (`channels:` in the rules file, `to:` in a rule).
public enum Channel: Sendable, Hashable, Codable {
    /// An HTTP POST, as a `post:` action.
    case post(WebhookTarget)
    /// A message on this MQTT topic through the `--mqtt` broker.
    case mqtt(topic: String)
    /// An OwnTracks `cmd` to a phone (`owntracks/USER/DEVICE/cmd`, through the `--mqtt` broker)
    /// that the iOS app shows as a notification and in its Featured Content tab: to `device`, or,
    /// when it is `nil`, to the device the event is about.
    case owntracks(device: String?)

    /// Whether it publishes through the `--mqtt` broker.
    public var needsBroker: Bool {
        switch self {
        case .post: false
        case .mqtt, .owntracks: true
        }
    }

    /// The channel as words, for `check`.
    public var summary: String {
        switch self {
        case .post(let target): "post to \(target.url)" + (target.text ? " as text" : "")
        case .mqtt(let topic): "publish to MQTT topic \(topic)"
        case .owntracks(let device):
            "send an OwnTracks notification to " + (device ?? "the device the event is about")
        }
    }
}
