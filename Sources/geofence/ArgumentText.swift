import Foundation
import GeofenceInput

/// Reading option values the user typed: numbers, durations, lists of times of day.
enum ArgumentText {
    /// Takes the value that follows an option, or explains that it is missing.
    static func value(after option: String, in arguments: inout ArraySlice<String>) throws -> String {
        guard let value = arguments.popFirst() else {
            throw CommandError(message: "\(option) needs a value", status: 2)
        }
        return value
    }

    /// A time zone named by its identifier (`Europe/London`).
    static func timeZone(after option: String, in arguments: inout ArraySlice<String>) throws -> TimeZone {
        let name = try value(after: option, in: &arguments)
        guard let zone = TimeZone(identifier: name) else {
            throw CommandError(message: "unknown time zone '\(name)'", status: 2)
        }
        return zone
    }

    /// An input format by name.
    static func format(after option: String, in arguments: inout ArraySlice<String>) throws -> InputFormat {
        let text = try value(after: option, in: &arguments)
        guard let format = InputFormat(rawValue: text) else {
            let names = InputFormat.allCases.map(\.rawValue).joined(separator: ", ")
            throw CommandError(message: "\(option) wants one of \(names), not '\(text)'", status: 2)
        }
        return format
    }

    /// A finite number that is not negative.
    static func number(_ text: String, for option: String) throws -> Double {
        guard let value = Double(text), value.isFinite, value >= 0 else {
            throw CommandError(
                message: "\(option) wants a number that is not negative, not '\(text)'", status: 2)
        }
        return value
    }

    /// A duration in seconds: a number of seconds, or a number followed by `s`, `m`, `h` or `d`
    /// (`90`, `90s`, `20m`, `1.5h`, `90d`), so that `--min-stay 20m` reads the way people say it.
    static func seconds(_ text: String, for option: String) throws -> Double {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        var digits = Substring(text)
        var scale = 1.0
        if let last = text.last, let unit = units[last] {
            digits = digits.dropLast()
            scale = unit
        }
        guard let value = Double(digits), value.isFinite, value >= 0 else {
            throw CommandError(
                message: "\(option) wants a duration such as 90, 90s, 20m, 1.5h or 90d, not '\(text)'",
                status: 2)
        }
        return value * scale
    }
}

extension ArgumentText {
    /// A whole number of at least 1, such as the `--limit` of a listing.
    static func count(_ text: String, for option: String) throws -> Int {
        guard let value = Int(text), value >= 1 else {
            throw CommandError(
                message: "\(option) wants a whole number of at least 1, not '\(text)'", status: 2)
        }
        return value
    }

    /// A moment: ISO 8601 with an offset (`2026-03-03T07:00:00Z`, `2026-03-03T08:00:00.5+01:00`), or
    /// a date alone (`2026-03-03`), which means its midnight in `timeZone`.
    static func date(_ text: String, for option: String, timeZone: TimeZone) throws -> Date {
        let withFraction = ISO8601DateFormatter()
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let whole = ISO8601DateFormatter()
        whole.formatOptions = [.withInternetDateTime]
        if let date = whole.date(from: text) ?? withFraction.date(from: text) { return date }
        let day = DateFormatter()
        day.locale = Locale(identifier: "en_US_POSIX")
        day.timeZone = timeZone
        day.dateFormat = "yyyy-MM-dd"
        day.isLenient = false
        if text.count == 10, let date = day.date(from: text) { return date }
        throw CommandError(
            message: "\(option) wants a date such as 2026-03-03 or 2026-03-03T07:00:00Z, not '\(text)'",
            status: 2)
    }
}

/// ISO 8601 text for the times the command line writes.
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
}

extension TimeText {
    /// A date as a person reads it in a listing: `2026-03-03 08:00:05` in `timeZone`.
    static func local(_ date: Date, in timeZone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date)
    }

    /// `0:42` for forty-two minutes, `1:05:30` once it is over an hour with seconds, rounded to seconds.
    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let hours = total / 3600, minutes = (total % 3600) / 60, rest = total % 60
        return hours > 0
            ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%d:%02d", minutes, rest)
    }
}

/// Pads a table cell to `width` characters, keeping at least one space after it.
func tableCell(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text.padding(toLength: width, withPad: " ", startingAt: 0)
}
