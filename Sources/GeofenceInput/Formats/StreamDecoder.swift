public import Foundation

/// Decodes one input's lines, whatever format its first line shows: the line formats of
/// ``LineDecoder`` (NDJSON, OwnTracks, Recorder, CSV, `mosquitto_sub -v`), NMEA sentences, GeoLife
/// trajectories, and JSON documents (Takeout, Overland, GeoJSON, the Recorder's `ocat`...), whose
/// records may span lines.
///
/// A line can give no record (a header, an NMEA sentence whose epoch is not over), one, or several
/// (the last line of a document holding many records), so each call returns a list, and
/// ``finish()`` gives what the end of the input completes (the last NMEA epoch, an unclosed
/// document's error). `geofence run` feeds it the lines it follows; ``RecordReader`` feeds it the
/// lines of a file read to its end.
public struct StreamDecoder: Sendable {
    /// The format asked for; `.auto` decides from the first line that is not blank.
    public let format: InputFormat
    /// The name of the source, for errors.
    public let source: String
    /// The zone for times written without one.
    public let timeZone: TimeZone
    /// The device for records that name none.
    public let deviceId: String?

    private enum State: Sendable {
        case undecided
        /// Lines, read by `lineDecoder` (kept outside the enum, so that it is changed in place
        /// rather than moved out and back for every line).
        case lines
        case nmea(NMEAReader)
        case geolife(GeoLifeReader)
        case document(JSONDocumentReader)
        case refused(String)
    }

    private var state = State.undecided {
        didSet {
            if case .lines = state { readsLines = true } else { readsLines = false }
        }
    }
    /// Whether the state is `.lines`, kept beside it: asked for every line, and matching the
    /// enum copied it through an outlined function (1% of a replay of many devices).
    private var readsLines = false
    /// The line decoder while the state is `.lines` (a placeholder for the input's source until
    /// then, never used).
    private var lineDecoder: LineDecoder

    /// Makes a decoder for one input.
    public init(
        format: InputFormat = .auto, source: String, timeZone: TimeZone = .gmt, deviceId: String? = nil
    ) {
        self.format = format
        self.source = source
        self.timeZone = timeZone
        self.deviceId = deviceId
        self.lineDecoder = LineDecoder(format: format, source: source, timeZone: timeZone, deviceId: deviceId)
    }

    /// A decoder for an input that only ever hands over lines (the HTTP receiver's posts, gpsd's
    /// reports): `decoder` reads each one, as it decides per line, and no first line can turn the
    /// input into a document.
    public init(lines decoder: LineDecoder) {
        self.init(
            format: decoder.format, source: decoder.source, timeZone: decoder.timeZone,
            deviceId: decoder.deviceId)
        state = .lines
        // An initialiser's assignment calls no observer: the flag is set here too.
        readsLines = true
        lineDecoder = decoder
    }

    /// The format decided on, once a line has been read (`nil` before).
    public var decidedFormat: InputFormat? {
        switch state {
        case .undecided: nil
        case .lines: lineDecoder.format
        case .nmea: .nmea
        case .geolife: .geolife
        case .document(let reader):
            reader.expected == .takeout ? .takeout : reader.expected == .geojson ? .geojson : .json
        case .refused: nil
        }
    }

    /// A copy of the line decoder, when the input is lines whose every JSON line is read on its
    /// own (NDJSON, OwnTracks, or told apart per line): such lines can be decoded on several
    /// threads, each with its own copy, and give what this decoder would. `nil` for CSV (a header
    /// changes how later rows read), documents, NMEA and GeoLife, and before the first line.
    package var independentJSONLineDecoder: LineDecoder? {
        readsIndependentJSONLines ? lineDecoder : nil
    }

    /// A decoder for another thread that reads a JSON object line (see ``isJSONObjectLine(_:isASCII:)``)
    /// as this one would, when ``independentJSONLineDecoder`` is there; `nil` otherwise.
    package var copyForJSONLines: StreamDecoder? {
        guard readsIndependentJSONLines else { return nil }
        return StreamDecoder(lines: lineDecoder.copyForThread())
    }

    /// Whether a line is one that ``copyForJSONLines`` (and ``independentJSONLineDecoder``) reads
    /// as this decoder would: all ASCII, and a JSON object once trimmed. `replay`'s decoding
    /// threads and `run`'s loop decode only such lines apart.
    package static func isJSONObjectLine(_ bytes: UnsafeBufferPointer<UInt8>, isASCII: Bool) -> Bool {
        isASCII && ParallelLines.isJSONObject(bytes)
    }

    /// Whether ``independentJSONLineDecoder`` is there (asked per line: it copies nothing).
    package var readsIndependentJSONLines: Bool {
        guard readsLines else { return false }
        switch lineDecoder.format {
        case .ndjson, .owntracks, .auto: return true
        default: return false
        }
    }

    /// Reads one line (without its line break).
    public mutating func decode(_ text: String, number: Int) -> [Result<InputRecord, RecordError>] {
        var text = text
        return text.withUTF8 { decode(bytes: $0, number: number) }
    }

    /// Reads one line given as UTF-8 bytes.
    public mutating func decode(bytes: UnsafeBufferPointer<UInt8>, number: Int) -> [Result<
        InputRecord, RecordError
    >] {
        var results: [Result<InputRecord, RecordError>] = []
        decode(bytes: bytes, number: number) { results.append($0) }
        return results
    }

