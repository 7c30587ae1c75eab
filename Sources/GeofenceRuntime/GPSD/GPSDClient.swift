import CGPS
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A connection to gpsd through libgps, reading its TPV (time-position-velocity) reports.
/// Only this file touches libgps.
final class GPSDClient {
    /// One position report.
    struct Report: Sendable, Equatable {
        /// When the receiver took the fix.
        var date: Date
        var latitude: Double
        var longitude: Double
        /// Metres above mean sea level, for a 3D fix.
        var altitude: Double?
        /// The estimated horizontal error, metres.
        var accuracyMeters: Double?
        /// Metres a second.
        var speed: Double?
        /// Degrees from true north.
        var course: Double?
    }

    /// What ``next(timeoutSeconds:)`` found.
    enum Reading: Equatable {
        case report(Report)
        /// Nothing with a position within the timeout.
        case nothing
        /// gpsd closed the connection (it stopped or restarted).
        case gone
    }

    private let handle: OpaquePointer

    /// Throws why libgps (loaded on first use) cannot be used on this machine: a `run --gpsd`
    /// without it stops at its start rather than retrying a connection that cannot be made.
    static func checkLibrary() throws(GPSDError) {
        if let unavailable = geofence_gps_load() {
            throw GPSDError("cannot use gpsd: \(String(cString: unavailable))")
        }
    }

    /// Connects to gpsd at `host`:`port` and asks for reports. Throws a readable reason.
    init(host: String, port: Int) throws(GPSDError) {
        try GPSDClient.checkLibrary()
        var error: Int32 = 0
        // NULL with error set when gpsd cannot be reached or refuses the watch.
        guard let opened = geofence_gps_open(host, String(port), &error) else {
            throw GPSDError(
                "cannot reach gpsd at \(host):\(port): \(String(cString: geofence_gps_error_text(error)))")
        }
        handle = opened
    }

    deinit { geofence_gps_close(handle) }

    /// Waits up to `timeoutSeconds` for the next report with a position.
    func next(timeoutSeconds: Double) -> Reading {
        var raw = geofence_gps_report()
        switch geofence_gps_next(handle, Int32(timeoutSeconds * 1_000_000), &raw) {
        case 1:
            func known(_ value: Double) -> Double? { value.isFinite ? value : nil }
            return .report(
                Report(
                    date: Date(timeIntervalSince1970: raw.seconds), latitude: raw.latitude,
                    longitude: raw.longitude, altitude: known(raw.altitude),
                    accuracyMeters: known(raw.accuracy),
                    speed: known(raw.speed), course: known(raw.course)))
        case -1: return .gone
        default: return .nothing
        }
    }
}

/// gpsd cannot be reached or used.
struct GPSDError: Error, CustomStringConvertible, Equatable {
    /// What went wrong.
    var message: String
    init(_ message: String) { self.message = message }
    /// The message.
    var description: String { message }
}
