import Foundation
import Geofence

/// Where a line came from and how to read its times, carried through the record builders so
/// every error can name its place.
struct LineContext {
    /// What every line of a source shares, in one object, so that a line's context costs one
    /// reference count to make and to copy rather than one for each string and zone in it.
    final class Origin: Sendable {
        let source: String
        let zone: LocalZone

        init(source: String, zone: LocalZone) {
            self.source = source
            self.zone = zone
        }
    }

    /// The source's origin, not retained: a line decoder holds its origin for as long as the
    /// contexts of its lines live (they live for the line's call), and a context retaining it cost
    /// two retains and two releases a line (an atomic each) on the decoding threads. A context
    /// that made its own origin holds it in ``keeper``.
    unowned(unsafe) let origin: Origin
    /// The origin this context made for itself (``init(source:line:zone:defaultDeviceId:)``),
    /// held so it lives as long as the context; `nil` when the caller holds it.
    private let keeper: Origin?
    let line: Int
    /// The device to name when a record names none.
    let defaultDeviceId: String?

    var source: String { origin.source }
    var zone: LocalZone { origin.zone }

    /// A context of a source's line, sharing the source's ``Origin``, which the caller holds for
    /// as long as the context lives.
    init(origin: Origin, line: Int, defaultDeviceId: String?) {
        self.origin = origin
        self.keeper = nil
        self.line = line
        self.defaultDeviceId = defaultDeviceId
    }

    /// A context for a reader that makes one now and then (a document's points), holding an
    /// origin of its own.
    init(source: String, line: Int, zone: LocalZone, defaultDeviceId: String?) {
        let origin = Origin(source: source, zone: zone)
        self.origin = origin
        self.keeper = origin
        self.line = line
        self.defaultDeviceId = defaultDeviceId
    }

    func error(
        field: String? = nil, column: Int? = nil, _ message: String, kind: RecordError.Kind
    ) -> RecordError {
        RecordError(source: source, line: line, column: column, field: field, message: message, kind: kind)
    }

    /// The coordinate for a latitude and longitude already read as numbers, with errors that
    /// quote the values as written.
    func coordinate(
        latitude: Double, latitudeText: @autoclosure () -> String, latitudeField: @autoclosure () -> String,
        longitude: Double, longitudeText: @autoclosure () -> String, longitudeField: @autoclosure () -> String
    ) throws(RecordError) -> Coordinate {
        // The texts are built only for an error: quoting a value costs more than reading it.
        try checkRange(latitude, text: latitudeText(), field: latitudeField(), limit: 90)
        try checkRange(longitude, text: longitudeText(), field: longitudeField(), limit: 180)
        do {
            return try Coordinate(latitude: latitude, longitude: longitude)
        } catch {
            // Unreachable after the checks above; kept so a change in Coordinate's rules still
            // surfaces as an input error rather than a crash.
            throw self.error(field: latitudeField(), error.description, kind: .invalidCoordinate)
        }
    }

    private func checkRange(
        _ value: Double, text: @autoclosure () -> String, field: @autoclosure () -> String, limit: Double
    ) throws(RecordError) {
        guard value.isFinite else {
            throw error(field: field(), "\(text()) is not a finite number", kind: .invalidCoordinate)
        }
        guard value >= -limit, value <= limit else {
            let bound = Int(limit)
            throw error(field: field(), "\(text()) is outside -\(bound)...\(bound)", kind: .invalidCoordinate)
        }
    }
}

/// Reads trimmed fields in the units this library uses.
enum Units {
    /// An accuracy in metres, or `nil` when it says "unknown": trackers write 0 or a negative
    /// number for that (Core Location uses -1; Posmo and AWARE exports write 0).
    static func accuracy(_ value: Double?) -> Double? {
        guard let value, value.isFinite, value > 0 else { return nil }
        return value
    }

    /// The device from an OwnTracks topic: `owntracks/USER/DEVICE` (optionally with a leading
    /// slash or further levels) gives `USER/DEVICE`; any other topic is kept as it is.
    static func deviceId(fromTopic topic: String) -> String {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: true)
        guard levels.count >= 3 else { return topic }
        return "\(levels[1])/\(levels[2])"
    }

    /// Milliseconds since 1970 as a date; values this small are Unix seconds written by mistake.
    static let smallestPlausibleMilliseconds = 100_000_000_000.0
}
