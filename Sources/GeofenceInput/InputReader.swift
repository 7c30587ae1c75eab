public import Foundation

/// Reads a whole source (a file or standard input already read) into records, for replay.
///
/// Live following feeds lines to ``LineDecoder`` itself; this is the convenience for when the
/// whole input is at hand.
public enum InputReader {
    /// Reads the file at `url`; its last path component names it in errors. A file that cannot
    /// be read gives one `.unreadable` error and no records.
    public static func readAll(
        contentsOf url: URL, format: InputFormat = .auto, timeZone: TimeZone = .gmt, deviceId: String? = nil
    ) -> InputBatch {
        let name = url.lastPathComponent
        do {
            let data = try Data(contentsOf: url)
            return readAll(data: data, source: name, format: format, timeZone: timeZone, deviceId: deviceId)
        } catch {
            return InputBatch(errors: [
                RecordError(
                    source: name, line: 0, message: "cannot be read: \(error.localizedDescription)",
                    kind: .unreadable)
            ])
        }
    }

    /// Reads a whole input in the format its content shows (or `format`): an XML document is
    /// GPX or KML by its root element; a JSON document (``JSONDocumentReader``) by its first
    /// bytes; anything else line by line with ``StreamDecoder`` (NDJSON, OwnTracks, Recorder,
    /// CSV, NMEA, GeoLife). Lines are numbered from 1 and may end in `\n` or `\r\n`.
    public static func readAll(
        data: Data, source: String, format: InputFormat = .auto, timeZone: TimeZone = .gmt,
        deviceId: String? = nil
    ) -> InputBatch {
        let bytes = Array(data)
        let decided = format == .auto ? documentFormat(bytes) : format
        if decided.isXMLDocument { return readXML(data, format: decided, source: source, deviceId: deviceId) }
        switch decided {
        case .json, .takeout, .geojson:
            return JSONDocumentReader.readAll(
                data: data, source: source, timeZone: timeZone, deviceId: deviceId,
                expected: format.documentShape ?? .any)
        default: break
        }
        var decoder = StreamDecoder(format: format, source: source, timeZone: timeZone, deviceId: deviceId)
        var batch = InputBatch()
        func collect(_ results: [Result<InputRecord, RecordError>]) {
            for result in results {
                switch result {
                case .success(let record): batch.records.append(record)
                case .failure(let error): batch.errors.append(error)
                }
            }
        }
        bytes.withUnsafeBufferPointer { bytes in
            var lineStart = 0
            var number = 0
            while lineStart < bytes.count {
                var lineEnd = lineStart
                while lineEnd < bytes.count, bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
                number += 1
                collect(
                    decoder.decode(
                        bytes: UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd]), number: number))
                lineStart = lineEnd + 1
            }
        }
        collect(decoder.finish())
        return batch
    }

    /// Reads a whole XML document in `format` (`.auto`: the one its root element names).
    public static func readXML(_ data: Data, format: InputFormat, source: String, deviceId: String?)
        -> InputBatch
    {
        let decided = format == .auto ? documentFormat(Array(data)) : format
        switch decided {
        case .kml: return KMLReader.read(data: data, source: source, deviceId: deviceId)
        default: return GPXReader.read(data: data, source: source)
        }
    }

    /// The document format the first bytes show (`.gpx`, `.kml`, `.json`), or `.auto` for lines.
    /// An XML root other than `kml` is given to the GPX reader, whose error names it.
    public static func documentFormat(_ prefix: [UInt8]) -> InputFormat {
        documentFormat(prefix: prefix, complete: true) ?? .auto
    }

    /// The document format the first bytes of an input show, or `nil` when they do not tell yet
    /// (blanks only, an XML root or a first JSON line not complete); with `complete`, the bytes
    /// are the whole input and the answer is never `nil`.
    public static func documentFormat(prefix: [UInt8], complete: Bool) -> InputFormat? {
        prefix.withUnsafeBufferPointer { bytes in
            var start = 0
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { start = 3 }
            while start < bytes.count, LineBytes.isSpace(bytes[start]) { start += 1 }
            guard start < bytes.count else { return complete ? .auto : nil }
            if bytes[start] == UInt8(ascii: "<") {
                guard let root = XMLRootName.find(in: bytes) else { return complete ? .gpx : nil }
                return root == "kml" ? .kml : .gpx
            }
            switch JSONDocumentReader.isDocument(prefix: bytes) {
            case true?: return .json
            case false?: return .auto
            case nil:
                // No newline yet: a one-line document, or a first line still coming.
                guard complete else { return nil }
                return bytes[start] == UInt8(ascii: "{") ? .json : .auto
            }
        }
    }
}

extension InputReader {
    /// The device an OwnTracks Recorder file belongs to, from its path: Recorder keeps each
    /// device's history as `.../rec/USER/DEVICE/YYYY-MM.rec`, and its lines do not name the device.
    /// `nil` for any other path.
    public static func recorderDevice(forPath path: String) -> String? {
        let parts = path.split(separator: "/").map(String.init)
        guard parts.count >= 4, let file = parts.last, file.hasSuffix(".rec"), parts[parts.count - 4] == "rec"
        else {
            return nil
        }
        return parts[parts.count - 3] + "/" + parts[parts.count - 2]
    }
}
