import Foundation

/// The order of the two numbers of each WKT vertex.
public enum WKTAxisOrder: Sendable, Equatable {
    /// WKT's own order, `x y`: longitude, then latitude.
    case longitudeFirst
    /// Latitude, then longitude, as Traccar writes its geofences (`POLYGON((48.85 2.29, ...))`).
    case latitudeFirst
    /// Told from the numbers, or from places nearby, where that is unambiguous.
    case auto
}

extension PolygonCondition {
    /// Reads well-known text, saying in `notes` whatever it had to decide.
    ///
    /// - **Axis order.** WKT is longitude first, but Traccar and some hand-written files put the
    ///   latitude first. With `.auto`, a second number beyond ±90 (so a longitude) while every first
    ///   number is within ±90 means latitude first; a first number beyond ±90 means longitude first.
    ///   When every number is within ±90 the numbers cannot tell, and `near` (the file's other
    ///   places) decides if one order puts the polygon within 200 km of them and the other does not.
    ///   Otherwise it is read longitude first, and a note names where the swapped reading would
    ///   put it, so that a user who wrote latitude first sees it.
    /// - **Longitudes past ±180.** A ring drawn across the antimeridian by a map tool has vertices
    ///   such as -180.0014. When a ring's consecutive vertices are never more than 180° apart as
    ///   written (so it is one continuous shape), its longitudes past ±180 are wrapped into range
    ///   and a note says how many; a ring that jumps (a typo such as 200 among values near 0) is
    ///   refused as before.
    public static func reading(
        wkt: String, axisOrder: WKTAxisOrder = .auto, near places: [Coordinate] = []
    ) throws(PolygonError) -> (condition: PolygonCondition, notes: [String]) {
        let raw = try WKTPolygonReader.read(wkt)
        var notes: [String] = []
        var order = axisOrder
        if order == .auto {
            let all = raw.flatMap { $0.flatMap { $0 } }
            let firstBeyond = all.contains { abs($0.x) > 90 }
            let secondBeyond = all.contains { abs($0.y) > 90 }
            if secondBeyond && !firstBeyond {
                order = .latitudeFirst
                notes.append(
                    "WKT read latitude first: its second numbers go beyond ±90, so they are longitudes (WKT's own order is longitude first; Traccar writes latitude first)"
                )
            } else if firstBeyond {
                order = .longitudeFirst
            } else {
                order = .longitudeFirst
                let asWritten = centroid(all, latitudeFirst: false)
                let swapped = centroid(all, latitudeFirst: true)
                let nearWritten = places.map { $0.distance(to: asWritten) }.min()
                let nearSwapped = places.map { $0.distance(to: swapped) }.min()
                if let nearWritten, let nearSwapped, nearSwapped < 200_000, nearWritten > 200_000 {
                    order = .latitudeFirst
                    notes.append(
                        "WKT read latitude first: so it lies \(kilometres(nearSwapped)) from the file's other places, longitude first (WKT's order) it would lie \(kilometres(nearWritten)) away"
                    )
                } else if nearWritten == nil || nearWritten ?? 0 > 200_000 {
                    notes.append(
                        "WKT read longitude first (WKT's order), centred at latitude \(degrees(asWritten.latitude)), longitude \(degrees(asWritten.longitude)); if it was written latitude first (as Traccar writes it), the place is meant to be at latitude \(degrees(swapped.latitude)), longitude \(degrees(swapped.longitude)): swap each pair of numbers"
                    )
                }
            }
        }
        var wrapped = 0
        var polygons: [[[Coordinate]]] = []
        for (p, rings) in raw.enumerated() {
            var converted: [[Coordinate]] = []
            for (r, ring) in rings.enumerated() {
                let points = order == .latitudeFirst ? ring.map { (x: $0.y, y: $0.x) } : ring
                converted.append(
                    try PolygonVertices.coordinates(points, wrapped: &wrapped) { v, detail in
                        let ringName = r == 0 ? "outer ring" : "hole \(r)"
                        let polygonName = raw.count > 1 ? "polygon \(p + 1), " : ""
                        return .malformedWKT("\(polygonName)\(ringName), vertex \(v + 1): \(detail)")
                    })
            }
            polygons.append(converted)
        }
        if wrapped > 0 { notes.append(PolygonVertices.wrappedNote(wrapped)) }
        return (try PolygonCondition(polygons: polygons), notes)
    }

    /// Reads GeoJSON text (a Polygon, MultiPolygon, Feature or FeatureCollection of them), saying
    /// in `notes` whether longitudes past ±180 were wrapped (see ``reading(wkt:axisOrder:near:)``).
    public static func reading(geoJSON: String) throws(PolygonError) -> (
        condition: PolygonCondition, notes: [String]
    ) {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(geoJSON.utf8))
        } catch {
            throw .malformedGeoJSON(path: "", "not valid JSON: \(JSONErrorText.describe(error))")
        }
        var wrapped = 0
        let polygons = try GeoJSONPolygonReader.polygons(in: value, path: "", wrapped: &wrapped)
        return (
            try PolygonCondition(polygons: polygons),
            wrapped > 0 ? [PolygonVertices.wrappedNote(wrapped)] : []
        )
    }

    private static func centroid(_ points: [(x: Double, y: Double)], latitudeFirst: Bool) -> Coordinate {
        let count = Double(max(points.count, 1))
        let x = points.reduce(0) { $0 + $1.x } / count
        let y = points.reduce(0) { $0 + $1.y } / count
        return latitudeFirst
            ? Coordinate(uncheckedLatitude: x, longitude: y) : Coordinate(uncheckedLatitude: y, longitude: x)
    }

    private static func kilometres(_ meters: Double) -> String { "\(Int((meters / 1000).rounded())) km" }
    private static func degrees(_ value: Double) -> String { String(format: "%.5f", value) }
}

/// Turns a ring's raw vertices into coordinates, wrapping longitudes of a ring drawn across the
/// antimeridian.
enum PolygonVertices {
    /// The coordinates of one ring of `(longitude, latitude)` pairs; `wrapped` counts the
    /// longitudes brought into range. `failure` makes the error for a vertex (by index) and what is
    /// wrong with it.
    static func coordinates(
        _ ring: [(x: Double, y: Double)], wrapped: inout Int, failure: (Int, String) -> PolygonError
    ) throws(PolygonError) -> [Coordinate] {
        // Only a continuous ring (no jump of more than half the world between neighbours) is
        // wrapped: then a value past ±180 is the same meridian written the long way round.
        let continuous = zip(ring, ring.dropFirst()).allSatisfy { abs($0.x - $1.x) <= 180 }
        var points: [Coordinate] = []
        for (v, point) in ring.enumerated() {
            var longitude = point.x
            if continuous, longitude.isFinite, abs(longitude) > 180, abs(longitude) < 540 {
                longitude += longitude > 0 ? -360 : 360
                wrapped += 1
            }
            do {
                points.append(try Coordinate(latitude: point.y, longitude: longitude))
            } catch {
                throw failure(v, "\(error)")
            }
        }
        return points
    }

    static func wrappedNote(_ count: Int) -> String {
        "\(count) longitude\(count == 1 ? "" : "s") past ±180 (a ring drawn across the antimeridian) wrapped into -180...180"
    }
}
