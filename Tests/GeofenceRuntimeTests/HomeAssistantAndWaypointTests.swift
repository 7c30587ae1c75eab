import Foundation
import TestSupport
import GeofenceRules
import Testing

@testable import GeofenceRuntime

/// The retained state and discovery messages for Home Assistant, and the OwnTracks waypoints.
struct HomeAssistantAndWaypointTests {
    private func event(_ device: String, _ place: String, _ transition: String, inside: Bool, second: Int)
        throws -> PlaceEvent
    {
        let json = """
            {"id":"\(device)-\(place)-\(second)","device":"\(device)","place":"\(place)",
             "state":"\(inside ? "satisfied" : "unsatisfied")","transition":"\(transition)",
             "date":\(second),"confirmedAt":\(second),"accuracy":10}
            """
        return try JSONDecoder().decode(PlaceEvent.self, from: Data(json.utf8))
    }

    /// The first event of a device announces its tracker (retained discovery), then its state
    /// follows the place entered last, falling back to an enclosing place and then `not_home`.
    @Test func stateFollowsTheLastEnteredPlaceAndDiscoveryComesFirst() throws {
        var topics = HomeAssistantTopics()
        let first = topics.messages(for: [
            try event("jane/phone", "home", "determined", inside: true, second: 1)
        ])
        #expect(
            first.map(\.topic) == [
                "homeassistant/device_tracker/geofence_jane_phone/config", "geofence/jane/phone/state",
                "geofence/jane/phone/attributes",
            ])
        #expect(first.allSatisfy { $0.retain })
        let discovery = try #require(
            try JSONSerialization.jsonObject(with: Data(first[0].payload.utf8)) as? [String: Any])
        #expect(discovery["state_topic"] as? String == "geofence/jane/phone/state")
        #expect(discovery["unique_id"] as? String == "geofence_jane_phone")
        #expect(discovery["payload_not_home"] as? String == "not_home")
        #expect(first[1].payload == "home")

        let day = topics.messages(for: [
            try event("jane/phone", "home", "exit", inside: false, second: 2),
            try event("jane/phone", "campus", "enter", inside: true, second: 3),
            try event("jane/phone", "library", "enter", inside: true, second: 4),
            try event("jane/phone", "library", "exit", inside: false, second: 5),
            try event("jane/phone", "campus", "exit", inside: false, second: 6),
        ])
        let states = day.filter { $0.topic.hasSuffix("/state") }.map(\.payload)
        #expect(states == ["not_home", "campus", "library", "campus", "not_home"])
        #expect(!day.contains { $0.topic.hasSuffix("/config") })
    }

    /// Where `people:` declares a person, Home Assistant gets one tracker for them, moved as the
    /// rules move a person: the first device in brings them in, the first one out takes them out,
    /// and a device that agrees (the watch arriving after the phone, a tablet determined outside)
    /// publishes nothing. An undeclared device keeps its own tracker.
    @Test func aPersonWithAPhoneAndAWatchIsOneTracker() throws {
        let people = try rules("people:\n  jane: [jane/phone, jane/watch]").people
        var topics = HomeAssistantTopics()
        let start = topics.messages(
            for: [
                try event("jane/phone", "home", "determined", inside: true, second: 1),
                try event("jane/watch", "home", "determined", inside: false, second: 2),
                try event("bob/phone", "home", "determined", inside: true, second: 3),
            ], people: people)
        #expect(
            start.map(\.topic) == [
                "homeassistant/device_tracker/geofence_jane/config", "geofence/jane/state",
                "geofence/jane/attributes", "homeassistant/device_tracker/geofence_bob_phone/config",
                "geofence/bob/phone/state", "geofence/bob/phone/attributes",
            ])
        let discovery = try #require(
            try JSONSerialization.jsonObject(with: Data(start[0].payload.utf8)) as? [String: Any])
        #expect(discovery["name"] as? String == "jane")
        #expect(discovery["state_topic"] as? String == "geofence/jane/state")
        #expect(start[1].payload == "home")

        let day = topics.messages(
            for: [
                try event("jane/phone", "home", "exit", inside: false, second: 10),
                try event("jane/watch", "work", "enter", inside: true, second: 20),
                try event("jane/phone", "work", "enter", inside: true, second: 21),
                try event("jane/phone", "work", "exit", inside: false, second: 30),
                try event("jane/watch", "work", "exit", inside: false, second: 31),
                try event("jane/watch", "home", "enter", inside: true, second: 40),
                try event("jane/phone", "home", "enter", inside: true, second: 41),
            ], people: people)
        let states = day.filter { $0.topic == "geofence/jane/state" }.map(\.payload)
        #expect(states == ["not_home", "work", "not_home", "home"])
        let last = try #require(day.last { $0.topic == "geofence/jane/attributes" })
        let attributes = try #require(
            try JSONSerialization.jsonObject(with: Data(last.payload.utf8)) as? [String: Any])
        #expect(attributes["event_device"] as? String == "jane/watch")
        #expect(!day.contains { $0.topic.contains("jane/phone") || $0.topic.contains("jane/watch") })

        // A reload gave both devices new monitors: the watch, first found outside home while
        // the phone is still inside, changes nothing; the phone found outside too takes her out.
        let reload = topics.messages(
            for: [
                try event("jane/watch", "home", "determined", inside: false, second: 50),
                try event("jane/phone", "home", "determined", inside: false, second: 51),
            ], people: people)
        #expect(reload.filter { $0.topic == "geofence/jane/state" }.map(\.payload) == ["not_home"])
    }

    /// A reminder to the phone is the OwnTracks `cmd` the iOS app shows: `action` with the
    /// reminder as `notification` and what happened as the Featured Content.
    @Test func aReminderToThePhoneIsAnOwnTracksActionCommand() throws {
        let payload = OwnTracksNotification.command([
            .message: "Buy milk", .device: "jane/phone", .place: "work", .transition: "enter",
            .time: "2026-03-03T08:40:00Z",
        ])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
        #expect(object["_type"] as? String == "cmd")
        #expect(object["action"] as? String == "action")
        #expect(object["notification"] as? String == "Buy milk")
        #expect(object["content"] as? String == "Buy milk\n\njane/phone entered work at 2026-03-03T08:40:00Z")
        #expect(OwnTracksNotification.topic(device: "jane/phone") == "owntracks/jane/phone/cmd")
    }

    private func rules(_ yaml: String) throws -> RulesFile {
        switch RulesLoader.parse(yaml, file: "rules.yaml", baseDirectory: URL(fileURLWithPath: "/tmp")) {
        case .success(let rules): return rules
        case .failure(let error): throw error
        }
    }

    private func places(_ yaml: String) throws -> [Place] {
        switch RulesLoader.parse(yaml, file: "rules.yaml", baseDirectory: URL(fileURLWithPath: "/tmp")) {
        case .success(let rules): return rules.places
        case .failure(let error): throw error
        }
    }

    /// `setWaypoints` carries each place as a circle; a polygon becomes the circle around it;
    /// a place's `tst` stays the same when another place changes, and changes with its own shape.
    @Test func waypointsAreCirclesWithStableTimestamps() throws {
        let before = try places(
            """
            places:
              home: { center: [51.5007, -0.1246], radius: 150 }
              park: { wkt: "POLYGON((-0.13 51.50, -0.12 51.50, -0.12 51.51, -0.13 51.51, -0.13 51.50))" }
            rules: []
            """)
        let after = try places(
            """
            places:
              home: { center: [51.5007, -0.1246], radius: 150 }
              park: { wkt: "POLYGON((-0.13 51.50, -0.11 51.50, -0.12 51.51, -0.13 51.51, -0.13 51.50))" }
            rules: []
            """)
        let command = try #require(
            try JSONSerialization.jsonObject(with: Data(try OwnTracksWaypoints.command(before).utf8))
                as? [String: Any])
        #expect(command["_type"] as? String == "cmd" && command["action"] as? String == "setWaypoints")
        let list = try #require((command["waypoints"] as? [String: Any])?["waypoints"] as? [[String: Any]])
        #expect(list.map { $0["desc"] as? String } == ["home", "park"])
        #expect(list[0]["rad"] as? Int == 150 && list[0]["lat"] as? Double == 51.5007)
        let park = OwnTracksWaypoints.waypoint(for: before[1])
        #expect(park.approximated)
        // The circle reaches every corner: half the diagonal of the 0.01° by 0.01° box at 51.5° N
        // (693 m by 1112 m), 655 m.
        #expect((650...660).contains(park.waypoint.rad), "\(park.waypoint.rad)")
        #expect(OwnTracksWaypoints.wtst(for: before[0]) == OwnTracksWaypoints.wtst(for: after[0]))
        #expect(OwnTracksWaypoints.wtst(for: before[1]) != OwnTracksWaypoints.wtst(for: after[1]))
    }
}
