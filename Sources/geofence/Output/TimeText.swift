import Foundation
import GeofenceRules

/// Times and durations as the command line writes them.
enum TimeText {
    /// A date as ISO 8601 in a time zone, with milliseconds only when the date has any
    /// (`2026-03-03T07:00:00Z`, `2026-03-03T08:00:00.250+01:00`).
    static func iso8601(_ date: Date, in timeZone: TimeZone = .gmt) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = timeZone
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        let whole = milliseconds.truncatingRemainder(dividingBy: 1000) == 0
        formatter.formatOptions =
            whole ? [.withInternetDateTime] : [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// A date as a person reads it in a listing: `2026-03-03 08:00:05` in `timeZone` (which the
    /// table's header names).
    static func local(_ date: Date, in timeZone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date)
    }

    /// A duration in the one display format: `19s`, `23m28s`, `1h01m` (``DurationText/display(_:)``).
    static func duration(_ seconds: Double) -> String {
        DurationText.display(seconds)
    }
}
