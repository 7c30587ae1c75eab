public import Foundation
import Geofence

/// Reads tracker exports that are JSON documents rather than lines, streaming, in bounded memory.
///
/// Google Takeout's `Records.json`, Overland's `{"locations":[...]}` batches, GeoJSON
/// FeatureCollections (GPSLogger, trackintel), the OwnTracks Recorder's `ocat` output
/// (`{"count":N,"locations":[...]}`) and HTTP API answers (`{"data":[...]}`, or a bare array from
/// `/api/0/last`) and Home Assistant's history API (an array of states per entity, in an array) are
/// all one or more JSON values holding an array of records. The text is fed in
/// chunks; ``JSONRecordSplitter`` cuts out each record, and each record is read by its own shape,
/// so one reader serves them all and a document mixing shapes is still read:
///
/// - a GeoJSON `Feature` → ``GeoJSONFeature``;
/// - `latitudeE7`/`longitudeE7` → a Takeout location (``TakeoutLocation``);
/// - an element of `rawSignals` → a raw signal of Google's on-phone `Timeline.json`
///   (``TimelineSignal``);
/// - `_type` → an OwnTracks message (`username` and `device`, which the Recorder adds, name the
///   device `USER/DEVICE`, as its topic would);
/// - `entity_id` with `last_updated` → a Home Assistant state (``HomeAssistantState``);
/// - `latitude`/`longitude` → the project's NDJSON fields.
///
/// A record of no known shape is an error that names what it looks like (Google's Semantic
/// Location History or phone Timeline export, a LineString track...). With `expecting` set (the
/// command line's `--format`), a record of any other shape is an error naming both.
public struct JSONDocumentReader: Sendable {
    /// The shape of record to expect; `.any` reads each record by its own shape.
    public enum Expected: String, Sendable, CaseIterable {
        /// Whatever each record looks like.
        case any
        /// Google Takeout `Records.json` locations.
        case takeout
        /// GeoJSON point Features (Overland, GPSLogger, trackintel).
        case geojson
        /// OwnTracks messages in a Recorder document (`ocat`, the HTTP API).
        case owntracks
        /// Home Assistant states (its history API).
        case homeassistant
    }

    /// The name of the source, for errors.
    public let source: String
    /// The device for records that name none.
    public let deviceId: String?
    /// The shape records must have.
    public let expected: Expected
    private let zone: LocalZone
    private var splitter: JSONRecordSplitter
    private var tokens: [JSONToken]
    /// Member names already reported as belonging to another format, so each is said once.
    private var reportedMembers: Set<String> = []
    /// Set when an object's member already said what format the object is: the object's own
    /// "unrecognized" error would say it again.
    private var objectAlreadyExplained = false

    /// Makes a reader for one source.
    public init(
        source: String, timeZone: TimeZone = .gmt, deviceId: String? = nil, expected: Expected = .any,
        maximumRecordBytes: Int = 1 << 20
    ) {
        self.source = source
        self.deviceId = deviceId
        self.expected = expected
        self.zone = LocalZone(timeZone)
        self.splitter = JSONRecordSplitter(maximumRecordBytes: maximumRecordBytes)
        self.tokens = Array(repeating: .absent, count: JSONKey.allCases.count)
    }

    /// The most bytes the reader held at once for records being cut out (the memory bound).
    public var peakBufferedBytes: Int { splitter.peakBufferedBytes }

    /// Reads the next chunk of the document; every record completed by it is handed to `emit`, in
    /// order, as a record or as the error that kept it from being one.
    public mutating func feed(
        _ chunk: UnsafeBufferPointer<UInt8>, _ emit: (Result<InputRecord, RecordError>) -> Void
    ) {
        var pieces: [JSONRecordSplitter.Piece] = []
        splitter.feed(chunk) { pieces.append($0) }
        for piece in pieces { handle(piece, emit) }
    }

    /// Reads a chunk held in an array (or any contiguous bytes).
    public mutating func feed(_ bytes: [UInt8], _ emit: (Result<InputRecord, RecordError>) -> Void) {
        bytes.withUnsafeBufferPointer { feed($0, emit) }
    }

    /// Ends the document; a value left open is reported.
    public mutating func finish(_ emit: (Result<InputRecord, RecordError>) -> Void) {
        var pieces: [JSONRecordSplitter.Piece] = []
        splitter.finish { pieces.append($0) }
        for piece in pieces { handle(piece, emit) }
    }

