import Foundation
import Geofence

/// Reads NMEA 0183 sentences (a receiver's log, GPSLogger's `.nmea` files, `gpsfake` input) into
/// fixes, a line at a time.
///
/// A receiver reports each moment (epoch) in several sentences that share its time of day:
/// `RMC` has the position, the date, speed (knots) and course, and says whether the receiver had a
/// fix (`A`) or not (`V`); `GGA` has the position, the fix quality (0 is none) and the altitude
/// above mean sea level; `ZDA` has the date. Sentences of one epoch are merged into one fix, given
/// when the next epoch begins (or at the end), so a log with both RMC and GGA gives one fix per
/// second, not two. Any talker is read (`GP`, `GN`, `GL`, `GA`, `GB`, `BD`); other sentences
/// (`GSA`, `GSV`, `VTG`, proprietary ones) carry no position and are skipped.
///
/// Only RMC and ZDA carry a date. GGA-only epochs take the date of the last one seen, moved to the
/// next day when the time of day goes back by more than twelve hours (midnight passed); a GGA
/// before any date is reported, as its day cannot be known. A sentence whose checksum (`*hh`, the
/// XOR of the bytes between `$` and `*`) does not match is an error, as is a field that cannot be
/// read. NMEA has no accuracy in metres (HDOP is a unitless factor), so fixes have none, as for
/// GPX.
public struct NMEAReader: Sendable {
    /// The name of the source, for errors.
    public let source: String
    /// The device for the fixes.
    public let deviceId: String?

    /// The epoch being gathered.
    private struct Epoch {
        var timeOfDay: Double
        var line: Int
        var dayNumber: Int?
        var coordinate: Coordinate?
        var altitude: Double?
        var speed: Double?
        var course: Double?
        /// Why the receiver said it had no fix, if it did.
        var noFix: String?
    }

    private var epoch: Epoch?
    /// Days since 1970 and time of day of the last dated epoch, to date GGA-only epochs.
    private var lastDay: Int?
    private var lastTimeOfDay = 0.0

    /// Makes a reader for one source.
    public init(source: String, deviceId: String? = nil) {
        self.source = source
        self.deviceId = deviceId
    }

    /// Whether a line looks like an NMEA sentence: `$`, a talker and a sentence name, a comma.
    public static func looksLikeOne(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let (start, end) = LineBytes.trim(bytes)
        guard end - start >= 7, bytes[start] == UInt8(ascii: "$") else { return false }
        return (start + 1..<start + 6).allSatisfy { isUpperOrDigit(bytes[$0]) }
            && bytes[start + 6] == UInt8(ascii: ",")
    }

