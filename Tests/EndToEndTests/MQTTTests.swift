import Foundation
import TestSupport
import GeofenceRuntime
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The synthetic day as an OwnTracks phone publishes it, and what replay says of it.
private enum MQTTDay {
    static let topic = "owntracks/jane/phone"
    static let device = "jane/phone"
    /// A message that is no JSON, published after the day: once geofence has logged it, every
    /// message before it has been processed (QoS 1 messages on one topic arrive in order).
    static let endMarker = "end of the day"

    static let rules = DayFixtures.arrivedHomeRules

    /// `geofence run rules.yaml --mqtt ... --history` against `broker`, subscribed once started.
    static func run(
        broker: Broker, client: String, in scratch: TemporaryDirectory, extra: [String] = [],
        name: String = "run"
    ) throws -> GeofenceProcess {
        try DayFixtures.runOverMQTT(
            broker: broker, client: client, in: scratch, extra: ["--fire-history"] + extra, name: name)
    }

    /// Waits until geofence has logged the `number`th message since its start as unreadable.
    static func waitForMarker(_ number: Int, of run: GeofenceProcess) throws {
        try waitUntil("geofence to read message \(number)\n\(run.stderr)") {
            run.stderr.contains("mqtt:\(number):")
        }
    }

    /// Stops geofence with SIGTERM and returns the ids of the events it stored.
    static func stopAndReadEvents(_ run: GeofenceProcess, in scratch: TemporaryDirectory) throws -> [String] {
        try DayFixtures.stop(run)
        return try DayFixtures.storedEventIDs(in: scratch)
    }
}

extension EndToEnd {
    /// The synthetic day published as OwnTracks location messages to a broker gives, through
    /// `run --mqtt --history`, exactly the events `replay` gives for the same fixes, for the
    /// device `USER/DEVICE` named by the topic.
    @Test func ownTracksMessagesFromABrokerGiveTheEventsReplayGives() throws {
        let scratch = try TemporaryDirectory("mqtt-day")
        try scratch.write("rules.yaml", MQTTDay.rules)
        let day = try DayFixtures.day(in: scratch)
        let expected = DayFixtures.eventIDs(
            try DayFixtures.replayed(day, device: MQTTDay.device, in: scratch))
        try #require(expected.count > 4)
        let broker = try Broker(in: scratch)
        let run = try MQTTDay.run(broker: broker, client: "geofence-e2e-day", in: scratch)
        try broker.publish(try DayFixtures.ownTracksMessages(day) + [MQTTDay.endMarker], topic: MQTTDay.topic)
        try MQTTDay.waitForMarker(day.count + 1, of: run)
        #expect(run.stdout.contains("jane/phone"), "stdout:\n\(run.stdout)")
        #expect(try MQTTDay.stopAndReadEvents(run, in: scratch) == expected)
    }

