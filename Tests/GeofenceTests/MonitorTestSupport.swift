import Foundation

@testable import Geofence

/// A local map for monitor tests: places in metres east and north of a fixed origin.
enum Map {
    static let origin = Coordinate(uncheckedLatitude: 51.5007, longitude: -0.1246)
    static let frame = LocalFrame(origin: origin)
    static let start = Date(timeIntervalSince1970: 1_772_524_800)  // 2026-03-03 08:00 UTC

    static func at(_ east: Double, _ north: Double) -> Coordinate {
        frame.unproject(PlanePoint(x: east, y: north))
    }

    static func circle(_ radius: Double, east: Double = 0, north: Double = 0) -> Condition {
        // Radii in tests are positive literals; a failure here is a broken test, reported as such.
        guard let circle = try? CircularCondition(center: at(east, north), radiusMeters: radius) else {
            preconditionFailure("bad test circle")
        }
        return .circle(circle)
    }

    static func polygon(_ corners: [(Double, Double)]) -> Condition {
        var ring = corners.map { at($0.0, $0.1) }
        if let first = ring.first { ring.append(first) }
        guard let polygon = try? PolygonCondition(polygons: [[ring]]) else {
            preconditionFailure("bad test polygon")
        }
        return .polygon(polygon)
    }

    /// An L-shaped (concave) polygon 600 m across: the square (0,0)-(600,600) without its
    /// north-east quarter.
    static let lShape = polygon([(0, 0), (600, 0), (600, 300), (300, 300), (300, 600), (0, 600)])

    static func fix(_ seconds: Double, _ east: Double, _ north: Double, accuracy: Double? = 10) -> Fix {
        Fix(
            timestamp: start.addingTimeInterval(seconds), coordinate: at(east, north),
            horizontalAccuracy: accuracy)
    }

    static func date(_ seconds: Double) -> Date { start.addingTimeInterval(seconds) }
}

extension Array where Element == Event {
    /// The transitions only, without first determinations' dwell or limit noise.
    var transitions: [Event] { filter { $0.kind == .transition } }
}