    private static func isUpperOrDigit(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    /// Reads one line; records of the epoch it closes, and its own errors, go to `emit`.
    public mutating func line(
        _ bytes: UnsafeBufferPointer<UInt8>, number: Int, _ emit: (Result<InputRecord, RecordError>) -> Void
    ) {
        let (start, end) = LineBytes.trim(bytes)
        if start == end { return }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        do throws(RecordError) {
            try sentence(text, number: number, emit)
        } catch {
            emit(.failure(error))
        }
    }

    /// Ends the log: the last epoch is given.
    public mutating func finish(_ emit: (Result<InputRecord, RecordError>) -> Void) {
        flush(emit)
    }

    private func fail(_ number: Int, _ field: String?, _ message: String, _ kind: RecordError.Kind)
        -> RecordError
    {
        RecordError(source: source, line: number, field: field, message: message, kind: kind)
    }

    private mutating func sentence(
        _ text: String, number: Int, _ emit: (Result<InputRecord, RecordError>) -> Void
    ) throws(RecordError) {
        guard text.hasPrefix("$") else {
            throw fail(number, nil, "not an NMEA sentence (they start with $)", .unrecognized)
        }
        var body = Substring(text.dropFirst())
        if let star = body.lastIndex(of: "*") {
            let written = body[body.index(after: star)...]
            body = body[..<star]
            let sum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
            guard let expected = UInt8(written, radix: 16) else {
                throw fail(number, nil, "checksum \"\(written)\" is not two hexadecimal digits", .malformed)
            }
            guard expected == sum else {
                throw fail(
                    number, nil,
                    "checksum \(written) does not match the sentence (\(String(format: "%02X", sum))): it was damaged",
                    .malformed)
            }
        }
        let fields = body.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard let address = fields.first, address.count == 5 else { return }
        let type = address.suffix(3)
        switch type {
        case "RMC": try rmc(fields, number: number, emit)
        case "GGA": try gga(fields, number: number, emit)
        case "ZDA": try zda(fields, number: number, emit)
        default: return
        }
    }

    /// `$--RMC,hhmmss.ss,A,llll.ll,a,yyyyy.yy,a,speed,course,ddmmyy,...`
    private mutating func rmc(
        _ fields: [String], number: Int, _ emit: (Result<InputRecord, RecordError>) -> Void
    ) throws(RecordError) {
        guard fields.count >= 10 else {
            throw fail(number, nil, "an RMC sentence has 12 or more fields", .malformed)
        }
        let time = try timeOfDay(fields[1], number: number, sentence: "RMC")
        begin(time, number: number, emit)
        let day = try date(fields[9], number: number)
        epoch?.dayNumber = day
        if fields[2] != "A" {
            epoch?.noFix = "the receiver had no fix (RMC status \(fields[2].isEmpty ? "empty" : fields[2]))"
            return
        }
        let coordinate = try coordinate(fields, 3, number: number, sentence: "RMC")
        let knots = try self.number(fields[7], "RMC speed", number: number)
        let course = try self.number(fields[8], "RMC course", number: number)
        // RMC's position wins over GGA's: both are the same fix, and RMC carries the date.
        epoch?.coordinate = coordinate
        epoch?.speed = knots.map { $0 * 1852 / 3600 }
        epoch?.course = course
        epoch?.noFix = nil
    }

    /// `$--GGA,hhmmss.ss,llll.ll,a,yyyyy.yy,a,quality,satellites,hdop,altitude,M,...`
    private mutating func gga(
        _ fields: [String], number: Int, _ emit: (Result<InputRecord, RecordError>) -> Void
    ) throws(RecordError) {
        guard fields.count >= 10 else {
            throw fail(number, nil, "a GGA sentence has 14 or more fields", .malformed)
        }
        let time = try timeOfDay(fields[1], number: number, sentence: "GGA")
        begin(time, number: number, emit)
        if fields[6].isEmpty || fields[6] == "0" {
            if epoch?.coordinate == nil, epoch?.noFix == nil {
                epoch?.noFix = "the receiver had no fix (GGA quality 0)"
            }
            return
        }
        let coordinate = try coordinate(fields, 2, number: number, sentence: "GGA")
        let altitude = try self.number(fields[9], "GGA altitude", number: number)
        if epoch?.coordinate == nil { epoch?.coordinate = coordinate }
        epoch?.noFix = nil
        epoch?.altitude = altitude
    }

    /// `$--ZDA,hhmmss.ss,dd,mm,yyyy,...`
    private mutating func zda(
        _ fields: [String], number: Int, _ emit: (Result<InputRecord, RecordError>) -> Void
    ) throws(RecordError) {
        guard fields.count >= 5 else { throw fail(number, nil, "a ZDA sentence has 7 fields", .malformed) }
        let time = try timeOfDay(fields[1], number: number, sentence: "ZDA")
        guard let day = Int(fields[2]), let month = Int(fields[3]), let year = Int(fields[4]),
            (1...12).contains(month), day >= 1, day <= TimeText.daysIn(month: month, year: year)
        else {
            throw fail(
                number, "ZDA date", "\"\(fields[2]),\(fields[3]),\(fields[4])\" is not a date", .invalidField)
        }
        begin(time, number: number, emit)
        epoch?.dayNumber = TimeText.daysFromCivil(year: year, month: month, day: day)
    }

    /// Starts gathering the epoch at `time`, giving the one before if it was another.
    private mutating func begin(
        _ time: Double, number: Int, _ emit: (Result<InputRecord, RecordError>) -> Void
    ) {
        if let current = epoch, current.timeOfDay == time { return }
        flush(emit)
        epoch = Epoch(timeOfDay: time, line: number)
    }

    private mutating func flush(_ emit: (Result<InputRecord, RecordError>) -> Void) {
        guard let current = epoch else { return }
        epoch = nil
        var day = current.dayNumber
        if day == nil, let lastDay {
            day = current.timeOfDay < lastTimeOfDay - 43_200 ? lastDay + 1 : lastDay
        }
        if let day {
            lastDay = day
            lastTimeOfDay = current.timeOfDay
        }
        if let reason = current.noFix {
            emit(.success(.ignored(kind: "nmea", reason: "\(source):\(current.line): \(reason)")))
            return
        }
        guard let coordinate = current.coordinate else { return }
        guard let day else {
            emit(
                .failure(
                    fail(
                        current.line, nil,
                        "a position without a date: no RMC or ZDA sentence has given one yet",
                        .missingField)))
            return
        }
        let seconds = Double(day) * 86_400 + current.timeOfDay
        let timestamp: Date
        do throws(RecordError) {
            timestamp = try LineContext(
                source: source, line: current.line, zone: LocalZone(.gmt), defaultDeviceId: nil
            )
            .date(seconds: seconds, text: "the epoch's date and time", field: nil)
        } catch {
            emit(.failure(error))
            return
        }
        emit(
            .success(
                .fix(
                    Fix(
                        timestamp: timestamp,
                        coordinate: coordinate, altitude: current.altitude, speed: current.speed,
                        course: current.course, deviceId: deviceId))))
    }

    private func timeOfDay(_ text: String, number: Int, sentence: String) throws(RecordError) -> Double {
        let utf8 = Array(text.utf8)
        func digits(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= utf8.count else { return nil }
            var value = 0
            for index in range {
                guard utf8[index] >= UInt8(ascii: "0"), utf8[index] <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(utf8[index] - UInt8(ascii: "0"))
            }
            return value
        }
        guard let hour = digits(0..<2), let minute = digits(2..<4), let second = digits(4..<6), hour < 24,
            minute < 60, second <= 60
        else {
            throw fail(number, "\(sentence) time", "\"\(text)\" is not a time of day hhmmss", .invalidField)
        }
        var fraction = 0.0
        if utf8.count > 6 {
            guard utf8[6] == UInt8(ascii: "."), let value = Double("0" + text.dropFirst(6)) else {
                throw fail(
                    number, "\(sentence) time", "\"\(text)\" is not a time of day hhmmss", .invalidField)
            }
            fraction = value
        }
        return Double(hour * 3600 + minute * 60 + second) + fraction
    }

    /// Days since 1970 from `ddmmyy`; two-digit years are 1980-2079, as GPS time began in 1980.
    private func date(_ text: String, number: Int) throws(RecordError) -> Int? {
        if text.isEmpty { return nil }
        guard text.count == 6, let value = Int(text) else {
            throw fail(number, "RMC date", "\"\(text)\" is not a date ddmmyy", .invalidField)
        }
        let day = value / 10_000
        let month = value / 100 % 100
        let short = value % 100
        let year = short >= 80 ? 1900 + short : 2000 + short
        guard (1...12).contains(month), day >= 1, day <= TimeText.daysIn(month: month, year: year) else {
            throw fail(number, "RMC date", "\"\(text)\" is not a date ddmmyy", .invalidField)
        }
        return TimeText.daysFromCivil(year: year, month: month, day: day)
    }

    private func number(_ text: String, _ field: String, number: Int) throws(RecordError) -> Double? {
        if text.isEmpty { return nil }
        guard let value = Double(text), value.isFinite else {
            throw fail(number, field, "\"\(text)\" is not a number", .invalidField)
        }
        return value
    }

    /// Degrees from `ddmm.mmmm` / `dddmm.mmmm` and a hemisphere letter, at `fields[index...]`.
    private func coordinate(_ fields: [String], _ index: Int, number: Int, sentence: String)
        throws(RecordError)
        -> Coordinate
    {
        func degrees(
            _ text: String, _ hemisphere: String, _ field: String, positive: String, negative: String
        )
            throws(RecordError) -> Double
        {
            guard let value = Double(text), value >= 0, value.truncatingRemainder(dividingBy: 100) < 60 else {
                throw fail(
                    number, field, "\"\(text)\" is not degrees and minutes (ddmm.mmmm)", .invalidCoordinate)
            }
            let whole = (value / 100).rounded(.down)
            let result = whole + (value - whole * 100) / 60
            switch hemisphere {
            case positive: return result
            case negative: return -result
            default:
                throw fail(
                    number, field, "hemisphere \"\(hemisphere)\" is not \(positive) or \(negative)",
                    .invalidCoordinate)
            }
        }
        let latitude = try degrees(
            fields[index], fields[index + 1], "\(sentence) latitude", positive: "N", negative: "S")
        let longitude = try degrees(
            fields[index + 2], fields[index + 3], "\(sentence) longitude", positive: "E", negative: "W")
        let context = LineContext(source: source, line: number, zone: LocalZone(.gmt), defaultDeviceId: nil)
        return try context.coordinate(
            latitude: latitude, latitudeText: fields[index], latitudeField: "\(sentence) latitude",
            longitude: longitude, longitudeText: fields[index + 2], longitudeField: "\(sentence) longitude")
    }
}
