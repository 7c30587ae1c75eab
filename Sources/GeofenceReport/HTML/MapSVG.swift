import Foundation
import Geofence

/// The map of one day, without tiles: places to scale in a local projection, their margin bands,
/// the track, dropped fixes with their reason on hover, stays, and each event where it was decided.
///
/// The projection is equirectangular around the middle of what is drawn: over the few kilometres
/// of a day's map it is within a fraction of a percent of true distance, which is what a scale
/// bar and margins of ten metres need.
struct MapSVG {
    let day: ReportDay
    let places: [ReportPlace]
    let clock: LocalClock
    /// A place to zoom on (an inset where the margin bands are metres wide on screen), or `nil`
    /// for the whole day.
    var focus: ReportPlace? = nil
    var width = 560.0
    var height = 460.0

    func render(into out: inout String) {
        let shown = focus.map { [$0] + placesShown().filter { $0.name != focus?.name } } ?? placesShown()
        var box = BoundingBox()
        if let focus {
            box.add(place: focus.condition, grownBy: 2.5)
        } else {
            for segment in day.track { for point in segment { box.add(point.coordinate) } }
            for event in day.events { if let coordinate = event.coordinate { box.add(coordinate) } }
            for stay in day.stays { box.add(stay.coordinate) }
            for place in shown { box.add(place: place.condition) }
        }
        guard
            let projection = Projection(
                box: box, width: width, height: height, padding: focus == nil ? 24 : 4)
        else {
            out += "<p class=note>Nothing to draw on the map this day.</p>"
            return
        }
        func inView(_ point: (Double, Double)) -> Bool {
            point.0 >= -20 && point.0 <= width + 20 && point.1 >= -20 && point.1 <= height + 20
        }
        let id =
            "m" + day.label.replacingOccurrences(of: "-", with: "")
            + (focus.flatMap { place in places.firstIndex { $0.name == place.name } }.map { "f\($0)" } ?? "")
        let kind = focus == nil ? "map" : "inset"
        let label = focus.map { "\(HTMLText.escape($0.name)) on \(day.label)" } ?? "map of \(day.label)"
        out += "<svg class=\(kind) viewBox=\"0 0 \(Int(width)) \(Int(height))\" width=\(Int(width))"
        out += " height=\(Int(height)) role=img aria-label=\"\(label)\">"
        out += "<rect class=bg width=100% height=100% />"
        var labels: [(x: Double, y: Double, below: Double, text: String)] = []
        for (index, place) in shown.enumerated() {
            labels.append(drawPlace(place, clipID: "\(id)p\(index)", projection: projection, into: &out))
        }
        for segment in day.track where segment.count > 1 {
            // In an inset only the stretches near the place are drawn (with one fix either side).
            var drawing = false
            for (index, point) in segment.enumerated() {
                let xy = projection.point(point.coordinate)
                let near =
                    focus == nil || inView(xy)
                    || (index + 1 < segment.count && inView(projection.point(segment[index + 1].coordinate)))
                    || (index > 0 && inView(projection.point(segment[index - 1].coordinate)))
                if near {
                    out +=
                        (drawing ? "L" : "<path class=track d=\"M") + HTMLText.number(xy.0) + " "
                        + HTMLText.number(xy.1)
                    drawing = true
                } else if drawing {
                    out += "\" />"
                    drawing = false
                }
            }
            if drawing { out += "\" />" }
        }
        var offMap = 0
        // Close-ups leave out what the day map already explains on hover (dropped fixes, stays),
        // and mark events without their text: a year of close-ups must not double the file.
        for fix in day.dropped where focus == nil {
            let (x, y) = projection.point(fix.coordinate)
            guard x >= 0, x <= width, y >= 0, y <= height else {
                offMap += 1
                continue
            }
            let accuracy = fix.accuracy.map { ", accuracy \(Int($0.rounded())) m" } ?? ""
            out += "<path class=drop data-reason=\(fix.reason.rawValue) d=\"M\(HTMLText.number(x - 3)) "
            out += "\(HTMLText.number(y - 3))l6 6m0-6l-6 6\"><title>dropped \(clock.time(fix.date)): "
            out += "\(fix.reason.rawValue)\(accuracy)</title></path>"
        }
        for stay in day.stays {
            let (x, y) = projection.point(stay.coordinate)
            guard focus == nil else { break }
            let radius = max(5, projection.scale * max(30, stay.horizontalAccuracy))
            let from = stay.arrival.map(clock.time) ?? "?"
            let to = stay.departure.map(clock.time) ?? "still there"
            out += "<circle class=stay cx=\(HTMLText.number(x)) cy=\(HTMLText.number(y))"
            out += " r=\(HTMLText.number(radius))><title>stay \(from) to \(to)</title></circle>"
        }
        for event in day.events {
            guard let coordinate = event.coordinate else { continue }
            let (x, y) = projection.point(coordinate)
            guard focus == nil else {
                if inView((x, y)) {
                    out +=
                        "<circle class=\"ev \(HTMLText.escape(event.transition))\" cx=\(HTMLText.number(x))"
                    out += " cy=\(HTMLText.number(y)) r=4 />"
                }
                continue
            }
            // Only the day map carries the events' ids, so each event is one element to find.
            out += "<circle class=\"ev \(HTMLText.escape(event.transition))\" data-event=\"\(event.id)\""
            out += " data-place=\"\(HTMLText.escape(event.place))\" cx=\(HTMLText.number(x))"
            out += " cy=\(HTMLText.number(y)) r=6><title>\(HTMLText.escape(event.transition)) "
            out += "\(HTMLText.escape(event.place)): crossing \(clock.time(event.date)), decided here at "
            out +=
                "\(clock.time(event.confirmedAt)) (\(HTMLText.duration(event.latencySeconds)) later)</title></circle>"
        }
        // Labels last, on top; one that would sit on an earlier label goes below its place.
        var placed: [(Double, Double)] = []
        for label in labels {
            var y = label.y
            if placed.contains(where: { abs($0.0 - label.x) < 60 && abs($0.1 - y) < 12 }) { y = label.below }
            placed.append((label.x, y))
            out +=
                "<text class=label x=\(HTMLText.number(label.x)) y=\(HTMLText.number(y))>\(label.text)</text>"
        }
        scaleBar(projection, into: &out)
        if offMap > 0, focus == nil {
            out += "<text class=small x=8 y=16>\(offMap) dropped fixes lie off this map</text>"
        }
        out += "</svg>"
    }

