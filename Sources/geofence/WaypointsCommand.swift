import Foundation
import GeofenceRules
import GeofenceRuntime

/// `geofence waypoints RULES`: the places as an OwnTracks `setWaypoints` command, one JSON line,
/// for the app's own regions to match the rules file.
enum WaypointsCommand: Command {
    static let definition = CommandDefinition(
        name: "waypoints", summary: "the places as an OwnTracks setWaypoints command",
        arguments: [Positional(name: "RULES", help: "the rules file whose places the phone gets")],
        discussion: """
            Prints one JSON line: send it with mosquitto_pub -t owntracks/USER/DEVICE/cmd, or let \
            run --mqtt-publish --mqtt-waypoints send it. OwnTracks regions are circles: a polygon \
            is sent as the circle around it, with a note on standard error.
            """)

    static func run(_ arguments: ParsedArguments) throws {
        guard let path = arguments.positional("RULES") else { return }
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
