public import Foundation
import Geofence

/// Reads tracker output one line at a time: the project's NDJSON, OwnTracks JSON, OwnTracks
/// Recorder `.rec` lines and CSV, told apart line by line when the format is `auto`.
///
/// The decoder is a value with a little state (the CSV header once seen, and a scratch buffer
/// reused between lines), made for a reader that follows a file like `tail -F`: give it each
/// line as it comes, report any error and go on. A line never affects how another is read,
/// except that a CSV header sets the columns for the rows after it.
///
/// ```swift
/// var decoder = LineDecoder(source: "fixes.ndjson")
/// switch decoder.decode(#"{"latitude":47.37,"longitude":8.54,"timestamp":1700000000000}"#, number: 1) {
/// case .success(let record?): print(record)
/// case .success(nil): break  // blank, comment or header line
/// case .failure(let error): print(error)  // fixes.ndjson:1: ...
/// }
/// ```
public struct LineDecoder: Sendable, LineRecordDecoder {
    /// The format lines are read in; `.auto` tells it from each line.
    public let format: InputFormat
    /// The name of the source, used in errors.
    public let source: String
    /// The zone for times written without an offset (NDJSON and CSV times; OwnTracks and
    /// Recorder times always carry one).
    public let timeZone: TimeZone
    /// The device to give records that name none (e.g. `USER/DEVICE` from a Recorder file's path).
    public let deviceId: String?
    /// The source and zone every line's context shares.
    private var origin: LineContext.Origin
    private var tokens: [JSONToken]
    /// The slots of `tokens` the last scan filled (``FlatJSONScanner/scan(_:start:end:into:filled:)``).
    private var filledTokens: UInt64 = 0
    /// The layout of the last JSON line read in full, for reading the next ones (``JSONShape``).
    private var shape = JSONShape()
    private var csv: CSVReader

    /// Makes a decoder for one source.
    public init(
        format: InputFormat = .auto, source: String, timeZone: TimeZone = .gmt, deviceId: String? = nil
    ) {
        self.format = format
        self.source = source
        self.timeZone = timeZone
        self.deviceId = deviceId
        self.origin = LineContext.Origin(source: source, zone: LocalZone(timeZone))
        self.tokens = Array(repeating: .absent, count: JSONKey.allCases.count)
        self.csv = CSVReader(source: source, timeZone: timeZone, deviceId: deviceId)
    }

    /// A copy for another thread: its own ``LineContext/Origin``, so that the reference count every
    /// line's context takes is not one cache line that the threads decoding at once pass back and
    /// forth.
    func copyForThread() -> LineDecoder {
        var copy = self
        copy.origin = LineContext.Origin(source: origin.source, zone: origin.zone)
        return copy
    }

    /// Reads one line from a buffer that is only valid for the call.
    public mutating func decode(bytes: UnsafeBufferPointer<UInt8>, number: Int) -> Result<
        InputRecord?, RecordError
    > {
        switch outcome(bytes: bytes, number: number) {
        case .record(let record): .success(record)
        case .failure(let error): .failure(error)
        case .nothing: .success(nil)
        }
    }

