import Foundation
import GeofenceInput
import GeofenceRules

/// The readers of option values: each takes the text the user wrote and returns the value, or a
/// ``ValueError`` saying what was expected (the option's name is added by the parser).
enum ValueParser {
    /// The text as given.
    @Sendable static func text(_ text: String) throws(ValueError) -> String { text }

    /// A finite number that is not negative (`150`, `2.5`).
    @Sendable static func number(_ text: String) throws(ValueError) -> Double {
        guard let value = Double(text), value.isFinite, value >= 0 else {
            throw ValueError(expected: "a number that is not negative")
        }
        return value
    }

    /// A whole number of at least 1 (`--limit 20`).
    @Sendable static func count(_ text: String) throws(ValueError) -> Int {
        guard let value = Int(text), value >= 1 else {
            throw ValueError(expected: "a whole number of at least 1")
        }
        return value
    }

    /// A whole number of at least 0.
    @Sendable static func wholeNumber(_ text: String) throws(ValueError) -> Int {
        guard let value = Int(text), value >= 0 else { throw ValueError(expected: "a whole number") }
        return value
    }

    /// A duration in the rules file's grammar (``DurationText/parse(_:)``): `90`, `90s`, `20m`,
    /// `1h30m`, `1.5h`, `90d`.
    @Sendable static func duration(_ text: String) throws(ValueError) -> Double {
        guard let seconds = DurationText.parse(text), seconds >= 0 else {
            throw ValueError(expected: "a duration such as 90s, 20m, 1h30m or 90d")
        }
        return seconds
    }

    /// A time zone by its IANA identifier (`Europe/London`), or `UTC`; a near miss is suggested
    /// (`europe/london`, `London`, `Europe/Londn`).
    @Sendable static func timeZone(_ text: String) throws(ValueError) -> TimeZone {
        if let zone = TimeZone(identifier: text) { return zone }
        let known = TimeZone.knownTimeZoneIdentifiers + ["UTC"]
        throw ValueError(
            expected: "a time zone such as Europe/London or UTC",
            suggestion: Suggestion.closest(to: text, among: known))
    }

    /// An input format by name.
    @Sendable static func format(_ text: String) throws(ValueError) -> InputFormat {
        if let format = InputFormat(rawValue: text) { return format }
        let names = InputFormat.allCases.map(\.rawValue)
        throw ValueError(
            expected: "one of " + names.joined(separator: ", "),
            suggestion: Suggestion.closest(to: text, among: names))
    }
}

extension ValueParser {
    /// A moment: ISO 8601 with an offset (`2026-03-03T07:00:00Z`, `2026-03-03T08:00:00.5+01:00`),
    /// or a date alone (`2026-03-03`), which means its midnight in `timeZone`. Read after the
    /// options, because the zone may be given after the date.
    static func date(_ text: String, for option: String, timeZone: TimeZone, command: String) throws -> Date {
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
        throw CommandError.usage(
            "\(option) wants a date such as 2026-03-03 or 2026-03-03T07:00:00Z, not '\(text)'",
            command: command)
    }
}
