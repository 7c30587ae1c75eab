import Foundation
import Geofence

/// Builds fixes from Home Assistant states: the history of a `device_tracker` or `person` entity
/// fed by the companion app, as the history API gives it
/// (`GET /api/history/period/START?filter_entity_id=device_tracker.phone`: an array of states per
/// entity, in an array) or as `/api/states/ENTITY` gives one.
///
/// A state is `{"entity_id", "state", "attributes", "last_changed", "last_updated"}`; the position
/// is in `attributes`: `latitude`, `longitude`, `gps_accuracy` (metres), and from the companion
/// app `altitude`, `vertical_accuracy`, `speed` and `course`. The time is `last_updated` (when the
/// attributes last changed; `last_changed` only moves with the zone name in `state`). The device
/// is the entity id. A state without a position (`unavailable`, a zone-only tracker) moves nothing.
/// Ask the history API without `minimal_response`: that leaves the attributes out of all but the
/// first state.
enum HomeAssistantState {
    /// Whether a record is shaped like a Home Assistant state.
    static func looksLikeOne(_ object: JSONObject) -> Bool {
        object.has("entity_id") && (object.has("last_updated") || object.has("last_changed"))
    }

    /// Builds the fix of one state.
    static func make(_ state: JSONObject, defaultDeviceId: String?) throws(RecordError) -> InputRecord {
        let entity = try state.string("entity_id")
        guard let attributes = try state.object("attributes"),
            attributes.has("latitude") || attributes.has("longitude")
        else {
            let value = (try? state.string("state")) ?? nil
            return .ignored(
                kind: "state", reason: "a Home Assistant state without a position (\(value ?? "no state"))")
        }
        guard let latitude = try attributes.finiteNumber("latitude", lenient: true) else {
            throw attributes.error(
                "latitude", "missing (a position needs latitude and longitude)", .missingField)
        }
        guard let longitude = try attributes.finiteNumber("longitude", lenient: true) else {
            throw attributes.error(
                "longitude", "missing (a position needs latitude and longitude)", .missingField)
        }
        let coordinate = try attributes.coordinate(
            latitude: latitude, "latitude", longitude: longitude, "longitude")
        guard let timeName = state.first("last_updated", "last_changed"),
            let timestamp = try state.time(timeName)
        else {
            throw state.error("last_updated", "missing (a state's time)", .missingField)
        }
        return .fix(
            Fix(
                timestamp: timestamp, coordinate: coordinate,
                horizontalAccuracy: Units.accuracy(
                    try attributes.finiteNumber("gps_accuracy", lenient: true)),
                altitude: try attributes.finiteNumber("altitude", lenient: true),
                verticalAccuracy: Units.accuracy(
                    try attributes.finiteNumber("vertical_accuracy", lenient: true)),
                speed: try attributes.finiteNumber("speed", lenient: true).flatMap { $0 >= 0 ? $0 : nil },
                course: try attributes.finiteNumber("course", lenient: true).flatMap { $0 >= 0 ? $0 : nil },
                deviceId: defaultDeviceId ?? entity))
    }
}