    /// Reads one line as ``decode(bytes:number:)`` does, giving what it held as a type of this
    /// module: the readers that decode every line of a file take it apart by moving it, where an
    /// optional `Result` was taken apart by copying its record out and destroyed through the
    /// standard library's generic value witnesses (about 120 instructions a line).
    mutating func outcome(bytes: UnsafeBufferPointer<UInt8>, number: Int) -> LineOutcome {
        let (start, end) = LineBytes.trim(bytes)
        if start == end || bytes[start] == UInt8(ascii: "#") { return .nothing }
        let context = LineContext(origin: origin, line: number, defaultDeviceId: deviceId)
        switch format {
        case .ndjson:
            return json(bytes, start, end, context: context, as: .ndjson)
        case .owntracks:
            return json(bytes, start, end, context: context, as: .owntracks)
        case .rec:
            return recLine(bytes, start, end, context: context)
        case .csv:
            return LineOutcome(csv.decode(bytes: bytes, number: number))
        case .gpx:
            return .failure(gpxIsADocument(context))
        case .json, .takeout, .geojson, .kml, .nmea, .geolife:
            return .failure(
                context.error(
                    "\(format.rawValue) is read by RecordReader or StreamDecoder, which keep its state across lines",
                    kind: .unrecognized))
        case .auto:
            let first = bytes[start]
            if first == UInt8(ascii: "{") { return json(bytes, start, end, context: context, as: .auto) }
            if first == UInt8(ascii: "<") { return .failure(gpxIsADocument(context)) }
            if RecLine.looksLikeOne(bytes, start, end) { return recLine(bytes, start, end, context: context) }
            if let line = TopicLine.split(bytes, start, end) {
                // `mosquitto_sub -v`: the topic names the device USER/DEVICE, as over MQTT.
                let named = LineContext(
                    origin: origin, line: number,
                    defaultDeviceId: Units.deviceId(fromTopic: line.topic))
                return json(bytes, line.payloadStart, end, context: named, as: .owntracks)
            }
            if csv.hasHeader || csv.adoptHeader(bytes, start, end) {
                return LineOutcome(csv.decode(bytes: bytes, number: number))
            }
            return .failure(
                context.error(
                    "not JSON, not an OwnTracks Recorder line, and no CSV header naming latitude, longitude and time has been read",
                    kind: .unrecognized))
        }
    }

    private func gpxIsADocument(_ context: LineContext) -> RecordError {
        context.error("GPX is read as a whole document (GPXReader), not line by line", kind: .unrecognized)
    }

    /// Scans a JSON object and builds its record; `.auto` picks OwnTracks when `_type` is there.
    private mutating func json(
        _ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, context: LineContext,
        as format: InputFormat,
        fallbackTime: Date? = nil
    ) -> LineOutcome {
        tokens.withUnsafeMutableBufferPointer { tokens in
            do throws(JSONSyntaxError) {
                try FlatJSONScanner.scan(
                    bytes, start: start, end: end, into: tokens, filled: &filledTokens, shape: &shape)
            } catch {
                return .failure(
                    context.error(
                        column: LineBytes.column(of: error.offset, in: bytes), error.message, kind: .malformed
                    ))
            }
            let fields = JSONFields(bytes: bytes, tokens: tokens, context: context)
            let isOwnTracks =
                format == .owntracks || (format == .auto && fields.token(.ownTracksType).kind != .absent)
            do throws(RecordError) {
                return .record(
                    isOwnTracks
                        ? try OwnTracksRecord.make(fields, fallbackTime: fallbackTime)
                        : try NDJSONRecord.make(fields))
            } catch {
                return .failure(error)
            }
        }
    }

    private mutating func recLine(
        _ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, context: LineContext
    ) -> LineOutcome {
        switch RecLine.split(bytes, start, end) {
        case .failure(let problem):
            return .failure(context.error(column: problem.column, problem.message, kind: problem.kind))
        case .success(let parts):
            guard parts.payloadStart < parts.payloadEnd, bytes[parts.payloadStart] == UInt8(ascii: "{") else {
                return .record(
                    .ignored(kind: "rec", reason: "payload is not JSON (relative topic \(parts.topic))"))
            }
            return json(
                bytes, parts.payloadStart, parts.payloadEnd, context: context, as: .owntracks,
                fallbackTime: Date(timeIntervalSince1970: parts.seconds))
        }
    }
}

/// What one line held, for the readers that decode every line of a file
/// (``LineDecoder/outcome(bytes:number:)``): a type of this module's own, not an optional
/// `Result`, whose values the standard library copies and destroys through generic witnesses.
package enum LineOutcome {
    case record(InputRecord)
    /// Out of line, as few lines fail: inline, the error (73 bytes) made every outcome that size,
    /// and each was moved a few times on its way from the decoder to the pipeline.
    indirect case failure(RecordError)
    /// A blank, comment or header line.
    case nothing

    init(_ result: consuming Result<InputRecord?, RecordError>) {
        switch result {
        case .success(let record?): self = .record(record)
        case .success(nil): self = .nothing
        case .failure(let error): self = .failure(error)
        }
    }
}
