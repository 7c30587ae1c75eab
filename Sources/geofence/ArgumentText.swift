import Foundation

/// Reading option values the user typed: numbers, durations, lists of times of day.
enum ArgumentText {
    /// Takes the value that follows an option, or explains that it is missing.
    static func value(after option: String, in arguments: inout ArraySlice<String>) throws -> String {
        guard let value = arguments.popFirst() else {
            throw CommandError(message: "\(option) needs a value", status: 2)
        }
        return value
    }

    /// A finite number that is not negative.
    static func number(_ text: String, for option: String) throws -> Double {
        guard let value = Double(text), value.isFinite, value >= 0 else {
            throw CommandError(
                message: "\(option) wants a number that is not negative, not '\(text)'", status: 2)
        }
        return value
    }

    /// A duration in seconds: a number of seconds, or a number followed by `s`, `m` or `h`
    /// (`90`, `90s`, `20m`, `1.5h`), so that `--min-stay 20m` reads the way people say it.
    static func seconds(_ text: String, for option: String) throws -> Double {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600]
        var digits = Substring(text)
        var scale = 1.0
        if let last = text.last, let unit = units[last] {
            digits = digits.dropLast()
            scale = unit
        }
        guard let value = Double(digits), value.isFinite, value >= 0 else {
            throw CommandError(
                message: "\(option) wants a duration such as 90, 90s, 20m or 1.5h, not '\(text)'", status: 2)
        }
        return value * scale
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