    /// Places near the day's track, and every place with an event that day; all of them when the
    /// day has no track.
    private func placesShown() -> [ReportPlace] {
        var box = BoundingBox()
        for segment in day.track { for point in segment { box.add(point.coordinate) } }
        guard box.isValid else { return places }
        let withEvents = Set(day.events.map(\.place))
        return places.filter { place in
            withEvents.contains(place.name) || box.distanceMeters(to: place.condition) < 3000
        }
    }

    private func drawPlace(
        _ place: ReportPlace, clipID: String, projection: Projection, into out: inout String
    ) -> (x: Double, y: Double, below: Double, text: String) {
        let name = HTMLText.escape(place.name)
        let enter = place.hysteresis.enterMarginMeters * projection.scale
        let exit = place.hysteresis.exitMarginMeters * projection.scale
        let group = focus == nil ? "<g class=place data-place=\"\(name)\">" : "<g class=place>"
        out += group + "<title>\(name): enter margin "
        out += "\(HTMLText.number(place.hysteresis.enterMarginMeters)) m, exit margin "
        out += "\(HTMLText.number(place.hysteresis.exitMarginMeters)) m</title>"
        let labelAt: (Double, Double, Double)
        switch place.condition {
        case .circle(let circle):
            let (x, y) = projection.point(circle.center)
            let radius = circle.radiusMeters * projection.scale
            let cx = "cx=\(HTMLText.number(x)) cy=\(HTMLText.number(y))"
            out += "<circle class=exitband \(cx) r=\(HTMLText.number(radius + exit / 2)) stroke-width="
            out += "\(HTMLText.number(max(exit, 0.5))) />"
            out += "<circle class=fence \(cx) r=\(HTMLText.number(radius)) />"
            out +=
                "<circle class=enterband \(cx) r=\(HTMLText.number(max(0, radius - enter / 2))) stroke-width="
            out += "\(HTMLText.number(max(enter, 0.5))) />"
            labelAt = (x, y - radius - exit - 4, y + radius + exit + 12)
        case .polygon(let polygon):
            var d = ""
            var box = BoundingBox()
            for part in polygon.polygons {
                for ring in part {
                    for (index, vertex) in ring.enumerated() {
                        box.add(vertex)
                        let (x, y) = projection.point(vertex)
                        d += (index == 0 ? "M" : "L") + HTMLText.number(x) + " " + HTMLText.number(y)
                    }
                    d += "Z"
                }
            }
            // The outer band is a stroke twice the exit margin wide; the polygon's fill then covers
            // its inner half. The inner band is a stroke clipped to the polygon.
            out += "<clipPath id=\(clipID)><path d=\"\(d)\" clip-rule=evenodd /></clipPath>"
            out += "<path class=exitband d=\"\(d)\" stroke-width=\(HTMLText.number(max(2 * exit, 0.5))) />"
            out += "<path class=fence d=\"\(d)\" fill-rule=evenodd />"
            out += "<path class=enterband d=\"\(d)\" clip-path=\"url(#\(clipID))\" stroke-width="
            out += "\(HTMLText.number(max(2 * enter, 0.5))) />"
            let middle = (box.minLongitude + box.maxLongitude) / 2
            let top = projection.point(Coordinate.clamped(latitude: box.maxLatitude, longitude: middle))
            let bottom = projection.point(Coordinate.clamped(latitude: box.minLatitude, longitude: middle))
            labelAt = (top.0, top.1 - exit - 4, bottom.1 + exit + 12)
        }
        out += "</g>"
        return (labelAt.0, labelAt.1, labelAt.2, name)
    }