    /// Reads a whole document already in memory.
    public static func readAll(
        data: Data, source: String, timeZone: TimeZone = .gmt, deviceId: String? = nil,
        expected: Expected = .any
    ) -> InputBatch {
        var reader = JSONDocumentReader(
            source: source, timeZone: timeZone, deviceId: deviceId, expected: expected)
        var batch = InputBatch()
        let collect: (Result<InputRecord, RecordError>) -> Void = {
            switch $0 {
            case .success(let record): batch.records.append(record)
            case .failure(let error): batch.errors.append(error)
            }
        }
        reader.feed(Array(data), collect)
        reader.finish(collect)
        return batch
    }

    private mutating func handle(
        _ piece: JSONRecordSplitter.Piece, _ emit: (Result<InputRecord, RecordError>) -> Void
    ) {
        switch piece {
        case .record(let bytes, let line, let container):
            let result = record(bytes, line: line, container: container)
            let explained = objectAlreadyExplained && container == nil
            objectAlreadyExplained = false
            if explained, case .failure = result { return }
            emit(result)
        case .oversizedRecord(let line, let container):
            emit(
                .failure(
                    RecordError(
                        source: source, line: line,
                        message:
                            "a record\(container.map { " in \"\($0)\"" } ?? "") longer than \(splitter.maximumRecordBytes) bytes was skipped",
                        kind: .malformed)))
        case .oversizedObject(let line, let keys):
            if objectAlreadyExplained {
                objectAlreadyExplained = false
                return
            }
            emit(
                .failure(
                    RecordError(
                        source: source, line: line,
                        message:
                            "a JSON object with no locations, features or data array (members \(keys.joined(separator: ", ")))\(Self.lookalike(names: keys).map { "; it looks like \($0)" } ?? "")",
                        kind: .unrecognized)))
        case .skippedMember(let name, let line):
            if name == "semanticSegments" {
                guard reportedMembers.insert(name).inserted else { return }
                emit(
                    .success(
                        .ignored(
                            kind: name,
                            reason:
                                "\(source):\(line): Timeline's semanticSegments (visits and paths Google inferred) are not fixes; its rawSignals are read"
                        )))
                return
            }
            guard let format = Self.lookalike(names: [name]) else { return }
            objectAlreadyExplained = true
            guard reportedMembers.insert(name).inserted else { return }
            emit(
                .failure(
                    RecordError(
                        source: source, line: line, field: name,
                        message: "\(format) is not read; its \"\(name)\" array was skipped",
                        kind: .unrecognized)))
        case .malformed(let line, let message):
            emit(.failure(RecordError(source: source, line: line, message: message, kind: .malformed)))
        }
    }

    private mutating func record(_ bytes: [UInt8], line: Int, container: String?) -> Result<
        InputRecord, RecordError
    > {
        let source = source
        let zone = zone
        let expected = expected
        let deviceId = deviceId
        return bytes.withUnsafeBufferPointer { bytes in
            tokens.withUnsafeMutableBufferPointer { tokens in
                let object: JSONObject
                switch JSONObject.record(bytes, tokens: tokens, source: source, line: line, zone: zone) {
                case .success(let value): object = value
                case .failure(let error): return .failure(error)
                }
                do throws(RecordError) {
                    return .success(
                        try Self.decode(
                            object, tokens: tokens, container: container, expected: expected,
                            deviceId: deviceId))
                } catch {
                    return .failure(error)
                }
            }
        }
    }

    private static func decode(
        _ object: JSONObject, tokens: UnsafeMutableBufferPointer<JSONToken>, container: String?,
        expected: Expected, deviceId: String?
    ) throws(RecordError) -> InputRecord {
        let shape = shape(of: object)
        if container == "rawSignals", expected == .any || expected == .takeout {
            return try TimelineSignal.make(object, defaultDeviceId: deviceId)
        }
        if expected != .any, shape != expected {
            throw object.error(
                "expected \(describe(expected)), found \(shape.map(describe) ?? whatItIs(object, container: container))",
                .unrecognized)
        }
        switch shape {
        case .geojson:
            return try GeoJSONFeature.make(object, defaultDeviceId: deviceId)
        case .takeout:
            return try TakeoutLocation.make(object, defaultDeviceId: deviceId)
        case .homeassistant:
            return try HomeAssistantState.make(object, defaultDeviceId: deviceId)
        case .owntracks:
            // The Recorder adds the user and device its topic named; they name the device as
            // MQTT would, so the same phone is the same device whichever way it arrives.
            let user = try object.string("username")
            let device = try object.string("device")
            let named = user.flatMap { user in device.map { "\(user)/\($0)" } }
            let context = LineContext(
                source: object.source, line: object.firstLine, zone: object.zone,
                defaultDeviceId: named ?? deviceId)
            return try OwnTracksRecord.make(JSONFields(bytes: object.bytes, tokens: tokens, context: context))
        case .any, nil:
            if object.has("latitude") || object.has("longitude") {
                let context = LineContext(
                    source: object.source, line: object.firstLine, zone: object.zone,
                    defaultDeviceId: deviceId)
                return try NDJSONRecord.make(
                    JSONFields(bytes: object.bytes, tokens: tokens, context: context))
            }
            throw object.error(
                "not a record this reader knows: \(whatItIs(object, container: container))", .unrecognized)
        }
    }

    /// The shape a record has, if it is one this reader knows.
    private static func shape(of object: JSONObject) -> Expected? {
        if GeoJSONFeature.looksLikeOne(object) { return .geojson }
        if TakeoutLocation.looksLikeOne(object) { return .takeout }
        if object.has("_type") { return .owntracks }
        if HomeAssistantState.looksLikeOne(object) { return .homeassistant }
        return nil
    }

    private static func describe(_ shape: Expected) -> String {
        switch shape {
        case .any: "any record"
        case .takeout: "a Google Takeout location (latitudeE7, longitudeE7)"
        case .geojson: "a GeoJSON Feature"
        case .owntracks: "an OwnTracks message (_type)"
        case .homeassistant: "a Home Assistant state (entity_id, last_updated)"
        }
    }

    /// Words for an object of no known shape: the format it looks like, or its members.
    private static func whatItIs(_ object: JSONObject, container: String?) -> String {
        let names = object.names
        if let format = lookalike(names: names) { return format }
        if object.stringEquals("type", "FeatureCollection") {
            return "a GeoJSON FeatureCollection without a features array"
        }
        let shown = names.prefix(8).joined(separator: ", ")
        return names.isEmpty ? "an empty object" : "an object with members \(shown)"
    }

    /// Formats recognised by a member name, for errors that say what a file is.
    static func lookalike(names: [String]) -> String? {
        for name in names {
            switch name {
            case "timelineObjects", "placeVisit", "activitySegment":
                return
                    "Google Takeout's Semantic Location History (a month of visits and trips, not fixes; read Records.json instead)"
            case "timelinePath" where names.contains("startTime"):
                return
                    "a segment of Google's on-phone Timeline export (Timeline.json): its positions are in rawSignals"
            default:
                continue
            }
        }
        return nil
    }
}

