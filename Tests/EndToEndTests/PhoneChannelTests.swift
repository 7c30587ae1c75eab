import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Jane carries a phone and a watch, both OwnTracks devices; both report from home and then from
/// work. Everything goes through the private broker: the fixes in, and out the waypoints to each
/// device, the reminders (an OwnTracks `cmd` to the phone, a message on an MQTT topic) and Home
/// Assistant's tracker.
private enum JanesDevices {
    static let rules =
        "timezone: Europe/London\n" + DayFixtures.places + """

            people:
              jane: [jane/phone, jane/watch]
            channels:
              phone: { owntracks: device }
              board: { mqtt: family/reminders }
            rules:
              - { name: milk, on: enter work, remind: Buy milk, to: phone }
              - { name: bread, on: enter work, remind: Bread too, to: board }

            """

    /// Six fixes a minute apart at `place` (home or work of the synthetic day), from `start`.
    static func fixes(at place: String, start: Int) -> [String] {
        let (latitude, longitude) = place == "home" ? (51.5007, -0.1246) : (51.500678, -0.052595)
        return (0..<6).map {
            #"{"_type":"location","lat":\#(latitude),"lon":\#(longitude),"tst":\#(start + $0 * 60),"acc":10}"#
        }
    }
}

/// `mosquitto_sub` as Jane's phone: a persistent session (`-c`) under the client id the app
/// would use, subscribed to its command topic; `arguments` say when it ends.
private func phoneSession(_ broker: Broker, _ arguments: [String], output: String) throws -> Int32 {
    guard FileManager.default.createFile(atPath: output, contents: nil),
        let handle = FileHandle(forWritingAtPath: output)
    else { throw HarnessError("cannot create \(output)") }
    defer { try? handle.close() }
    let child = Process()
    child.executableURL = URL(fileURLWithPath: try mosquittoProgram("mosquitto_sub"))
    child.arguments =
        [
            "-h", "127.0.0.1", "-p", String(broker.port), "-q", "1", "-c", "-i", "jane-phone", "-v", "-t",
            "owntracks/jane/phone/cmd",
        ] + arguments
    child.standardInput = FileHandle.nullDevice
    child.standardOutput = handle
    child.standardError = handle
    try child.run()
    defer { if child.isRunning { kill(child.processIdentifier, SIGKILL) } }
    try waitUntil("mosquitto_sub as the phone to end", seconds: 60) { !child.isRunning }
    child.waitUntilExit()
    return child.terminationStatus
}

