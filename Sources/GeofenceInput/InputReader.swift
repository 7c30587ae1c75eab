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

    /// Reads a whole input: as GPX when the format is `.gpx`, or `.auto` and the data starts
    /// (after a byte-order mark and whitespace) with `<`; otherwise line by line with
    /// ``LineDecoder``. Lines are numbered from 1 and may end in `\n` or `\r\n`.
    public static func readAll(
        data: Data, source: String, format: InputFormat = .auto, timeZone: TimeZone = .gmt,
        deviceId: String? = nil
    ) -> InputBatch {
        if format == .gpx || (format == .auto && looksLikeXML(data)) {
            return GPXReader.read(data: data, source: source)
        }
        var decoder = LineDecoder(format: format, source: source, timeZone: timeZone, deviceId: deviceId)
        var batch = InputBatch()
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var lineStart = 0
            var number = 0
            while lineStart < bytes.count {
                var lineEnd = lineStart
                while lineEnd < bytes.count, bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
                number += 1
                switch decoder.decode(
                    bytes: UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd]), number: number)
                {
                case .success(let record?): batch.records.append(record)
                case .success(nil): break
                case .failure(let error): batch.errors.append(error)
                }
                lineStart = lineEnd + 1
            }
        }
        return batch
    }

    private static func looksLikeXML(_ data: Data) -> Bool {
        var body = data[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        let first = body.first { !LineBytes.isSpace($0) }
        return first == UInt8(ascii: "<")
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
