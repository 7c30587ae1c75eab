public import Foundation
import Geofence

/// Reads a GPX 1.0 or 1.1 document into fixes: track points, route points and waypoints that
/// carry a time.
///
/// - `lat`, `lon` → the coordinate; `time` → the timestamp (a time without an offset is UTC,
///   as the GPX schema says); `ele` → altitude; `speed` (GPX 1.0, or any extension element
///   named `speed`, such as Garmin's `gpxtpx:speed`) → speed in m/s; `course` likewise;
///   `name` → label.
/// - `hdop`, `vdop` and `pdop` are not turned into accuracies: a dilution of precision is a
///   unitless factor, and metres would need the receiver's range error, which GPX does not
///   carry. Guessing it would give the accuracy gate numbers that look measured but are not,
///   so GPX fixes have no accuracy and downstream treats them as of unknown accuracy.
/// - A point with a bad coordinate or time is skipped with an error naming its line. A point with
///   no time at all is not an error: a waypoint or route point without one is a planned place, not
///   a fix, and a track point without one cannot be placed in time. Each comes back as an ignored
///   record naming its line, so that a caller counts and can show them without calling the file
///   broken.
///
/// A GPX file is a document, not a stream, and its waypoints usually come before its tracks,
/// so the fixes are returned in time order (points with equal times keep document order).
public enum GPXReader {
    /// Reads a whole GPX document. A malformed document yields the points read before the
    /// fault, and an error naming where it is.
    public static func read(data: Data, source: String) -> InputBatch {
        let delegate = GPXDelegate(source: source)
        if let refused = XMLRecordWalk.walk(data, source: source, format: "GPX", into: delegate) {
            return refused
        }
        if !delegate.sawRoot, delegate.errors.isEmpty {
            delegate.errors.append(
                RecordError(source: source, line: 0, message: "no GPX document found", kind: .malformed))
        }
        return XMLRecordWalk.batch(of: delegate)
    }
}

/// Collects points as the XML scanner reports elements; used by one `read` call only.
private final class GPXDelegate: XMLRecordCollector {
    let source: String
    var fixes: [Fix] = []
    /// Points without a time, as ignored records.
    var untimed: [InputRecord] = []
    var errors: [RecordError] = []
    var sawRoot = false
    var aborted = false

    /// The point being read: its element name, attributes, line and the values of its children.
    private struct Point {
        var kind: String
        var line: Int
        var depth: Int
        var latitude: String?
        var longitude: String?
        var values: [String: String] = [:]
    }

    private var depth = 0
    private var openNames: [String] = []

    /// The innermost element not yet closed, if any.
    var openElement: String? { openNames.last }
    private var point: Point?
    private var capturing: String?
    private var text = ""

    init(source: String) {
        self.source = source
    }

    private static func localName(_ name: String) -> String {
        guard let colon = name.lastIndex(of: ":") else { return name }
        return String(name[name.index(after: colon)...])
    }

    func start(_ elementName: String, attributes: [String: String], line: Int) {
        let name = Self.localName(elementName)
        depth += 1
        openNames.append(elementName)
        if !sawRoot {
            sawRoot = true
            guard name == "gpx" else {
                errors.append(
                    RecordError(
                        source: source, line: line,
                        message: "not a GPX document: the root element is <\(elementName)>", kind: .malformed)
                )
                aborted = true
                return
            }
            return
        }
        if point == nil, name == "trkpt" || name == "rtept" || name == "wpt" {
            point = Point(
                kind: name, line: line, depth: depth, latitude: attributes["lat"],
                longitude: attributes["lon"])
            return
        }
        guard let point, capturing == nil else { return }
        let isChild = depth == point.depth + 1
        // ele, time and name belong to the point itself; speed and course may also sit in an
        // extension (Garmin's TrackPointExtension, OsmAnd's), at any depth.
        if (isChild && ["ele", "time", "name"].contains(name)) || name == "speed" || name == "course" {
            capturing = name
            text = ""
        }
    }

    func characters(_ string: String) {
        if capturing != nil { text += string }
    }

    func end(_ elementName: String) {
        defer {
            depth -= 1
            _ = openNames.popLast()
        }
        let name = Self.localName(elementName)
        if let field = capturing, field == name {
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            // The first speed or course found wins: GPX 1.0's own element comes before extensions.
            if !value.isEmpty, point?.values[field] == nil { point?.values[field] = value }
            capturing = nil
            return
        }
        if let current = point, depth == current.depth, name == current.kind {
            finish(current)
            point = nil
        }
    }

    private func finish(_ point: Point) {
        func fail(_ field: String, _ message: String, _ kind: RecordError.Kind) {
            errors.append(
                RecordError(source: source, line: point.line, field: field, message: message, kind: kind))
        }
        let context = LineContext(
            source: source, line: point.line, zone: LocalZone(.gmt), defaultDeviceId: nil)
        guard let latitudeText = point.latitude else {
            return fail("lat", "<\(point.kind)> has no lat", .missingField)
        }
        guard let longitudeText = point.longitude else {
            return fail("lon", "<\(point.kind)> has no lon", .missingField)
        }
        guard let latitude = Double(latitudeText.trimmingCharacters(in: .whitespaces)) else {
            return fail("lat", "\"\(latitudeText)\" is not a number", .invalidField)
        }
        guard let longitude = Double(longitudeText.trimmingCharacters(in: .whitespaces)) else {
            return fail("lon", "\"\(longitudeText)\" is not a number", .invalidField)
        }
        let coordinate: Coordinate
        do throws(RecordError) {
            coordinate = try context.coordinate(
                latitude: latitude, latitudeText: latitudeText, latitudeField: "lat",
                longitude: longitude, longitudeText: longitudeText, longitudeField: "lon")
        } catch {
            return errors.append(error)
        }
        guard let timeText = point.values["time"] else {
            untimed.append(
                .ignored(kind: point.kind, reason: "\(source):\(point.line): <\(point.kind)> has no time"))
            return
        }
        var utf8 = timeText
        let seconds = utf8.withUTF8 { TimeText.parse($0, 0, $0.count, zone: context.zone) }
        guard let seconds else {
            return fail("time", "\"\(timeText)\" is not an ISO 8601 time", .invalidField)
        }
        guard TimeBounds.contains(seconds) else {
            return fail("time", "\"\(timeText)\" \(TimeBounds.reason(seconds))", .invalidField)
        }
        var numbers: [String: Double] = [:]
        for field in ["ele", "speed", "course"] {
            guard let value = point.values[field] else { continue }
            guard let number = Double(value), number.isFinite else {
                return fail(field, "\"\(value)\" is not a number", .invalidField)
            }
            numbers[field] = number
        }
        fixes.append(
            Fix(
                timestamp: Date(timeIntervalSince1970: seconds), coordinate: coordinate,
                altitude: numbers["ele"],
                speed: numbers["speed"], course: numbers["course"], label: point.values["name"]))
    }
}