extension JSONDocumentReader {
    /// Whether text starting with `prefix` is a JSON document to read with this reader rather than
    /// JSON lines: a top-level array, an object spread over several lines (a pretty-printed
    /// export), or a one-line object that wraps records (`locations`, `features`, `data`) or is a
    /// GeoJSON Feature. `nil` when the first line is not complete yet.
    public static func isDocument(prefix: UnsafeBufferPointer<UInt8>) -> Bool? {
        var start = 0
        if prefix.count >= 3, prefix[0] == 0xEF, prefix[1] == 0xBB, prefix[2] == 0xBF { start = 3 }
        while start < prefix.count, LineBytes.isSpace(prefix[start]) { start += 1 }
        guard start < prefix.count else { return nil }
        if prefix[start] == UInt8(ascii: "[") { return true }
        guard prefix[start] == UInt8(ascii: "{") else { return false }
        guard let newline = prefix[start...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        var end = newline
        while end > start, LineBytes.isSpace(prefix[end - 1]) { end -= 1 }
        var tokens = [JSONToken](repeating: .absent, count: JSONKey.allCases.count)
        let line = UnsafeBufferPointer(rebasing: prefix[start..<end])
        let complete = tokens.withUnsafeMutableBufferPointer { tokens in
            (try? FlatJSONScanner.scan(line, start: 0, end: line.count, into: tokens)) != nil
        }
        guard complete else { return true }
        let object = JSONObject.walk(line)
        for name in JSONRecordSplitter.recordArrayNames where object.token(name: name).kind == .array {
            return true
        }
        return object.stringEquals("type", "Feature") || object.stringEquals("type", "FeatureCollection")
    }
}
