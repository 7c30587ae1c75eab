public import Foundation

/// Writes dates as ISO 8601 in a time zone, as `ISO8601DateFormatter` does with
/// `.withInternetDateTime` (and `.withFractionalSeconds` when a date has milliseconds), for loops
/// that write one per line.
///
/// `ISO8601DateFormatter` costs several microseconds to build and more to use; `simulate day` at a
/// fix a second spent most of its time there. This writer does the calendar arithmetic itself and
/// asks the time zone for its offset only when a date leaves the span the last offset holds for
/// (a daylight-saving change), so a day of lines costs a few milliseconds.
public struct ISO8601Writer: Sendable {
    /// The zone the dates are written in.
    public let timeZone: TimeZone
    private var offsetSeconds = 0
    /// The span of dates for which `offsetSeconds` is known to hold.
    private var offsetFrom = Date.distantFuture
    private var offsetUntil = Date.distantPast

    /// A writer for dates in `timeZone`.
    public init(timeZone: TimeZone) { self.timeZone = timeZone }

    /// The date as ISO 8601 with the zone's offset (`Z` when it is zero), with milliseconds only
    /// when the date has any: `2026-03-03T07:00:00Z`, `2026-03-03T08:00:00.250+01:00`.
    public mutating func string(_ date: Date) -> String {
        if date < offsetFrom || date >= offsetUntil {
            offsetSeconds = timeZone.secondsFromGMT(for: date)
            offsetFrom = date
            offsetUntil = timeZone.nextDaylightSavingTimeTransition(after: date) ?? .distantFuture
        }
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        let fraction = Int(milliseconds.truncatingRemainder(dividingBy: 1000))
        let whole = fraction == 0
        // Whole seconds are written as the formatter writes them: the second the date falls in.
        let seconds =
            whole
            ? Int(date.timeIntervalSince1970.rounded(.down))
            : Int((milliseconds / 1000).rounded(.down))
        let local = seconds + offsetSeconds
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let secondOfDay = local - days * 86_400
        let (year, month, day) = ISO8601Writer.civil(daysSince1970: days)

        var bytes: [UInt8] = []
        bytes.reserveCapacity(30)
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }
        if year < 0 || year > 9999 || offsetSeconds % 60 != 0 {
            // Years outside four digits, or an offset in seconds (local mean time before 1900):
            // rare enough to leave to the formatter.
            let formatter = ISO8601DateFormatter()
            formatter.timeZone = timeZone
            formatter.formatOptions =
                whole ? [.withInternetDateTime] : [.withInternetDateTime, .withFractionalSeconds]
            return formatter.string(from: date)
        }
        digits(year, 4)
        bytes.append(UInt8(ascii: "-"))
        digits(month, 2)
        bytes.append(UInt8(ascii: "-"))
        digits(day, 2)
        bytes.append(UInt8(ascii: "T"))
        digits(secondOfDay / 3600, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(secondOfDay / 60 % 60, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(secondOfDay % 60, 2)
        if !whole {
            bytes.append(UInt8(ascii: "."))
            digits((fraction + 1000) % 1000, 3)
        }
        if offsetSeconds == 0 {
            bytes.append(UInt8(ascii: "Z"))
        } else {
            bytes.append(offsetSeconds < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            let minutes = abs(offsetSeconds) / 60
            digits(minutes / 60, 2)
            bytes.append(UInt8(ascii: ":"))
            digits(minutes % 60, 2)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's
    /// civil_from_days).
    static func civil(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
