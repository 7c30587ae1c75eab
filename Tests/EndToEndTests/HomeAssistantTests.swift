import Foundation
import TestSupport
import Testing

@testable import GeofenceRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// Home Assistant's view over the private broker, and OwnTracks payloads encrypted by the app.
private enum PhoneDay {
    static let topic = "owntracks/jane/phone"
    static let rules = DayFixtures.arrivedHomeRules
}

extension EndToEnd {
    /// With `--mqtt-publish`, a client that subscribes after the day (as Home Assistant does when
    /// it starts) gets the retained discovery of a device_tracker for the device and its state:
    /// the place the device is in at the end of the day, as replay's events say.
    @Test func homeAssistantSeesADeviceTrackerAndItsPlace() throws {
        let scratch = try TemporaryDirectory("home-assistant")
        try scratch.write("rules.yaml", PhoneDay.rules)
        let day = try DayFixtures.day(in: scratch)
        var inside: [String] = []
        for event in try DayFixtures.replayed(day, device: "jane/phone", in: scratch)
        where event["type"] as? String == "event" {
            guard let place = event["place"] as? String, let state = event["state"] as? String else {
                continue
            }
            inside.removeAll { $0 == place }
            if state == "satisfied" { inside.append(place) }
        }
        let expectedState = inside.last ?? "not_home"
        let broker = try Broker(in: scratch)
        let run = try DayFixtures.runOverMQTT(
            broker: broker, client: "geofence-e2e-ha", in: scratch, extra: ["--mqtt-publish"])
        // In bursts of 300, each ended by a marker: a phone's backlog, not one burst of thousands
        // (mosquitto queues at most 1000 messages for a client that is busy publishing back).
        var read = 0
        for (index, start) in stride(from: 0, to: day.count, by: 300).enumerated() {
            let burst = try DayFixtures.ownTracksMessages(Array(day[start..<min(start + 300, day.count)]))
            try broker.publish(burst + ["end of burst"], topic: PhoneDay.topic, name: "burst\(index)")
            read += burst.count + 1
            try waitUntil("geofence to read message \(read)\n\(run.stderr)") {
                run.stderr.contains("mqtt:\(read):")
            }
        }

        let received = scratch.file("home-assistant.txt")
        let listener = try broker.subscribe("#", client: "home-assistant", to: received)
        defer { end(listener) }
        let discoveryTopic = "homeassistant/device_tracker/geofence_jane_phone/config"
        try waitUntil("the retained discovery and state\n\(TemporaryDirectory.read(received))") {
            let lines = TemporaryDirectory.lines(received)
            return lines.contains { $0.hasPrefix(discoveryTopic + " ") }
                && lines.contains { $0.hasPrefix("geofence/jane/phone/state ") }
        }
        try DayFixtures.stop(run)
        let lines = TemporaryDirectory.lines(received)
        let discoveryLine = try #require(lines.first { $0.hasPrefix(discoveryTopic + " ") })
        let discovery = try #require(
            try JSONSerialization.jsonObject(
                with: Data(discoveryLine.dropFirst(discoveryTopic.count + 1).utf8))
                as? [String: Any])
        #expect(discovery["state_topic"] as? String == "geofence/jane/phone/state")
        #expect(discovery["unique_id"] as? String == "geofence_jane_phone")
        #expect(discovery["source_type"] as? String == "gps")
        let state = lines.filter { $0.hasPrefix("geofence/jane/phone/state ") }.last
        #expect(state == "geofence/jane/phone/state \(expectedState)", "\(lines)")
    }

    /// Payloads the app encrypted are opened with the device's secret and give the events the
    /// plain day gives; a device without a key gets one warning, however many it sends.
    @Test func encryptedOwnTracksPayloadsAreOpenedWithTheDevicesKey() throws {
        let scratch = try TemporaryDirectory("encrypted")
        try scratch.write("rules.yaml", PhoneDay.rules)
        try scratch.write("keys", "# OwnTracks secrets\njane/phone=correct horse battery\n")
        let day = try DayFixtures.day(in: scratch)
        let expected = DayFixtures.eventIDs(try DayFixtures.replayed(day, device: "jane/phone", in: scratch))
        try #require(expected.count > 4)
        let broker = try Broker(in: scratch)
        let run = try DayFixtures.runOverMQTT(
            broker: broker, client: "geofence-e2e-encrypted", in: scratch,
            extra: ["--owntracks-keys", scratch.file("keys")])
        let sealed = try DayFixtures.ownTracksMessages(day).map {
            String(
                decoding: OwnTracksKeys.seal(Array($0.utf8), secret: "correct horse battery"), as: UTF8.self)
        }
        let stranger = String(
            decoding: OwnTracksKeys.seal(
                Array(#"{"_type":"location","lat":1,"lon":2,"tst":1}"#.utf8), secret: "x"),
            as: UTF8.self)
        try broker.publish([stranger, stranger], topic: "owntracks/bob/tablet", name: "bob")
        // In bursts, each ended by a marker (see the Home Assistant test).
        var read = 2
        for (index, start) in stride(from: 0, to: sealed.count, by: 300).enumerated() {
            let burst = Array(sealed[start..<min(start + 300, sealed.count)])
            try broker.publish(burst + ["end of burst"], topic: PhoneDay.topic, name: "burst\(index)")
            read += burst.count + 1
            try waitUntil("geofence to read message \(read)\n\(run.stderr)") {
                run.stderr.contains("mqtt:\(read):")
            }
        }
        try DayFixtures.stop(run)
        let store = try Store(directory: scratch.file("state"))
        defer { store.close() }
        #expect(try store.events().map(\.id) == expected)
        #expect(
            run.stderr.components(separatedBy: "from bob/tablet are encrypted").count - 1 == 1,
            "\(run.stderr)")
    }
}
