import Foundation
import GeofenceRuntime
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension EndToEnd {
    /// Issue 12: MQTT problems say what is wrong and what to do: a refused password with
    /// GEOFENCE_MQTT_PASSWORD unset, `mqtts://` against a plain port, and a broker that cannot be
    /// reached, which is warned about again while it lasts (not once and then never).
    @Test func mqttProblemsSayWhatIsWrongAndWhatToDo() throws {
        let scratch = try TemporaryDirectory("mqtt-diagnosis")
        try scratch.write("rules.yaml", DayFixtures.hookRules(hook: "/bin/true"))
        // A broker that wants a password (user geo, password secret).
        let port = try Broker.freePort()
        let passwords = Process()
        passwords.executableURL = URL(fileURLWithPath: try mosquittoProgram("mosquitto_passwd"))
        passwords.arguments = ["-c", "-b", scratch.file("passwords"), "geo", "secret"]
        try passwords.run()
        passwords.waitUntilExit()
        try #require(passwords.terminationStatus == 0)
        try scratch.write(
            "broker.conf",
            """
            listener \(port) 127.0.0.1
            user \(Broker.userName())
            allow_anonymous false
            password_file \(scratch.file("passwords"))
            persistence false

            """)
        let broker = Process()
        broker.executableURL = URL(fileURLWithPath: try mosquittoProgram("mosquitto"))
        broker.arguments = ["-c", scratch.file("broker.conf")]
        broker.standardOutput = FileHandle.nullDevice
        broker.standardError = FileHandle.nullDevice
        try broker.run()
        defer { kill(broker.processIdentifier, SIGKILL) }

        let unreachable = try Broker.freePort()
        try #require(
            ProcessInfo.processInfo.environment["GEOFENCE_MQTT_PASSWORD"] == nil,
            "the runs inherit the test's environment, which must not hold a password")
        func start(_ url: String, _ name: String) throws -> GeofenceProcess {
            try GeofenceProcess(
                [
                    "run", "rules.yaml", "--mqtt", url, "--mqtt-client-id", "e2e-\(name)", "--state",
                    scratch.file(name),
                ],
                in: scratch.path, name: name)
        }
        let noPassword = try start("mqtt://geo@127.0.0.1:\(port)", "no-password")
        let tlsOnPlainPort = try start("mqtts://geo@127.0.0.1:\(port)", "tls")
        let nobodyThere = try start("mqtt://127.0.0.1:\(unreachable)", "unreachable")
        defer { for run in [noPassword, tlsOnPlainPort, nobodyThere] { run.send(SIGKILL) } }

        try waitUntil("the refusal explained") { noPassword.stderr.contains("no password was sent") }
        #expect(noPassword.stderr.contains("GEOFENCE_MQTT_PASSWORD is not set"))
        try waitUntil("the TLS hint") { tlsOnPlainPort.stderr.contains("is a plain MQTT port") }
        #expect(tlsOnPlainPort.stderr.contains("use mqtt:// or the broker's TLS port (8883)"))
        try waitUntil("the unreachable broker warned about again", seconds: 120) {
            nobodyThere.stderr.components(separatedBy: "is the broker running").count - 1 >= 2
        }
        #expect(nobodyThere.stderr.contains("for 10 s:"))
        #expect(nobodyThere.stderr.contains("for 1 min:"))
    }
}

