import Foundation

/// A reminder as an OwnTracks `cmd` the phone shows to its user.
///
/// The OwnTracks booklet's JSON reference lists the `cmd` actions; the one that shows something is
/// `"action":"action"`, which the iOS app handles: its `content` fills the app's Featured Content
/// tab, and its `notification` string becomes a local notification. The Android app does not
/// handle `action` (it answers `reportLocation`, `setWaypoints`, `setConfiguration`,
/// `waypoints`), so for Android phones a `post:` channel (ntfy, Gotify) is the way. Either app
/// takes commands only with remote commands on (`cmd` in its configuration) and reads them on
/// `owntracks/USER/DEVICE/cmd`; sent at QoS 1, a command waits in the broker for a phone that is
/// away with a persistent session.
enum OwnTracksNotification {
    /// The topic the phone `device` (`USER/DEVICE`) reads commands on.
    static func topic(device: String) -> String { "owntracks/\(device)/cmd" }

    /// The command: the reminder as the notification, and with what happened (the title and
    /// time) as the Featured Content.
    static func command(_ fields: [HookEnvironment.Field: String]) -> [UInt8] {
        let message = WebhookMessage.message(fields)
        let happened = WebhookMessage.title(fields) + (fields[.time].map { " at \($0)" } ?? "")
        let content = message == happened ? message : message + "\n\n" + happened
        let object: [String: Any] = [
            "_type": "cmd", "action": "action", "notification": message, "content": content,
        ]
        let data = try? JSONSerialization.data(
            withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return Array(data ?? Data(#"{"_type":"cmd","action":"action"}"#.utf8))
    }
}
