public import Foundation

/// Builds the documented `GEOFENCE_*` variables, and the matching standard-input JSON, for a hook.
///
/// Every value is data: it is passed to the hook as it is, never through a shell. The only change
/// is that a NUL character, which an environment string cannot hold (it ends the C string), is
/// replaced by U+FFFD REPLACEMENT CHARACTER, so the rest of the value is not silently cut off.
public enum HookEnvironment {
    /// One field of an event, with its environment variable name and its standard-input JSON key.
    public enum Field: String, CaseIterable, Sendable {
        /// The action's id, the same on every attempt: a hook uses it to ignore a repeat.
        case eventID = "GEOFENCE_EVENT_ID"
        /// The rule that fired.
        case rule = "GEOFENCE_RULE"
        /// The place concerned.
        case place = "GEOFENCE_PLACE"
        /// The transition: a `Transition`'s raw value (for example `enter`, `exit`, `dwell`,
        /// `visit-start`, `visit-end`, `commute`, `input-paused`).
        case transition = "GEOFENCE_TRANSITION"
        /// When it happened, ISO 8601.
        case time = "GEOFENCE_TIME"
        /// The latitude of the fix or visit, degrees.
        case latitude = "GEOFENCE_LATITUDE"
        /// The longitude of the fix or visit, degrees.
        case longitude = "GEOFENCE_LONGITUDE"
        /// The horizontal accuracy, metres.
        case accuracy = "GEOFENCE_ACCURACY"
        /// The device id.
        case device = "GEOFENCE_DEVICE"
        /// The rule's message.
        case message = "GEOFENCE_MESSAGE"
        /// A commute's departure, ISO 8601.
        case commuteStart = "GEOFENCE_COMMUTE_START"
        /// A commute's arrival, ISO 8601.
        case commuteEnd = "GEOFENCE_COMMUTE_END"
        /// A commute's duration, seconds.
        case commuteDuration = "GEOFENCE_COMMUTE_DURATION"

        /// The variable's name.
        public var variableName: String { rawValue }

        /// The key of the field in the standard-input JSON: the variable name without its
        /// `GEOFENCE_` prefix, in lower case (`event_id`, `commute_start`).
        public var jsonKey: String { String(rawValue.dropFirst("GEOFENCE_".count)).lowercased() }
    }

    /// The environment variables for `fields`; a field that is absent is not set at all.
    public static func variables(_ fields: [Field: String]) -> [String: String] {
        var variables: [String: String] = [:]
        for (field, value) in fields { variables[field.variableName] = environmentSafe(value) }
        return variables
    }

    /// The standard-input JSON for `fields`: one object with the fields' JSON keys, keys sorted.
    /// Unlike the environment, JSON can hold a NUL, so values are passed unchanged.
    public static func standardInput(_ fields: [Field: String]) -> Data {
        var object: [String: String] = [:]
        for (field, value) in fields { object[field.jsonKey] = value }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // A dictionary of strings always encodes; the fallback keeps this total.
        return (try? encoder.encode(object)) ?? Data("{}".utf8)
    }

    /// `value` with each NUL replaced by U+FFFD, so that it can be an environment string or argument.
    public static func environmentSafe(_ value: String) -> String {
        value.contains("\u{0}") ? value.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}") : value
    }
}