extension EndToEnd {
    /// Subscribing as the phone (a persistent session on `owntracks/jane/phone/cmd`, away while
    /// geofence sends, back afterwards), as a family dashboard
    /// (`family/reminders`) and as Home Assistant (`homeassistant/#`, `geofence/#`): each device
    /// gets the places as `setWaypoints` (`--mqtt-waypoints`); Jane, arriving at work with both
    /// devices, gets one notification on the device that arrived first and one message on the
    /// board; Home Assistant has one tracker for her, at work.
    @Test func remindersReachThePhoneAndTheBoardOncePerPersonAndHomeAssistantTracksThePerson() throws {
        let scratch = try TemporaryDirectory("phone-channel")
        try scratch.write("rules.yaml", JanesDevices.rules)
        let broker = try Broker(in: scratch)
        let received = scratch.file("received.txt")
        let listener = try broker.subscribe("#", client: "phone-and-home-assistant", to: received)
        defer { end(listener) }
        // The phone subscribes once and goes away: what is sent to it waits in its session.
        #expect(try phoneSession(broker, ["-E"], output: scratch.file("phone-subscribed.txt")) == 0)
        let client = "geofence-e2e-phone"
        let run = try GeofenceProcess(
            [
                "run", "rules.yaml", "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--mqtt-client-id", client,
                "--mqtt-publish", "--mqtt-waypoints", "--history", "--fire-history", "--state",
                scratch.file("state"),
            ], in: scratch.path, name: "run")
        try broker.waitForSubscription(of: client)
        // An hour ago at home, now at work; the watch 20 s behind the phone.
        let now = Int(Date().timeIntervalSince1970)
        let home = now - 3600, work = now - 600
        try broker.publish(
            JanesDevices.fixes(at: "home", start: home), topic: "owntracks/jane/phone", name: "phone-home")
        try broker.publish(
            JanesDevices.fixes(at: "home", start: home + 20), topic: "owntracks/jane/watch",
            name: "watch-home")
        try broker.publish(
            JanesDevices.fixes(at: "work", start: work), topic: "owntracks/jane/phone", name: "phone-work")
        try broker.publish(
            JanesDevices.fixes(at: "work", start: work + 20) + ["end of the fixes"],
            topic: "owntracks/jane/watch",
            name: "watch-work")
        try waitUntil("geofence to read every message\n\(run.stderr)") { run.stderr.contains("mqtt:25:") }
        try waitUntil("the reminders and Home Assistant's state\n\(TemporaryDirectory.read(received))") {
            let lines = TemporaryDirectory.lines(received)
            return lines.contains { $0.hasPrefix("owntracks/jane/phone/cmd ") && $0.contains("notification") }
                && lines.contains { $0.hasPrefix("family/reminders ") }
                && lines.contains { $0 == "geofence/jane/state work" }
        }
        run.send(SIGTERM)
        let ended = try run.waitForExit()
        #expect(!ended.signaled && ended.status == 0, "stderr:\n\(run.stderr)")
        let lines = TemporaryDirectory.lines(received)

        func objects(_ topic: String) throws -> [[String: Any]] {
            try lines.filter { $0.hasPrefix(topic + " ") }.map {
                try #require(
                    try JSONSerialization.jsonObject(with: Data($0.dropFirst(topic.count + 1).utf8))
                        as? [String: Any])
            }
        }
        // --mqtt-waypoints: the places, once to each device.
        for device in ["jane/phone", "jane/watch"] {
            let waypoints = try objects("owntracks/\(device)/cmd").filter {
                $0["action"] as? String == "setWaypoints"
            }
            #expect(waypoints.count == 1, "\(device): \(lines)")
            let list = (waypoints.first?["waypoints"] as? [String: Any])?["waypoints"] as? [[String: Any]]
            #expect(
                Set(list?.compactMap { $0["desc"] as? String } ?? []) == ["home", "work", "lunch", "gym"])
        }
        // The reminder to the phone: one `action` command, to the phone that arrived first.
        let notifications = try (objects("owntracks/jane/phone/cmd") + objects("owntracks/jane/watch/cmd"))
            .filter { $0["action"] as? String == "action" }
        #expect(notifications.count == 1, "\(lines)")
        #expect(notifications.first?["notification"] as? String == "Buy milk")
        #expect((notifications.first?["content"] as? String)?.contains("jane/phone entered work") == true)
        // The phone, back online with its session, gets what waited for it: the waypoints,
        // then the reminder.
        let phone = scratch.file("phone.txt")
        #expect(
            try phoneSession(broker, ["-C", "2", "-W", "30"], output: phone) == 0,
            "\(TemporaryDirectory.read(phone))")
        let queued = TemporaryDirectory.lines(phone)
        #expect(queued.count == 2, "\(queued)")
        #expect(queued.first?.contains(#""action":"setWaypoints""#) == true, "\(queued)")
        #expect(queued.last?.contains(#""notification":"Buy milk""#) == true, "\(queued)")
        // The board's channel: the reminder as JSON, once.
        let board = try objects("family/reminders")
        #expect(board.count == 1, "\(lines)")
        #expect(board.first?["message"] as? String == "Bread too")
        #expect(board.first?["device"] as? String == "jane/phone")
        // Home Assistant: one tracker for Jane, none for her devices.
        #expect(lines.contains { $0.hasPrefix("homeassistant/device_tracker/geofence_jane/config ") })
        #expect(!lines.contains { $0.hasPrefix("homeassistant/device_tracker/geofence_jane_") })
        // Announced at her first determination (outside work), then home, on the way, at work.
        #expect(
            lines.filter { $0.hasPrefix("geofence/jane/state ") }.map {
                $0.dropFirst("geofence/jane/state ".count)
            }
                == ["not_home", "home", "not_home", "work"])
    }
}

extension EndToEnd {
    /// A run without `--mqtt` whose rules send reminders through MQTT says so at start, and each
    /// such reminder is printed and ends failed with the reason.
    @Test func remindersThroughMQTTWithoutABrokerAreAnnouncedAndFail() throws {
        let scratch = try TemporaryDirectory("phone-channel-no-broker")
        try scratch.write("rules.yaml", JanesDevices.rules)
        let start = Int(Date().timeIntervalSince1970) - 3600
        let lines =
            (JanesDevices.fixes(at: "home", start: start)
            + JanesDevices.fixes(at: "work", start: start + 1800))
            .map { "owntracks/jane/phone " + $0 }  // as `mosquitto_sub -v` prints them
        try scratch.write("fixes.txt", lines.joined(separator: "\n") + "\n")
        let run = try GeofenceProcess.run(
            [
                "run", "rules.yaml", "--input", "fixes.txt", "--history", "--fire-history", "--state",
                scratch.file("state"),
            ],
            in: scratch.path, name: "run")
        #expect(run.status == 0, "stderr:\n\(run.stderr)")
        for channel in ["board", "phone"] {
            #expect(
                run.stderr.contains("channel \(channel) publishes through MQTT, but there is no --mqtt"),
                "\(run.stderr)")
        }
        #expect(run.stdout.contains("REMINDER: Buy milk"), "\(run.stdout)")
        #expect(run.stderr.contains("no MQTT broker (--mqtt) to publish to"), "\(run.stderr)")
        #expect(run.stderr.contains("2 actions: 0 succeeded, 2 failed"), "\(run.stderr)")
    }
}
