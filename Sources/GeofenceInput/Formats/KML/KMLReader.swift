public import Foundation
import Geofence

/// Reads KML 2.2 documents into fixes: `gx:Track`s (GPSLogger's KML, Google's old Location History
/// KML) and timed Placemarks.
///
/// - A `gx:Track` holds its times as `<when>` elements and its positions as `<gx:coord>` elements
///   (`longitude latitude altitude`, separated by spaces), paired in order; GPSLogger writes one
///   `<when>` and one `<gx:coord>` per fix. A track whose counts differ is an error naming its
///   line, and no fix of it is guessed.
/// - A `Placemark` with a `<TimeStamp><when>` and a `<Point><coordinates>` (`longitude,latitude[,altitude]`)
///   is a fix. A Placemark without a time (GPSLogger's annotations, a drawn place) is not a fix
///   and is counted as a record that moves nothing.
///
/// Read with the project's own ``XMLScanner`` (Foundation's XMLParser traps on some bytes), after
/// the same byte check as GPX: a byte that is not UTF-8 ends the document at the line before it.
public enum KMLReader {
    /// Reads a whole KML document. A malformed document yields the fixes read before the fault and
    /// an error naming where it is.
    public static func read(data: Data, source: String, deviceId: String? = nil) -> InputBatch {
        let delegate = KMLDelegate(source: source, deviceId: deviceId)
        if let refused = XMLRecordWalk.walk(data, source: source, format: "KML", into: delegate) {
            return refused
        }
        return XMLRecordWalk.batch(of: delegate)
    }
}

/// Collects fixes from the elements of a KML document, in document order; used by one `read`
/// call only.
private final class KMLDelegate: XMLRecordCollector {
    let source: String
    let deviceId: String?
    var fixes: [Fix] = []
    var untimed: [InputRecord] = []
    var errors: [RecordError] = []
    var aborted = false
    var depth = 0
    private var sawRoot = false
    private var text = ""
    private var capturing = false
    /// The line of the element whose text is being captured.
    private var captureLine = 0
    /// The track being read: its line, times and positions (with the line of each).
    private var track: (line: Int, whens: [(String, Int)], coords: [(String, Int)])?
    /// The Placemark being read.
    private var placemark: (line: Int, when: String?, coordinates: String?)?
    private var inTimeStamp = false
    private var inPoint = false

    init(source: String, deviceId: String?) {
        self.source = source
        self.deviceId = deviceId
    }

    private static func localName(_ name: String) -> String {
        guard let colon = name.lastIndex(of: ":") else { return name }
        return String(name[name.index(after: colon)...])
    }

    func start(_ elementName: String, attributes: [String: String], line: Int) {
        depth += 1
        let name = Self.localName(elementName)
        if !sawRoot {
            sawRoot = true
            if name != "kml" {
                errors.append(
                    RecordError(
                        source: source, line: line,
                        message: "not a KML document: the root element is <\(elementName)>",
                        kind: .unrecognized))
                aborted = true
            }
            return
        }
        switch name {
        case "Track": track = (line, [], [])
        case "Placemark": placemark = (line, nil, nil)
        case "TimeStamp": inTimeStamp = true
        case "Point": inPoint = true
        case "when", "coord", "coordinates":
            capturing = true
            captureLine = line
            text = ""
        default: break
        }
    }

    func characters(_ string: String) {
        if capturing { text += string }
    }

    func end(_ elementName: String) {
        depth -= 1
        let name = Self.localName(elementName)
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch name {
        case "when":
            capturing = false
            if track != nil {
                track?.whens.append((value, captureLine))
            } else if inTimeStamp {
                placemark?.when = value
            }
        case "coord":
            capturing = false
            track?.coords.append((value, captureLine))
        case "coordinates":
            capturing = false
            if inPoint { placemark?.coordinates = value }
        case "TimeStamp": inTimeStamp = false
        case "Point": inPoint = false
        case "Track":
            if let track { finish(track) }
            track = nil
        case "Placemark":
            if let placemark { finish(placemark) }
            placemark = nil
        default: break
        }
    }

    private func finish(_ track: (line: Int, whens: [(String, Int)], coords: [(String, Int)])) {
        guard track.whens.count == track.coords.count else {
            errors.append(
                RecordError(
                    source: source, line: track.line,
                    message:
                        "a gx:Track with \(track.whens.count) <when> and \(track.coords.count) <gx:coord>: they must pair up",
                    kind: .malformed))
            return
        }
        for ((when, line), (coord, _)) in zip(track.whens, track.coords) {
            let numbers = coord.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
            add(when: when, numbers: numbers, field: "gx:coord", line: line)
        }
    }

    private func finish(_ placemark: (line: Int, when: String?, coordinates: String?)) {
        guard let coordinates = placemark.coordinates else { return }
        guard let when = placemark.when else {
            untimed.append(
                .ignored(kind: "Placemark", reason: "\(source):\(placemark.line): a Placemark without a time")
            )
            return
        }
        add(
            when: when, numbers: coordinates.split(separator: ","), field: "coordinates", line: placemark.line
        )
    }

    private func add(when: String, numbers: [Substring], field: String, line: Int) {
        func fail(_ field: String, _ message: String, _ kind: RecordError.Kind) {
            errors.append(RecordError(source: source, line: line, field: field, message: message, kind: kind))
        }
        let written = numbers.joined(separator: " ")
        guard numbers.count >= 2, let longitude = Double(numbers[0]), let latitude = Double(numbers[1]) else {
            return fail(field, "\"\(written)\" is not longitude and latitude", .invalidCoordinate)
        }
        let coordinate: Coordinate
        do throws(RecordError) {
            coordinate = try LineContext(
                source: source, line: line, zone: LocalZone(.gmt), defaultDeviceId: nil
            )
            .coordinate(
                latitude: latitude, latitudeText: String(numbers[1]), latitudeField: field,
                longitude: longitude,
                longitudeText: String(numbers[0]), longitudeField: field)
        } catch {
            return errors.append(error)
        }
        var utf8 = when
        guard let seconds = utf8.withUTF8({ TimeText.parse($0, 0, $0.count, zone: LocalZone(.gmt)) }) else {
            return fail("when", "\"\(when)\" is not an ISO 8601 time", .invalidField)
        }
        let altitude = numbers.count >= 3 ? Double(numbers[2]) : nil
        let timestamp: Date
        do throws(RecordError) {
            timestamp = try LineContext(
                source: source, line: line, zone: LocalZone(.gmt), defaultDeviceId: nil
            )
            .date(seconds: seconds, text: "\"\(when)\"", field: "when")
        } catch {
            return errors.append(error)
        }
        fixes.append(
            Fix(
                timestamp: timestamp, coordinate: coordinate,
                altitude: altitude.flatMap { $0.isFinite ? $0 : nil }, deviceId: deviceId))
    }
}
