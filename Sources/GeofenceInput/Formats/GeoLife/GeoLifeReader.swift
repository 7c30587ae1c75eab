import Foundation
import Geofence

/// Reads GeoLife trajectory files (`.plt`, Microsoft Research's GeoLife GPS Trajectories 1.3) into
/// fixes, a line at a time.
///
/// A file starts with six header lines (`Geolife trajectory`, `WGS 84`, `Altitude is in Feet`,
/// `Reserved 3`, a line of track settings, `0`), which are skipped. Each later line is
/// `latitude,longitude,0,altitude,days,date,time`: degrees, a field that is always 0, the altitude
/// in feet (-777 when unknown), the time as days since 1899-12-30, and the same time as
/// `yyyy-MM-dd` and `HH:mm:ss`, in GMT. The date and time fields are read; the day count is only
/// their repetition. GeoLife has no accuracy.
///
/// Each user's files are under `Data/NNN/Trajectory/`; ``device(forPath:)`` names the device after
/// that user.
public struct GeoLifeReader: Sendable {
    /// The name of the source, for errors.
    public let source: String
    /// The device for the fixes.
    public let deviceId: String?
    private var headerLines = 0

    /// Makes a reader for one source.
    public init(source: String, deviceId: String? = nil) {
        self.source = source
        self.deviceId = deviceId
    }

    /// Whether a line is the first line of a GeoLife file.
    public static func isFirstLine(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let (start, end) = LineBytes.trim(bytes)
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
            == "Geolife trajectory"
    }

    /// `geolife/NNN` for a path `.../Data/NNN/Trajectory/FILE.plt`, else `nil`.
    public static func device(forPath path: String) -> String? {
        let parts = path.split(separator: "/")
        guard parts.count >= 3, parts[parts.count - 2] == "Trajectory", path.hasSuffix(".plt") else {
            return nil
        }
        return "geolife/\(parts[parts.count - 3])"
    }

    /// Reads one line: a fix, nothing (a header or blank line), or an error.
    public mutating func line(_ bytes: UnsafeBufferPointer<UInt8>, number: Int) -> Result<
        InputRecord?, RecordError
    > {
        let (start, end) = LineBytes.trim(bytes)
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        if headerLines == 0, text == "Geolife trajectory" { headerLines = 1 }
        if headerLines > 0, headerLines <= 6 {
            headerLines += 1
            return .success(nil)
        }
        if text.isEmpty { return .success(nil) }
        let fields = text.split(separator: ",", omittingEmptySubsequences: false)
        func fail(_ field: String?, _ message: String, _ kind: RecordError.Kind) -> Result<
            InputRecord?, RecordError
        > {
            .failure(RecordError(source: source, line: number, field: field, message: message, kind: kind))
        }
        guard fields.count == 7 else {
            return fail(
                nil,
                "a GeoLife line has 7 fields (latitude,longitude,0,altitude,days,date,time); this has \(fields.count)",
                .malformed)
        }
        guard let latitude = Double(fields[0]) else {
            return fail("latitude", "\"\(fields[0])\" is not a number", .invalidCoordinate)
        }
        guard let longitude = Double(fields[1]) else {
            return fail("longitude", "\"\(fields[1])\" is not a number", .invalidCoordinate)
        }
        let coordinate: Coordinate
        do throws(RecordError) {
            coordinate = try LineContext(
                source: source, line: number, zone: LocalZone(.gmt), defaultDeviceId: nil
            )
            .coordinate(
                latitude: latitude, latitudeText: String(fields[0]), latitudeField: "latitude",
                longitude: longitude, longitudeText: String(fields[1]), longitudeField: "longitude")
        } catch {
            return .failure(error)
        }
        guard let feet = Double(fields[3]), feet.isFinite else {
            return fail("altitude", "\"\(fields[3])\" is not a number", .invalidField)
        }
        var time = Array("\(fields[5])T\(fields[6])Z".utf8)
        let seconds = time.withUnsafeMutableBufferPointer {
            TimeText.parse(UnsafeBufferPointer($0), 0, $0.count, zone: LocalZone(.gmt))
        }
        guard let seconds else {
            return fail("date", "\"\(fields[5]),\(fields[6])\" is not a date and time", .invalidField)
        }
        let timestamp: Date
        do throws(RecordError) {
            timestamp = try LineContext(
                source: source, line: number, zone: LocalZone(.gmt), defaultDeviceId: nil
            )
            .date(seconds: seconds, text: "\"\(fields[5]),\(fields[6])\"", field: "date")
        } catch {
            return .failure(error)
        }
        return .success(
            .fix(
                Fix(
                    timestamp: timestamp, coordinate: coordinate,
                    altitude: feet == -777 ? nil : feet * 0.3048, deviceId: deviceId)))
    }
}
