import Foundation

/// Reads ISO 8601 times (RFC 3339 profile) from UTF-8 bytes, fast and without a formatter.
///
/// `ISO8601DateFormatter` needs one option set for fractional seconds and another without, and
/// refuses the `yyyy-MM-dd HH:mm:ss` form CSV exports use; a hand-written reader accepts all of
/// them in one pass and costs far less per line, which matters at millions of lines.
///
/// Accepted: `YYYY-MM-DD`, then `T`, `t` or a space, then `hh:mm`, optionally `:ss`, optionally a
/// fraction after `.` or `,` with any number of digits, then optionally `Z`, `z`, `±hh:mm`,
/// `±hhmm` or `±hh`. A time without a zone is read in the given time zone.
enum TimeText {
    /// Seconds since 1970 for the time written in `bytes[start..<end]`, or `nil` if it is not one.
    static func parse(
        _ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, zone: LocalZone
    ) -> Double? {
        var i = start
        func number(_ count: Int) -> Int? {
            guard end - i >= count else { return nil }
            var value = 0
            for _ in 0..<count {
                let byte = bytes[i]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                i += 1
            }
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard i < end, bytes[i] == byte else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect(UInt8(ascii: "-")), let month = number(2),
            expect(UInt8(ascii: "-")), let day = number(2)
        else { return nil }
        guard i < end, [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")].contains(bytes[i]) else {
            return nil
        }
        i += 1
        guard let hour = number(2), expect(UInt8(ascii: ":")), let minute = number(2) else { return nil }
        var second = 0
        var fraction = 0.0
        if expect(UInt8(ascii: ":")) {
            guard let value = number(2) else { return nil }
            second = value
            if i < end, bytes[i] == UInt8(ascii: ".") || bytes[i] == UInt8(ascii: ",") {
                i += 1
                var digits: UInt64 = 0
                var scale = 1.0
                var sawDigit = false
                while i < end, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") {
                    // Beyond 15 digits a Double cannot tell the difference anyway.
                    if scale < 1e15 {
                        digits = digits * 10 + UInt64(bytes[i] - UInt8(ascii: "0"))
                        scale *= 10
                    }
                    sawDigit = true
                    i += 1
                }
                guard sawDigit else { return nil }
                fraction = Double(digits) / scale
            }
        }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour <= 23, minute <= 59, second <= 60
        else { return nil }
        let wallSeconds =
            Double(
                daysFromCivil(year: year, month: month, day: day) * 86_400
                    + hour * 3_600 + minute * 60 + second) + fraction
        if i == end { return wallSeconds - Double(zone.offset(forWallClockSeconds: wallSeconds)) }
        if bytes[i] == UInt8(ascii: "Z") || bytes[i] == UInt8(ascii: "z") {
            return i + 1 == end ? wallSeconds : nil
        }
        guard bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") else { return nil }
        let sign = bytes[i] == UInt8(ascii: "-") ? -1 : 1
        i += 1
        guard let offsetHours = number(2), offsetHours <= 23 else { return nil }
        var offsetMinutes = 0
        if i < end {
            _ = expect(UInt8(ascii: ":"))
            guard let value = number(2), value <= 59 else { return nil }
            offsetMinutes = value
        }
        guard i == end else { return nil }
        return wallSeconds - Double(sign * (offsetHours * 3_600 + offsetMinutes * 60))
    }

    /// Days from 1970-01-01 to the given day of the proleptic Gregorian calendar (Howard
    /// Hinnant's `days_from_civil`), exact for every year a four-digit field can hold.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

/// The time zone a time without an offset is read in, with the common UTC case kept off
/// Foundation's time-zone code.
struct LocalZone: Sendable {
    let timeZone: TimeZone
    private let isUTC: Bool

    init(_ timeZone: TimeZone) {
        self.timeZone = timeZone
        isUTC = ["GMT", "UTC", "Etc/UTC", "Etc/GMT", "Z"].contains(timeZone.identifier)
    }

    /// The zone's offset from UTC, in seconds, at a wall-clock time written as if it were UTC.
    ///
    /// The offset is looked up twice: first at the wall time taken as UTC, then at the instant
    /// that guess gives, which is right everywhere except inside the hour a clock skips or
    /// repeats (there the earlier or later reading is taken, as the zone data decides).
    func offset(forWallClockSeconds wall: Double) -> Int {
        if isUTC { return 0 }
        let guess = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall))
        return timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall - Double(guess)))
    }
}
