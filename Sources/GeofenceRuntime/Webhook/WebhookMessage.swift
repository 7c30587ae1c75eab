import Foundation

/// The body of a `post:` action, made from the same fields a hook gets.
///
/// JSON (the default): one object with the hook's standard-input keys (`event_id`, `rule`,
/// `transition`, `place`, `device`, `time`, `latitude`, `longitude`, `accuracy`, `message`,
/// commute fields) plus `title` and `message` lines a person reads, which is what Gotify's
/// `/message` reads and what a Home Assistant webhook trigger gets as `trigger.json`.
/// Text: the `message` line alone as `text/plain`, with the title in a `Title` header, which is
/// what ntfy shows as a notification.
enum WebhookMessage {
    /// The readable title: "jane/phone entered home".
    static func title(_ fields: [HookEnvironment.Field: String]) -> String {
        let device = fields[.device] ?? "someone"
        let place = fields[.place].map { " \($0)" } ?? ""
        switch fields[.transition] ?? "" {
        case "enter": return "\(device) entered\(place)"
        case "exit": return "\(device) left\(place)"
        case "dwell": return "\(device) is staying at\(place)"
        case let other: return "\(device): \(other)\(place)"
        }
    }

    /// The readable message: the rule's message (a reminder's text) or the title with the time.
    static func message(_ fields: [HookEnvironment.Field: String]) -> String {
        if let message = fields[.message], !message.isEmpty { return message }
        return title(fields) + (fields[.time].map { " at \($0)" } ?? "")
    }

    /// The request for `fields` as `format` asks.
    static func request(
        url: String, text: Bool, headers: [String: String], timeoutSeconds: Double,
        fields: [HookEnvironment.Field: String]
    ) -> WebhookClient.Request {
        var all = headers
        // The same on every attempt: a receiver that keeps keys ignores a repeat.
        all["Idempotency-Key"] = fields[.eventID] ?? ""
        let body: [UInt8]
        if text {
            all["Content-Type"] = all["Content-Type"] ?? "text/plain; charset=utf-8"
            all["Title"] = all["Title"] ?? headerSafe(title(fields))
            body = Array(message(fields).utf8)
        } else {
            all["Content-Type"] = all["Content-Type"] ?? "application/json"
            body = json(fields)
        }
        return WebhookClient.Request(url: url, body: body, headers: all, timeoutSeconds: timeoutSeconds)
    }

    /// The JSON body: the hook's keys, then `title` and `message`.
    static func json(_ fields: [HookEnvironment.Field: String]) -> [UInt8] {
        var object: [String: Any] = [:]
        for (field, value) in fields { object[field.jsonKey] = value }
        for field in [HookEnvironment.Field.latitude, .longitude, .accuracy, .commuteDuration] {
            if let text = fields[field], let number = Double(text) { object[field.jsonKey] = number }
        }
        object["title"] = title(fields)
        object["message"] = message(fields)
        let data = try? JSONSerialization.data(
            withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return Array(data ?? Data("{}".utf8))
    }

    /// A header value cannot hold a line break.
    private static func headerSafe(_ text: String) -> String {
        String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}
