import Foundation
import Geofence

/// Builds records from OwnTracks JSON messages (https://owntracks.org/booklet/tech/json/).
enum OwnTracksRecord {
    /// Reads a message. `fallbackTime` stands in for a missing `tst` (a Recorder line's own time).
    static func make(_ fields: JSONFields, fallbackTime: Date? = nil) throws(RecordError) -> InputRecord {
        if fields.stringEquals(.ownTracksType, "location") {
            return .fix(try location(fields, fallbackTime: fallbackTime))
        }
        guard let type = try fields.string(.ownTracksType) else {
            throw fields.missing(.ownTracksType, "every OwnTracks message names its type")
        }
        switch type {
        case "transition":
            return .transition(try transition(fields, fallbackTime: fallbackTime))
        case "waypoint", "waypoints":
            return .ignored(kind: type, reason: "a region definition, not a position")
        case "lwt":
            return .ignored(kind: type, reason: "last will: the device lost its connection to the broker")
        case "card":
            return .ignored(kind: type, reason: "a user card (name and picture), not a position")
        case "encrypted":
            return .ignored(
                kind: type, reason: "an encrypted payload; reading it needs the device's secret key")
        case "cmd", "configuration", "dump", "request", "status", "steps", "beacon", "setWaypoints",
            "install",
            "response":
            return .ignored(kind: type, reason: "not a position")
        default:
            return .ignored(kind: type, reason: "an OwnTracks message type this reader does not know")
        }
    }

    private static func location(_ fields: JSONFields, fallbackTime: Date?) throws(RecordError) -> Fix {
        let coordinate = try fields.coordinate(
            .lat, .lon, lenient: true, what: "a location needs lat and lon")
        guard let timestamp = try fields.unixSeconds(.tst) ?? fallbackTime else {
            throw fields.missing(.tst, "a location needs its time in Unix seconds")
        }
        let label = try fields.string(.tid)
        // OwnTracks sends vel in km/h; Fix.speed is metres per second.
        let speed = try fields.finiteNumber(.vel, lenient: true).map { $0 / 3.6 }
        return Fix(
            timestamp: timestamp,
            coordinate: coordinate,
            horizontalAccuracy: Units.accuracy(try fields.finiteNumber(.acc, lenient: true)),
            altitude: try fields.finiteNumber(.alt, lenient: true),
            verticalAccuracy: Units.accuracy(try fields.finiteNumber(.vac, lenient: true)),
            speed: speed,
            course: try fields.finiteNumber(.cog, lenient: true),
            deviceId: try device(fields, label: label),
            label: label,
            // A malformed signal is only a lost hint; the position is still good.
            silentWithinMeters: silentWithinMeters(
                mode: (try? fields.finiteNumber(.monitoringMode, lenient: true)) ?? nil),
            trigger: trigger((try? fields.string(.trigger)) ?? nil),
            regions: (try? fields.strings(.inregions)) ?? nil)
    }

    /// What OwnTracks' monitoring mode `m` (sent by iOS) promises about its silence: in move mode
    /// (2) a fix after every 100 m moved (the default `locatorDisplacement`), in significant-changes
    /// mode (1) after about 500 m (Apple's significant change); quiet (-1) and manual (0) promise
    /// nothing.
    static func silentWithinMeters(mode: Double?) -> Double? {
        switch mode {
        case 2.0: 100
        case 1.0: 500
        default: nil
        }
    }

    /// OwnTracks' `t`: `v` an iOS visit (a stay), `c`/`b` a region or beacon, `t`/`p` a timer or
    /// ping, `u`/`r` a manual or requested report; anything else says nothing.
    static func trigger(_ text: String?) -> Fix.Trigger? {
        switch text {
        case "v": .stay
        case "c", "b": .region
        case "t", "p": .timer
        case "u", "r": .request
        default: nil
        }
    }

    private static func transition(_ fields: JSONFields, fallbackTime: Date?) throws(RecordError)
        -> OwnTracksTransition
    {
        guard let timestamp = try fields.unixSeconds(.tst) ?? fallbackTime else {
            throw fields.missing(.tst, "a transition needs its time in Unix seconds")
        }
        guard let event = try fields.string(.event) else {
            throw fields.missing(.event, "a transition says \"enter\" or \"leave\"")
        }
        var coordinate: Coordinate?
        if fields.has(.lat) || fields.has(.lon) {
            coordinate = try fields.coordinate(
                .lat, .lon, lenient: true, what: "a position needs both lat and lon")
        }
        let label = try fields.string(.tid)
        return OwnTracksTransition(
            timestamp: timestamp,
            event: event,
            regionName: try fields.string(.desc),
            // `wtst` is the region's key (its creation time), not a time the engine judges by: one
            // outside the plausible range loses the key, not the phone's decision.
            regionTimestamp: (try? fields.unixSeconds(.wtst)) ?? nil,
            coordinate: coordinate,
            horizontalAccuracy: Units.accuracy(try fields.finiteNumber(.acc, lenient: true)),
            trigger: try fields.string(.trigger),
            deviceId: try device(fields, label: label),
            label: label)
    }

    /// The topic names the device best; then the caller's default (a Recorder file's
    /// USER/DEVICE); the two-letter tid only as a last resort.
    private static func device(_ fields: JSONFields, label: String?) throws(RecordError) -> String? {
        if let topic = try fields.string(.topic) { return Units.deviceId(fromTopic: topic) }
        return fields.context.defaultDeviceId ?? label
    }
}
