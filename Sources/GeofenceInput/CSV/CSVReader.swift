public import Foundation
import Geofence

/// Reads CSV rows into fixes, one line at a time; the first line that names latitude,
/// longitude and time columns is the header.
///
/// Header names are matched without regard to case, spaces, underscores, hyphens and dots, with
/// common aliases (see the README's "Input formats"). The delimiter (`,`, `;` or tab) is taken
/// from the header. Lines before a usable header are reported as errors and the next line is
/// tried as the header, so a title line above the header costs one error, not the file.
public struct CSVReader: Sendable, LineRecordDecoder {
    /// The name of the source, used in errors.
    public let source: String
    /// The zone for times written without an offset.
    public let timeZone: TimeZone
    /// The device to give fixes whose row names none.
    public let deviceId: String?
    /// The source and zone every row's context shares.
    private let origin: LineContext.Origin
    private var header: CSVHeader?

    /// Makes a reader for one CSV source.
    public init(source: String, timeZone: TimeZone = .gmt, deviceId: String? = nil) {
        self.source = source
        self.timeZone = timeZone
        self.deviceId = deviceId
        self.origin = LineContext.Origin(source: source, zone: LocalZone(timeZone))
    }

    /// Whether a header has been read, so that rows are being read as fixes.
    public var hasHeader: Bool { header != nil }

    /// Reads one line from a buffer that is only valid for the call.
    public mutating func decode(bytes: UnsafeBufferPointer<UInt8>, number: Int) -> Result<
        InputRecord?, RecordError
    > {
        let (start, end) = LineBytes.trim(bytes)
        if start == end || bytes[start] == UInt8(ascii: "#") { return .success(nil) }
        let context = LineContext(origin: origin, line: number, defaultDeviceId: deviceId)
        guard let header else {
            if let found = CSVHeader(bytes, start, end) {
                self.header = found
                return .success(nil)
            }
            return .failure(
                context.error(
                    "no CSV header naming latitude, longitude and time columns has been read yet",
                    kind: .unrecognized))
        }
        do throws(RecordError) {
            return .success(try row(bytes, start, end, header: header, context: context))
        } catch {
            return .failure(error)
        }
    }

    /// Reads a line as a header if it is one; used by auto-detection before any JSON is tried.
    mutating func adoptHeader(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        guard let found = CSVHeader(bytes, start, end) else { return false }
        header = found
        return true
    }

    private func row(
        _ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, header: CSVHeader, context: LineContext
    ) throws(RecordError) -> InputRecord? {
        guard let cells = CSVCells.split(bytes, start, end, delimiter: header.delimiter) else {
            throw context.error("a quoted value is not closed", kind: .malformed)
        }
        if LineBytes.isHeaderAgain(cells, bytes, header) { return nil }
        let needed = (header.indices.values.max() ?? 0) + 1
        guard cells.count >= needed else {
            throw context.error(
                "has \(cells.count) values; the header needs at least \(needed)", kind: .malformed)
        }
        func cell(_ column: CSVHeader.Column) -> (cell: CSVCell, name: String)? {
            guard let index = header.indices[column] else { return nil }
            let cell = cells[index]
            return cell.start == cell.end ? nil : (cell, header.names[index])
        }
        func number(_ column: CSVHeader.Column) throws(RecordError) -> Double? {
            guard let (cell, name) = cell(column) else { return nil }
            if let value = CSVNumbers.parse(bytes, cell, delimiter: header.delimiter) { return value }
            throw context.error(field: name, "\"\(cell.text(bytes))\" is not a number", kind: .invalidField)
        }
        guard let latitude = try number(.latitude), let (latitudeCell, latitudeName) = cell(.latitude) else {
            throw context.error(
                field: header.names[header.indices[.latitude] ?? 0], "missing", kind: .missingField)
        }
        guard let longitude = try number(.longitude), let (longitudeCell, longitudeName) = cell(.longitude)
        else {
            throw context.error(
                field: header.names[header.indices[.longitude] ?? 0], "missing", kind: .missingField)
        }
        let coordinate = try context.coordinate(
            latitude: latitude, latitudeText: latitudeCell.text(bytes), latitudeField: latitudeName,
            longitude: longitude, longitudeText: longitudeCell.text(bytes), longitudeField: longitudeName)
        guard let (timeCell, timeName) = cell(.time) else {
            throw context.error(
                field: header.names[header.indices[.time] ?? 0], "missing", kind: .missingField)
        }
        guard let seconds = CSVNumbers.time(bytes, timeCell, zone: context.zone) else {
            throw context.error(
                field: timeName,
                "\"\(timeCell.text(bytes))\" is neither an ISO 8601 time, \"yyyy-MM-dd HH:mm:ss\" nor Unix seconds or milliseconds",
                kind: .invalidField)
        }
        func finiteOrNil(_ column: CSVHeader.Column) throws(RecordError) -> Double? {
            guard let value = try number(column) else { return nil }
            return value.isFinite ? value : nil
        }
        return .fix(
            Fix(
                timestamp: try context.date(
                    seconds: seconds, text: "\"\(timeCell.text(bytes))\"", field: timeName),
                coordinate: coordinate,
                horizontalAccuracy: Units.accuracy(try finiteOrNil(.accuracy)),
                altitude: try finiteOrNil(.altitude),
                speed: try finiteOrNil(.speed),
                course: try finiteOrNil(.course),
                deviceId: cell(.device).map { $0.cell.text(bytes) } ?? context.defaultDeviceId))
    }
}

/// Numbers and times in CSV cells.
enum CSVNumbers {
    /// A number; a decimal comma (`47,05`) is read as a point in a file not separated by commas,
    /// and in a quoted cell of one that is (GPSLogger in a German locale writes `"47,3769"`: the
    /// quotes say the comma belongs to the value).
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, _ cell: CSVCell, delimiter: UInt8) -> Double? {
        if let value = NumberText.parse(bytes, cell.start, cell.end) { return value }
        guard delimiter != UInt8(ascii: ",") || cell.quoted else { return nil }
        var copy = Array(UnsafeBufferPointer(rebasing: bytes[cell.start..<cell.end]))
        guard copy.filter({ $0 == UInt8(ascii: ",") }).count == 1, !copy.contains(UInt8(ascii: ".")) else {
            return nil
        }
        for index in copy.indices where copy[index] == UInt8(ascii: ",") { copy[index] = UInt8(ascii: ".") }
        return copy.withUnsafeBufferPointer { NumberText.parse($0, 0, $0.count) }
    }

    /// Seconds since 1970: a number is Unix seconds, or milliseconds from 10^11 up (10^11
    /// seconds is the year 5138, 10^11 milliseconds is 1973); text is ISO 8601 or
    /// `yyyy-MM-dd HH:mm:ss`, read in `zone` when it has no offset.
    static func time(_ bytes: UnsafeBufferPointer<UInt8>, _ cell: CSVCell, zone: LocalZone) -> Double? {
        let isNumeric =
            (cell.start..<cell.end).allSatisfy {
                let byte = bytes[$0]
                return (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: ".")
                    || byte == UInt8(ascii: "-")
            } && bytes[cell.start] != UInt8(ascii: ".")
        if isNumeric, !(cell.start..<cell.end).dropFirst().contains(where: { bytes[$0] == UInt8(ascii: "-") })
        {
            guard let value = NumberText.parse(bytes, cell.start, cell.end), value.isFinite else {
                return nil
            }
            return abs(value) >= Units.smallestPlausibleMilliseconds ? value / 1000 : value
        }
        return TimeText.parse(bytes, cell.start, cell.end, zone: zone)
    }
}
