import Foundation
import Geofence
public import GeofenceRules

/// The places of a rules file as OwnTracks waypoints (regions the phone monitors itself), sent
/// as a `setWaypoints` command (https://owntracks.org/booklet/tech/json/#_typecmd).
///
/// OwnTracks regions are circles: a polygon is sent as the circle around it (centred on the mean
/// of its outer vertices, reaching the farthest vertex), which contains the polygon but is larger.
enum OwnTracksWaypoints {
    /// One region.
    struct Waypoint: Encodable, Equatable {
        var type = "waypoint"
        /// The place's name.
        var desc: String
        var lat: Double
        var lon: Double
        /// The radius, whole metres.
        var rad: Int
        /// The region's identity for the app: stable while the place is unchanged (``wtst(for:)``).
        var tst: Int64

        enum CodingKeys: String, CodingKey {
            case type = "_type"
            case desc, lat, lon, rad, tst
        }
    }

    /// The waypoint for `place`, and whether it is a circle drawn around a polygon.
    static func waypoint(for place: Place) -> (waypoint: Waypoint, approximated: Bool) {
        switch place.condition {
        case .circle(let circle):
            return (
                Waypoint(
                    desc: place.name, lat: sixDecimals(circle.center.latitude),
                    lon: sixDecimals(circle.center.longitude), rad: Int(circle.radiusMeters.rounded(.up)),
                    tst: wtst(for: place)), false
            )
        case .polygon(let polygon):
            // The outer rings, each without the closing vertex that repeats its first.
            let vertices = polygon.polygons.compactMap(\.first).flatMap { ring in
                ring.count > 1 && ring.first == ring.last ? Array(ring.dropLast()) : ring
            }
            let count = Double(max(1, vertices.count))
            let latitude = vertices.reduce(0) { $0 + $1.latitude } / count
            let longitude = vertices.reduce(0) { $0 + $1.longitude } / count
            var radius = 0.0
            if let center = try? Coordinate(latitude: latitude, longitude: longitude) {
                radius = vertices.reduce(0) { max($0, center.distance(to: $1)) }
            }
            return (
                Waypoint(
                    desc: place.name, lat: sixDecimals(latitude), lon: sixDecimals(longitude),
                    rad: Int(radius.rounded(.up)), tst: wtst(for: place)), true
            )
        }
    }

    /// A creation time for the place's region that stays the same while its name and shape do,
    /// so that the phone keeps (rather than duplicates) a region across edits of other places:
    /// a hash of the name and shape, spread over 2001 to 2023.
    static func wtst(for place: Place) -> Int64 {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let shape =
            (try? encoder.encode(place.condition)).map { Array($0) } ?? Array("\(place.condition)".utf8)
        // FNV-1a, 64 bits: stable across runs and machines, unlike Hasher.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in Array(place.name.utf8) + [0] + shape {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return 1_000_000_000 + Int64(hash % 700_000_000)
    }

    /// The `cmd` message that replaces the phone's regions with `places`, as one JSON line.
    static func command(_ places: [Place]) throws -> String {
        struct List: Encodable {
            var type = "waypoints"
            var waypoints: [Waypoint]
            enum CodingKeys: String, CodingKey {
                case type = "_type"
                case waypoints
            }
        }
        struct Command: Encodable {
            var type = "cmd"
            var action = "setWaypoints"
            var waypoints: List
            enum CodingKeys: String, CodingKey {
                case type = "_type"
                case action, waypoints
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let command = Command(waypoints: List(waypoints: places.map { waypoint(for: $0).waypoint }))
        return String(decoding: try encoder.encode(command), as: UTF8.self)
    }

    private static func sixDecimals(_ degrees: Double) -> Double { (degrees * 1e6).rounded() / 1e6 }
}

/// The `setWaypoints` command for a rules file's places, for the command line.
public struct OwnTracksWaypointCommand: Sendable {
    /// The command, one JSON line.
    public let json: String
    /// The places sent as the circle around their polygon.
    public let approximated: [String]

    /// Makes the command for `places`.
    public init(places: [Place]) throws {
        json = try OwnTracksWaypoints.command(places)
        approximated = places.filter { OwnTracksWaypoints.waypoint(for: $0).approximated }.map(\.name)
    }
}
