import Foundation
import Geofence
import GeofenceInput

#if canImport(Glibc)
    import Glibc
#endif

/// The C library's `read(2)`, under a name the reader's own methods do not hide.
private func readBytes(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

/// Reads fixes and visits from a file or standard input in any supported format, streaming line by
/// line (a GPX document is read whole), so that months of history never sit in memory at once.
///
/// A line that cannot be read is passed to `error` with its source and line number and skipped; it
/// never stops the run.
struct RecordReader {
    /// A path, or `-` for standard input.
    let path: String
    /// The format, or `.auto` to tell per line.
    var format: InputFormat = .auto
    /// The zone for times written without one.
    var timeZone: TimeZone = .gmt

    /// The name errors use for the input.
    var source: String { path == "-" ? "stdin" : path }

    func read(record: (InputRecord) throws -> Void, error: (RecordError) -> Void) throws {
        let descriptor = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CommandError(message: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }

        var decoder = LineDecoder(
            format: format, source: source, timeZone: timeZone,
            deviceId: InputReader.recorderDevice(forPath: path))
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var lineNumber = 0
        var decided = format != .auto && format != .gpx
        var wholeDocument = format == .gpx

        func handle(_ bytes: ArraySlice<UInt8>) throws {
            lineNumber += 1
            let result = bytes.withUnsafeBufferPointer { decoder.decode(bytes: $0, number: lineNumber) }
            switch result {
            case .success(let value?): try record(value)
            case .success(nil): break
            case .failure(let failure): error(failure)
            }
        }
        while true {
            // A plain read returns what a pipe holds now, so output keeps up with a live stdin.
            let count = chunk.withUnsafeMutableBytes { readBytes(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CommandError(message: "cannot read \(source): \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            pending.append(contentsOf: chunk[0..<count])
            if !decided {
                // GPX is a document, not lines: its first character (after a byte-order mark and
                // blanks) is '<'.
                guard
                    let first = pending.drop(while: {
                        [0xEF, 0xBB, 0xBF, 0x20, 0x09, 0x0A, 0x0D].contains($0)
                    }).first
                else { continue }
                wholeDocument = first == UInt8(ascii: "<")
                decided = true
            }
            if wholeDocument { continue }
            var start = pending.startIndex
            while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                try handle(pending[start..<newline])
                start = newline + 1
            }
            pending.removeSubrange(..<start)
        }
        if wholeDocument {
            let batch = GPXReader.read(data: Data(pending), source: source)
            for failure in batch.errors { error(failure) }
            for value in batch.records { try record(value) }
        } else if !pending.isEmpty {
            try handle(pending[...])
        }
    }
}
