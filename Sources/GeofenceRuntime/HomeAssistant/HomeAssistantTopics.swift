import Foundation
import Geofence
import GeofenceRules

/// One MQTT message to publish.
struct OutgoingMessage: Sendable, Equatable {
    /// The topic.
    var topic: String
    /// The payload.
    var payload: String
    /// Whether the broker keeps it for later subscribers (Home Assistant reads state and
    /// discovery at its start from retained messages).
    var retain: Bool
}

/// What geofence tells Home Assistant through MQTT (with `--mqtt-publish`): per person, a retained
/// state topic holding the place they are in (or `not_home`), and a retained discovery message
/// that makes Home Assistant create a `device_tracker` for them
/// (https://www.home-assistant.io/integrations/device_tracker.mqtt/).
///
/// The unit is the person `people:` declares for a device (`geofence/jane/state`, tracker
/// `geofence_jane`), so that a phone and a watch give Home Assistant one tracker that moves as the
/// rules see the person: the first of their devices in a place brings them in, the first one out
/// takes them out, and a device first found outside a place takes them out of it only if none of
/// their other devices is inside. A device no `people:` entry names is its own unit under its name
/// (`geofence/jane/phone/state`).
///
/// Someone inside several places at once is reported in the one entered last; after they leave
/// that one, in the one entered before, and so on.
struct HomeAssistantTopics: Sendable {
    /// The discovery prefix Home Assistant listens on.
    static let discoveryPrefix = "homeassistant"
    /// Where the state topics live: `geofence/PERSON/state` or `geofence/USER/DEVICE/state`.
    static let base = "geofence"

    private var inside: [String: [String]] = [:]
    /// Device → the places its own events last said it is in.
    private var deviceInside: [String: Set<String>] = [:]
    private var announced: Set<String> = []

    /// The topic holding a tracker's place.
    static func stateTopic(_ tracker: String) -> String { "\(base)/\(tracker)/state" }
    /// The topic holding a tracker's last event as JSON attributes.
    static func attributesTopic(_ tracker: String) -> String { "\(base)/\(tracker)/attributes" }

    /// A tracker name as a Home Assistant object id: letters, digits and `_` only.
    static func objectID(_ tracker: String) -> String {
        "geofence_" + String(tracker.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
    }

    /// The messages the place events of a committed batch give, in order: a tracker's discovery
    /// the first time it is seen in this run, then its state and attributes after each change.
    mutating func messages(for events: [PlaceEvent], people: People = People()) -> [OutgoingMessage] {
        var messages: [OutgoingMessage] = []
        for event in events {
            let person = people.declaredPerson(ofDevice: event.device)
            let tracker = person ?? event.device
            var places = inside[tracker] ?? []
            let there = places.contains(event.place)
            if event.state == .satisfied {
                deviceInside[event.device, default: []].insert(event.place)
            } else {
                deviceInside[event.device]?.remove(event.place)
            }
            var moves = true
            if let person {
                // As the rules move a person (see `Pipeline`): a device that agrees changes
                // nothing, and one first found outside takes them out only if none of their
                // other devices is inside.
                let othersInside = people.devices(ofPerson: person).contains {
                    $0 != event.device && deviceInside[$0]?.contains(event.place) == true
                }
                switch (event.state == .satisfied, event.transition) {
                case (true, _) where there: moves = false
                case (false, .exit) where !there: moves = false
                case (false, .determined): moves = there && !othersInside
                default: break
                }
            }
            if moves {
                places.removeAll { $0 == event.place }
                if event.state == .satisfied { places.append(event.place) }
            }
            let before = inside[tracker]?.last
            inside[tracker] = places
            if announced.insert(tracker).inserted {
                messages.append(HomeAssistantTopics.discovery(tracker))
            } else if !moves || (before == places.last && event.transition != .determined) {
                continue
            }
            messages.append(
                OutgoingMessage(
                    topic: HomeAssistantTopics.stateTopic(tracker), payload: places.last ?? "not_home",
                    retain: true))
            messages.append(
                OutgoingMessage(
                    topic: HomeAssistantTopics.attributesTopic(tracker),
                    payload: attributes(event, tracker: tracker), retain: true))
        }
        return messages
    }

    private func attributes(_ event: PlaceEvent, tracker: String) -> String {
        var object: [String: Any] = [
            "event": event.transition.rawValue, "event_place": event.place,
            "event_time": EngineJSON.timestamp(event.date), "event_device": event.device,
            "inside": inside[tracker] ?? [],
        ]
        object["accuracy"] = event.accuracy
        let data = try? JSONSerialization.data(
            withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data ?? Data("{}".utf8), as: UTF8.self)
    }

    /// The retained discovery message that makes Home Assistant create a tracker.
    static func discovery(_ tracker: String) -> OutgoingMessage {
        let id = objectID(tracker)
        let object: [String: Any] = [
            "name": tracker, "unique_id": id, "object_id": id,
            "state_topic": stateTopic(tracker), "json_attributes_topic": attributesTopic(tracker),
            "payload_home": "home", "payload_not_home": "not_home", "source_type": "gps",
            "device": ["identifiers": [id], "name": tracker, "manufacturer": "geofence"],
        ]
        let data = try? JSONSerialization.data(
            withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return OutgoingMessage(
            topic: "\(discoveryPrefix)/device_tracker/\(id)/config",
            payload: String(decoding: data ?? Data("{}".utf8), as: UTF8.self), retain: true)
    }
}
