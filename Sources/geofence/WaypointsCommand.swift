import Foundation
import GeofenceRules
import GeofenceRuntime

/// `geofence waypoints RULES`: the places as an OwnTracks `setWaypoints` command, one JSON line,
/// for the app's own regions to match the rules file.
enum WaypointsCommand {
    static let usage = """
        usage: geofence waypoints RULES
          prints the places as an OwnTracks setWaypoints command (one JSON line): send it with
          mosquitto_pub -t owntracks/USER/DEVICE/cmd, or let run --mqtt-publish --mqtt-waypoints send it
        """

    static func run(_ arguments: [String]) throws {
        if arguments.contains("-h") || arguments.contains("--help") {
            print(usage)
            return
        }
        guard arguments.count == 1, let path = arguments.first, !path.hasPrefix("-") else {
            throw CommandError(message: usage, status: 2)
        }
        let rules: RulesFile
        switch RulesLoader.load(path: path) {
        case .success(let loaded): rules = loaded
        case .failure(let error): throw CommandError(message: "\(error)", status: 1, prefixed: false)
        }
        let waypoints = try OwnTracksWaypointCommand(places: rules.places)
        for name in waypoints.approximated {
            FileHandle.standardError.write(
                Data(
                    "note: \(name) is a polygon; OwnTracks regions are circles, so the phone gets the circle around it\n"
                        .utf8))
        }
        print(waypoints.json)
    }
}
