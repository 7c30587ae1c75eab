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

/// What geofence tells Home Assistant through MQTT (with `--mqtt-publish`): per device, a retained
/// state topic holding the place it is in (or `not_home`), and a retained discovery message
/// that makes Home Assistant create a `device_tracker` for it
/// (https://www.home-assistant.io/integrations/device_tracker.mqtt/).
///
/// A device inside several places at once is reported in the one it entered last; after it
/// leaves that one, in the one it entered before, and so on.
struct HomeAssistantTopics: Sendable {
    /// The discovery prefix Home Assistant listens on.
    static let discoveryPrefix = "homeassistant"
    /// Where the state topics live: `geofence/USER/DEVICE/state`.
    static let base = "geofence"

    private var inside: [String: [String]] = [:]
    private var announced: Set<String> = []

    /// The topic holding `device`'s place.
    static func stateTopic(_ device: String) -> String { "\(base)/\(device)/state" }
    /// The topic holding `device`'s last event as JSON attributes.
    static func attributesTopic(_ device: String) -> String { "\(base)/\(device)/attributes" }

    /// `device` as a Home Assistant object id: letters, digits and `_` only.
    static func objectID(_ device: String) -> String {
        "geofence_" + String(device.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
    }

    /// The messages the place events of a committed batch give, in order: a device's discovery
    /// the first time it is seen in this run, then its state and attributes after each change.
    mutating func messages(for events: [PlaceEvent]) -> [OutgoingMessage] {
        var messages: [OutgoingMessage] = []
        for event in events {
            var places = inside[event.device] ?? []
            places.removeAll { $0 == event.place }
            if event.state == .satisfied { places.append(event.place) }
            let before = inside[event.device]?.last
            inside[event.device] = places
            if announced.insert(event.device).inserted {
                messages.append(HomeAssistantTopics.discovery(event.device))
            } else if before == places.last, event.transition != .determined {
                continue
            }
            messages.append(
                OutgoingMessage(
                    topic: HomeAssistantTopics.stateTopic(event.device), payload: places.last ?? "not_home",
                    retain: true))
            messages.append(
                OutgoingMessage(
                    topic: HomeAssistantTopics.attributesTopic(event.device), payload: attributes(event),
                    retain: true))
        }
        return messages
    }

    private func attributes(_ event: PlaceEvent) -> String {
        var object: [String: Any] = [
            "event": event.transition.rawValue, "event_place": event.place,
            "event_time": EngineJSON.timestamp(event.date),
            "inside": inside[event.device] ?? [],
        ]
        object["accuracy"] = event.accuracy
        let data = try? JSONSerialization.data(
            withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data ?? Data("{}".utf8), as: UTF8.self)
    }

    /// The retained discovery message that makes Home Assistant create the device's tracker.
    static func discovery(_ device: String) -> OutgoingMessage {
        let id = objectID(device)
        let object: [String: Any] = [
            "name": device, "unique_id": id, "object_id": id,
            "state_topic": stateTopic(device), "json_attributes_topic": attributesTopic(device),
            "payload_home": "home", "payload_not_home": "not_home", "source_type": "gps",
            "device": ["identifiers": [id], "name": device, "manufacturer": "geofence"],
        ]
        let data = try? JSONSerialization.data(
            withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return OutgoingMessage(
            topic: "\(discoveryPrefix)/device_tracker/\(id)/config",
            payload: String(decoding: data ?? Data("{}".utf8), as: UTF8.self), retain: true)
    }
}
