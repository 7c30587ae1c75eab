import Foundation
import Geofence

/// `geofence demo`: the conditions of an example and the signed distance of a few fixes.
enum DemoCommand: Command {
    static let definition = CommandDefinition(
        name: "demo", summary: "print the example places and the signed distance of a few fixes")

    static func run(_ arguments: ParsedArguments) throws {
        let home = try Coordinate(latitude: 51.5007, longitude: -0.1246)
        let conditions: [(String, Condition)] = [
            ("home", .circle(try CircularCondition(center: home, radiusMeters: 150))),
            (
                "park",
                .polygon(
                    try PolygonCondition(
                        wkt: """
                            POLYGON ((-0.1300 51.5020, -0.1200 51.5020, -0.1200 51.5060, -0.1300 51.5060, \
                            -0.1300 51.5020), (-0.1260 51.5035, -0.1240 51.5035, -0.1240 51.5045, \
                            -0.1260 51.5045, -0.1260 51.5035))
                            """))
            ),
        ]
        print("conditions:")
        for (name, condition) in conditions { print("  \(name): \(condition)") }
        let fixes = [
            ("at home", try Coordinate(latitude: 51.5007, longitude: -0.1246)),
            ("100 m north of home", try Coordinate(latitude: 51.5016, longitude: -0.1246)),
            ("in the park", try Coordinate(latitude: 51.5050, longitude: -0.1280)),
            ("in the park's pond (a hole)", try Coordinate(latitude: 51.5040, longitude: -0.1250)),
            ("1 km east", try Coordinate(latitude: 51.5007, longitude: -0.1102)),
        ]
        print("\nsigned distance in metres (negative inside):")
        let header = "fix".padding(toLength: 30, withPad: " ", startingAt: 0)
        print(
            "  \(header)"
                + conditions.map { $0.0.padding(toLength: 10, withPad: " ", startingAt: 0) }.joined())
        for (label, coordinate) in fixes {
            let cells = conditions.map {
                String(format: "%9.1f ", $0.1.signedDistance(to: coordinate))
            }
            print("  " + label.padding(toLength: 30, withPad: " ", startingAt: 0) + cells.joined())
        }
    }
}