    /// With `--mqtt-publish`, every enter and exit (and no first determination) is published to
    /// `owntracks/USER/DEVICE/event` as an OwnTracks transition: event enter or leave, desc the
    /// place, tst the crossing, and the deciding position.
    @Test func enterAndExitArePublishedAsOwnTracksTransitions() throws {
        let scratch = try TemporaryDirectory("mqtt-publish")
        try scratch.write("rules.yaml", MQTTDay.rules)
        let day = try DayFixtures.day(in: scratch)
        let replayed = try DayFixtures.replayed(day, device: MQTTDay.device, in: scratch)
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let expected: [String] = replayed.compactMap { object in
            guard object["type"] as? String == "event", let place = object["place"] as? String,
                let date = (object["date"] as? String).flatMap(iso.date(from:))
            else { return nil }
            let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
            switch object["transition"] as? String {
            case "enter": return "enter \(place) \(seconds)"
            case "exit": return "leave \(place) \(seconds)"
            default: return nil
            }
        }
        try #require(expected.count >= 4)

        let broker = try Broker(in: scratch)
        let received = scratch.file("received.txt")
        let subscriber = try broker.subscribe("owntracks/+/+/event", client: "e2e-listener", to: received)
        defer { end(subscriber) }
        let run = try MQTTDay.run(
            broker: broker, client: "geofence-e2e-publish", in: scratch, extra: ["--mqtt-publish"])
        try broker.publish(try DayFixtures.ownTracksMessages(day) + [MQTTDay.endMarker], topic: MQTTDay.topic)
        try MQTTDay.waitForMarker(day.count + 1, of: run)
        try waitUntil("\(expected.count) transitions at the subscriber\n\(TemporaryDirectory.read(received))")
        {
            TemporaryDirectory.lines(received).count >= expected.count
        }
        _ = try MQTTDay.stopAndReadEvents(run, in: scratch)

        var seen: [String] = []
        for line in TemporaryDirectory.lines(received) {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            try #require(parts.count == 2, "\(line)")
            #expect(parts[0] == "owntracks/jane/phone/event")
            let message = try #require(
                try JSONSerialization.jsonObject(with: Data(parts[1].utf8)) as? [String: Any], "\(line)")
            #expect(message["_type"] as? String == "transition")
            #expect(message["t"] as? String == "c")
            #expect(message["lat"] is Double && message["lon"] is Double && message["acc"] is Int, "\(line)")
            #expect(message["wtst"] is Int, "\(line)")
            let event = message["event"] as? String ?? "?"
            let desc = message["desc"] as? String ?? "?"
            seen.append("\(event) \(desc) \(message["tst"] as? Int ?? -1)")
        }
        #expect(seen == expected)
    }

    /// A broker restarted in the middle of the day (without persistence, so the subscription is
    /// forgotten): geofence logs the disconnection, reconnects, subscribes again, and the rest of
    /// the day gives the events replay gives for the whole day.
    @Test func aBrokerRestartedMidRunIsReconnectedAndLaterMessagesProcessed() throws {
        let scratch = try TemporaryDirectory("mqtt-restart")
        try scratch.write("rules.yaml", MQTTDay.rules)
        let day = try DayFixtures.day(in: scratch)
        let expected = DayFixtures.eventIDs(
            try DayFixtures.replayed(day, device: MQTTDay.device, in: scratch))
        let messages = try DayFixtures.ownTracksMessages(day)
        let half = messages.count / 2
        let client = "geofence-e2e-restart"

        let broker = try Broker(in: scratch)
        let run = try MQTTDay.run(broker: broker, client: client, in: scratch)
        try broker.publish(
            Array(messages[..<half]) + [MQTTDay.endMarker], topic: MQTTDay.topic, name: "morning")
        try MQTTDay.waitForMarker(half + 1, of: run)

        try broker.stop()
        try waitUntil("geofence to notice the broker went away\n\(run.stderr)") {
            run.stderr.contains("disconnected from mqtt://127.0.0.1:\(broker.port)")
        }
        try broker.start()
        try broker.waitForSubscription(of: client)
        // The broker logs the subscription before geofence's callback logs the reconnection: poll.
        try waitUntil("geofence to log the reconnection\n\(run.stderr)") {
            run.stderr.contains("reconnected to mqtt://127.0.0.1:\(broker.port)")
        }
        try broker.publish(
            Array(messages[half...]) + [MQTTDay.endMarker], topic: MQTTDay.topic, name: "evening")
        try MQTTDay.waitForMarker(messages.count + 2, of: run)
        #expect(try MQTTDay.stopAndReadEvents(run, in: scratch) == expected)
    }

    /// A payload that is not OwnTracks JSON is logged with its topic and skipped; the messages
    /// after it are read as usual.
    @Test func aMalformedPayloadIsLoggedWithItsTopicAndSkipped() throws {
        let scratch = try TemporaryDirectory("mqtt-malformed")
        try scratch.write("rules.yaml", MQTTDay.rules)
        let broker = try Broker(in: scratch)
        let run = try MQTTDay.run(broker: broker, client: "geofence-e2e-malformed", in: scratch)
        let start: Int64 = 1_772_521_200
        let home = (0..<10).map { step in
            #"{"_type":"location","lat":51.5007,"lon":-0.1246,"tst":\#(start + Int64(step) * 30),"acc":10}"#
        }
        try broker.publish(
            [#"{"_type":"location","lat":51.5,"lon":"#], topic: "owntracks/bob/tablet", name: "broken")
        try broker.publish(home, topic: MQTTDay.topic, name: "home")
        try waitUntil("the fixes after the malformed message\n\(run.stdout)\n\(run.stderr)") {
            run.stdout.contains("jane/phone  inside home (first determination)")
        }
        #expect(run.stderr.contains("mqtt:1:"), "stderr:\n\(run.stderr)")
        #expect(run.stderr.contains("(message on owntracks/bob/tablet); skipped"), "stderr:\n\(run.stderr)")
        _ = try MQTTDay.stopAndReadEvents(run, in: scratch)
        #expect(!run.stdout.contains("bob/tablet"))
    }
}