    private func scaleBar(_ projection: Projection, into out: inout String) {
        let target = width / 5 / projection.scale
        let magnitude = pow(10, floor(log10(target)))
        let length = [1.0, 2, 5, 10].map { $0 * magnitude }.last { $0 <= target } ?? magnitude
        let pixels = length * projection.scale
        let text = length >= 1000 ? "\(HTMLText.number(length / 1000)) km" : "\(Int(length)) m"
        let y = height - 14
        out += "<g class=scale><path d=\"M12 \(HTMLText.number(y - 5))v5h\(HTMLText.number(pixels))v-5\"/>"
        out += "<text x=\(HTMLText.number(12 + pixels + 6)) y=\(HTMLText.number(y))>\(text)</text></g>"
    }
}

/// A latitude/longitude box.
struct BoundingBox {
    var minLatitude = Double.infinity
    var maxLatitude = -Double.infinity
    var minLongitude = Double.infinity
    var maxLongitude = -Double.infinity

    var isValid: Bool { minLatitude <= maxLatitude }

    mutating func add(_ coordinate: Coordinate) {
        minLatitude = min(minLatitude, coordinate.latitude)
        maxLatitude = max(maxLatitude, coordinate.latitude)
        minLongitude = min(minLongitude, coordinate.longitude)
        maxLongitude = max(maxLongitude, coordinate.longitude)
    }