    /// Reads one line as ``decode(bytes:number:_:)`` does when the input is read a line at a time
    /// by itself (the line formats, once the first line has said which), handing `take` what the
    /// line held as a type of this module (no `Result` made for each line and taken apart by the
    /// caller, and no optional around it, which copied the whole record out for every line);
    /// `false`, having read nothing, otherwise: the caller then reads the line with `decode`.
    package mutating func readLine(
        bytes: UnsafeBufferPointer<UInt8>, number: Int, _ take: (consuming LineOutcome) throws -> Void
    ) rethrows -> Bool {
        guard readsLines else { return false }
        try take(lineDecoder.outcome(bytes: bytes, number: number))
        return true
    }

    /// Reads one line given as UTF-8 bytes, handing `emit` what it holds (no array per line).
    public mutating func decode(
        bytes: UnsafeBufferPointer<UInt8>, number: Int,
        _ emit: (consuming Result<InputRecord, RecordError>) throws -> Void
    ) rethrows {
        if case .undecided = state {
            let (start, end) = LineBytes.trim(bytes)
            // Blank lines before the first line that says what the input is wait for it.
            if start == end, format == .auto { return }
            state = decide(bytes, number: number)
        }
        let read = try readLine(bytes: bytes, number: number) { outcome in
            switch consume outcome {
            case .record(let record): try emit(.success(record))
            case .failure(let error): try emit(.failure(error))
            case .nothing: break
            }
        }
        if read { return }
        // Each case takes its reader out of `state` before using it, so the reader's buffers are
        // not shared with the enum and are changed in place rather than copied for every line.
        switch state {
        case .undecided:
            break
        case .lines:
            break
        case .nmea(var reader):
            state = .undecided
            var results: [Result<InputRecord, RecordError>] = []
            reader.line(bytes, number: number) { results.append($0) }
            state = .nmea(reader)
            for result in results { try emit(result) }
        case .geolife(var reader):
            state = .undecided
            defer { state = .geolife(reader) }
            switch reader.line(bytes, number: number) {
            case .success(let record?): try emit(.success(record))
            case .success(nil): break
            case .failure(let error): try emit(.failure(error))
            }
        case .document(var reader):
            state = .undecided
            var results: [Result<InputRecord, RecordError>] = []
            reader.feed(bytes) { results.append($0) }
            reader.feed([UInt8(ascii: "\n")]) { results.append($0) }
            state = .document(reader)
            for result in results { try emit(result) }
        case .refused(let message):
            // Said once, at the first line; the rest of the document is not read.
            if number == firstRefusedLine {
                try emit(
                    .failure(RecordError(source: source, line: number, message: message, kind: .unrecognized))
                )
            }
        }
    }

    private var firstRefusedLine = 0

    /// Ends the input: what its end completes.
    public mutating func finish() -> [Result<InputRecord, RecordError>] {
        var results: [Result<InputRecord, RecordError>] = []
        switch state {
        case .nmea(var reader):
            reader.finish { results.append($0) }
            state = .nmea(reader)
        case .document(var reader):
            reader.finish { results.append($0) }
            state = .document(reader)
        default:
            break
        }
        return results
    }

    private mutating func decide(_ bytes: UnsafeBufferPointer<UInt8>, number: Int) -> State {
        let lineFormat: InputFormat
        switch format {
        case .nmea: return .nmea(NMEAReader(source: source, deviceId: deviceId))
        case .geolife: return .geolife(GeoLifeReader(source: source, deviceId: deviceId))
        case .json, .takeout, .geojson:
            return .document(document(format.documentShape ?? .any))
        case _ where format.isXMLDocument:
            firstRefusedLine = number
            return .refused(
                "a \(format.rawValue.uppercased()) document is read whole, by replay and stays, not line by line"
            )
        case .owntracks:
            // The Recorder's `ocat` output (a pretty-printed object) and `/api/0/last` (an array)
            // are OwnTracks messages in one document. Anything else stays a message per line, so
            // one broken MQTT message cannot turn the rest of the stream into a "document".
            let (start, end) = LineBytes.trim(bytes)
            if start < end,
                bytes[start] == UInt8(ascii: "[") || (end - start == 1 && bytes[start] == UInt8(ascii: "{"))
            {
                return .document(document(.owntracks))
            }
            lineFormat = .owntracks
        case .auto:
            if NMEAReader.looksLikeOne(bytes) { return .nmea(NMEAReader(source: source, deviceId: deviceId)) }
            if GeoLifeReader.isFirstLine(bytes) {
                return .geolife(GeoLifeReader(source: source, deviceId: deviceId))
            }
            var withBreak = Array(bytes) + [UInt8(ascii: "\n")]
            let isDocument = withBreak.withUnsafeMutableBufferPointer {
                JSONDocumentReader.isDocument(prefix: UnsafeBufferPointer($0))
            }
            if isDocument == true { return .document(document(.any)) }
            let root = withBreak.withUnsafeMutableBufferPointer {
                XMLRootName.find(in: UnsafeBufferPointer($0))
            }
            if let root {
                firstRefusedLine = number
                return .refused(
                    "an XML document (<\(root)>) is read whole, by replay and stays, not line by line")
            }
            lineFormat = .auto
        default:
            lineFormat = format
        }
        lineDecoder = LineDecoder(format: lineFormat, source: source, timeZone: timeZone, deviceId: deviceId)
        return .lines
    }

    private func document(_ expected: JSONDocumentReader.Expected) -> JSONDocumentReader {
        JSONDocumentReader(source: source, timeZone: timeZone, deviceId: deviceId, expected: expected)
    }
}