extension EndToEnd {
    /// Issue 12: while geofence is down, the broker queues the phone's messages for its session.
    /// When it comes back they are history: judged with their own dates (not dropped as expired),
    /// their events stored with the true times, and each action fires only if its evidence is
    /// within its rule's `max_delay:` (none for a log line that wants them all).
    @Test func messagesQueuedDuringAnOutageAreHistoryJudgedByMaxDelay() throws {
        let scratch = try TemporaryDirectory("mqtt-outage")
        let broker = try Broker(in: scratch)
        try scratch.write("hook.sh", "#!/bin/sh\necho \"$GEOFENCE_RULE\" >> fired.txt\n", executable: true)
        try scratch.write(
            "rules.yaml",
            "timezone: Europe/London\n" + DayFixtures.places + """

                rules:
                  - { name: home reminder, on: enter home, run: [./hook.sh], max_delay: 10m }
                  - { name: home log, on: enter home, run: [./hook.sh], max_delay: none }
                  - { name: work arrival, on: enter work, run: [./hook.sh], max_delay: 10m }
                  - { name: left home, on: exit home, run: [./hook.sh], max_delay: 1m }

                """)
        func start(_ name: String, subscriptions: Int) throws -> GeofenceProcess {
            let run = try GeofenceProcess(
                [
                    "run", "rules.yaml", "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--mqtt-client-id",
                    "outage",
                    "--state", scratch.file("state"),
                ], in: scratch.path, name: name)
            try broker.waitForSubscription(of: "outage", count: subscriptions)
            return run
        }
        // The session is made, then geofence goes down.
        let first = try start("first", subscriptions: 1)
        first.send(SIGTERM)
        #expect(try first.waitForExit().status == 0)

        // Meanwhile the phone publishes: somewhere else 32 to 27 minutes ago, at home from 26 to
        // 15 minutes ago, at work for the last 5 minutes; a fix every 30 s.
        let now = Date().timeIntervalSince1970
        func message(_ latitude: Double, _ longitude: Double, minutesAgo: Double) -> String {
            #"{"_type":"location","lat":\#(latitude),"lon":\#(longitude),"tst":\#(Int64(now - minutesAgo * 60)),"acc":10}"#
        }
        var messages: [String] = []
        for step in stride(from: 32.0, through: 27, by: -0.5) {
            messages.append(message(51.5100, -0.1000, minutesAgo: step))
        }
        for step in stride(from: 26.0, through: 15, by: -0.5) {
            messages.append(message(51.5007, -0.1246, minutesAgo: step))
        }
        for step in stride(from: 5.0, through: 0.5, by: -0.5) {
            messages.append(message(51.500678, -0.052595, minutesAgo: step))
        }
        try broker.publish(messages, topic: "owntracks/jane/phone")

        let second = try start("second", subscriptions: 2)
        try waitUntil("the queued arrival at work to fire") {
            TemporaryDirectory.lines(scratch.file("fired.txt")).contains("work arrival")
        }
        second.send(SIGTERM)
        #expect(try second.waitForExit().status == 0, "\(second.stderr)")
        #expect(!second.stderr.contains(": expired"), "queued messages are not dropped as expired")
        // Fired: the log line that wants every arrival, and the arrival at work 4-5 minutes ago.
        // Skipped: the reminder for an arrival 26 minutes ago (max_delay 10m), and leaving home,
        // known from the first fixes at work 5 to 4 minutes ago (max_delay 1m).
        #expect(TemporaryDirectory.lines(scratch.file("fired.txt")).sorted() == ["home log", "work arrival"])
        let store = try Store(directory: scratch.file("state"))
        defer { store.close() }
        let events = try store.events()
        let arrival = try #require(events.first { $0.kind == "enter" && $0.place == "home" })
        #expect(
            abs(arrival.date.timeIntervalSince1970 - (now - 26 * 60)) < 60, "the arrival keeps its true date")
        let work = try #require(events.first { $0.kind == "enter" && $0.place == "work" })
        #expect(abs(work.date.timeIntervalSince1970 - (now - 5 * 60)) < 60)
        let listing = try GeofenceProcess.run(
            ["actions", "--state", scratch.file("state")], in: scratch.path, name: "actions")
        let statuses = Dictionary(
            uniqueKeysWithValues: listing.stdout.split(separator: "\n").compactMap {
                line -> (String, String)? in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    let action = object["action"] as? [String: Any], let rule = action["rule"] as? String,
                    let status = object["status"] as? String
                else { return nil }
                return (rule, status)
            })
        #expect(
            statuses == [
                "home reminder": "skipped", "home log": "done", "work arrival": "done",
                "left home": "skipped",
            ])
    }
}
