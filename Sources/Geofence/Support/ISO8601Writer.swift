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

    /// The date in UTC with milliseconds always written, `2026-03-03T08:00:42.109Z`: the engine's
    /// own form for every time it writes (events, the outbox, hook input).
    ///
    /// The millisecond is the nearest one, so a time read as Unix milliseconds is written back as
    /// the same millisecond. (Foundation's `ISO8601FormatStyle` truncates a binary fraction such as
    /// 0.108999... to `.108`, writing about one time in five a millisecond early; it was the
    /// engine's formatter until it showed up as most of the cost of writing events.)
    public static func utcMilliseconds(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        // Outside years 1-9999 (never produced by bounded input; distantPast and distantFuture
        // are inside) the four-digit form cannot hold the year: write what the value is.
        guard interval.isFinite, abs(interval) < yearTenThousand else { return "\(interval)" }
        // Before the Gregorian calendar began (15 October 1582) Foundation's calendar is the
        // Julian one: such dates (`distantPast`, "unknown") are written as Foundation writes them.
        guard interval >= gregorianStart else {
            return date.formatted(
                .iso8601.year().month().day().time(includingFractionalSeconds: true)
                    .timeZone(separator: .omitted))
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: utcMillisecondsLength) { buffer in
            writeUTCMilliseconds(interval, into: buffer)
            return String(decoding: UnsafeBufferPointer(buffer), as: UTF8.self)
        }
    }

    /// How many bytes ``writeUTCMilliseconds(_:into:)`` writes: `2026-03-03T08:00:42.109Z`.
    public static let utcMillisecondsLength = 24
    /// Unix seconds of the start of year 10000, which the four-digit form cannot hold.
    private static let yearTenThousand = 253_402_300_800.0
    /// Unix seconds of 15 October 1582, the first day of the Gregorian calendar.
    private static let gregorianStart = -12_219_292_800.0

    /// Writes the ``utcMillisecondsLength`` bytes ``utcMilliseconds(_:)`` would write at the start
    /// of `buffer` (a line being written in place); `false`, with nothing written, for a date it
    /// writes some other way, or a buffer too short to hold them.
    public static func writeUTCMilliseconds(_ date: Date, into buffer: UnsafeMutableBufferPointer<UInt8>)
        -> Bool
    {
        let interval = date.timeIntervalSince1970
        guard interval.isFinite, abs(interval) < yearTenThousand, interval >= gregorianStart,
            buffer.count >= utcMillisecondsLength
        else { return false }
        writeUTCMilliseconds(interval, into: buffer)
        return true
    }

    /// Writes the ``utcMillisecondsLength`` bytes of an interval inside the years both callers
    /// checked for.
    private static func writeUTCMilliseconds(
        _ interval: TimeInterval, into buffer: UnsafeMutableBufferPointer<UInt8>
    ) {
        let milliseconds = Int((interval * 1000).rounded())
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let fraction = milliseconds - seconds * 1000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(daysSince1970: days)
        guard let out = buffer.baseAddress else { return }
        // Two digits at a time, from a table of the hundred pairs: a digit at a time, by
        // division, was most of the cost of writing an event's two times.
        twoDigitPairs.withUTF8Buffer { pairs in
            guard let pairs = pairs.baseAddress else { return }
            @inline(__always) func put(_ value: Int, at offset: Int) {
                let pair = pairs + 2 * value
                out[offset] = pair[0]
                out[offset + 1] = pair[1]
            }
            put(year / 100, at: 0)
            put(year % 100, at: 2)
            out[4] = UInt8(ascii: "-")
            put(month, at: 5)
            out[7] = UInt8(ascii: "-")
            put(day, at: 8)
            out[10] = UInt8(ascii: "T")
            put(secondOfDay / 3600, at: 11)
            out[13] = UInt8(ascii: ":")
            put(secondOfDay / 60 % 60, at: 14)
            out[16] = UInt8(ascii: ":")
            put(secondOfDay % 60, at: 17)
            out[19] = UInt8(ascii: ".")
            put(fraction / 10, at: 20)
            out[22] = UInt8(ascii: "0") + UInt8(fraction % 10)
            out[23] = UInt8(ascii: "Z")
        }
    }

    /// "00" to "99", each pair at twice its value.
    private static let twoDigitPairs: StaticString =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

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