    /// Adds a condition's extent (a circle's centre plus its radius), grown by a factor around
    /// its middle.
    mutating func add(place condition: Condition, grownBy factor: Double = 1) {
        switch condition {
        case .circle(let circle):
            let dLatitude = factor * circle.radiusMeters / 111_132
            let dLongitude =
                factor * circle.radiusMeters / (111_320 * max(0.01, cos(circle.center.latitude * .pi / 180)))
            add(
                Coordinate.clamped(
                    latitude: circle.center.latitude - dLatitude,
                    longitude: circle.center.longitude - dLongitude))
            add(
                Coordinate.clamped(
                    latitude: circle.center.latitude + dLatitude,
                    longitude: circle.center.longitude + dLongitude))
        case .polygon(let polygon):
            var own = BoundingBox()
            for part in polygon.polygons { for vertex in part.first ?? [] { own.add(vertex) } }
            guard own.isValid else { return }
            let middleLatitude = (own.minLatitude + own.maxLatitude) / 2
            let middleLongitude = (own.minLongitude + own.maxLongitude) / 2
            let halfLatitude = (own.maxLatitude - own.minLatitude) / 2 * factor
            let halfLongitude = (own.maxLongitude - own.minLongitude) / 2 * factor
            add(
                Coordinate.clamped(
                    latitude: middleLatitude - halfLatitude, longitude: middleLongitude - halfLongitude))
            add(
                Coordinate.clamped(
                    latitude: middleLatitude + halfLatitude, longitude: middleLongitude + halfLongitude))
        }
    }

    /// A rough distance in metres from the box to a condition's nearest vertex or centre.
    func distanceMeters(to condition: Condition) -> Double {
        let points: [Coordinate]
        switch condition {
        case .circle(let circle): points = [circle.center]
        case .polygon(let polygon): points = polygon.polygons.flatMap { $0.first ?? [] }
        }
        let radius: Double
        if case .circle(let circle) = condition { radius = circle.radiusMeters } else { radius = 0 }
        return points.map { point in
            let dLatitude = max(0, minLatitude - point.latitude, point.latitude - maxLatitude) * 111_132
            let dLongitude =
                max(0, minLongitude - point.longitude, point.longitude - maxLongitude) * 111_320
                * cos(point.latitude * .pi / 180)
            return max(0, (dLatitude * dLatitude + dLongitude * dLongitude).squareRoot() - radius)
        }.min() ?? .infinity
    }
}

/// Degrees to pixels around the middle of a box, the same scale on both axes.
struct Projection {
    let originLatitude: Double
    let originLongitude: Double
    let metresPerDegreeLongitude: Double
    /// Pixels per metre.
    let scale: Double
    let width: Double
    let height: Double

    init?(box: BoundingBox, width: Double, height: Double, padding: Double) {
        guard box.isValid else { return nil }
        originLatitude = (box.minLatitude + box.maxLatitude) / 2
        originLongitude = (box.minLongitude + box.maxLongitude) / 2
        metresPerDegreeLongitude = 111_320 * max(0.01, cos(originLatitude * .pi / 180))
        let spanX = max(200, (box.maxLongitude - box.minLongitude) * metresPerDegreeLongitude)
        let spanY = max(200, (box.maxLatitude - box.minLatitude) * 111_132)
        scale = min((width - 2 * padding) / spanX, (height - 2 * padding) / spanY)
        self.width = width
        self.height = height
    }

    func point(_ coordinate: Coordinate) -> (Double, Double) {
        let x = (coordinate.longitude - originLongitude) * metresPerDegreeLongitude * scale + width / 2
        let y = height / 2 - (coordinate.latitude - originLatitude) * 111_132 * scale
        return (x, y)
    }
}

extension Coordinate {
    /// A coordinate from values already known to be in range (clamped, never failing).
    static func clamped(latitude: Double, longitude: Double) -> Coordinate {
        let lat = min(90, max(-90, latitude.isFinite ? latitude : 0))
        let lon = min(180, max(-180, longitude.isFinite ? longitude : 0))
        return (try? Coordinate(latitude: lat, longitude: lon))
            ?? Coordinate(uncheckedLatitude: lat, longitude: lon)
    }
}
