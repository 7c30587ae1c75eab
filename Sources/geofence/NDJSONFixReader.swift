import Foundation
import Geofence

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The C library's `read(2)`, under a name the reader's own `read` does not hide.
private func readBytes(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

/// Reads this project's NDJSON fixes from a file or standard input, one fix a line, as the lines
/// arrive.
///
/// Each line is a JSON object: `latitude` and `longitude` in degrees; the time as `timestamp` (Unix
/// milliseconds) or `time` (ISO 8601 with an offset), `timestamp` winning when both are given; and
/// optionally `horizontalAccuracy`, `verticalAccuracy`, `altitude`, `speed`, `course`, `floor`,
/// `deviceId` and `label`. Blank lines are skipped. A line that is not a fix is reported with its line
/// number and skipped; it never stops the run.
///
/// This is the minimal reader the `stays` command needs; it sits alone in this file so that the
/// full input parsers can replace it.
struct NDJSONFixReader {
    /// What the reader tells the user about a line it skipped.
    struct SkippedLine: CustomStringConvertible {
        /// The file name as given, or `stdin`.
        var source: String
        /// The 1-based line number.
        var line: Int
        /// Why the line is not a fix.
        var reason: String
        var description: String { "\(source):\(line): \(reason)" }
    }

    /// One line as written; every field optional so that a missing one gets a message of our own.
    private struct Line: Decodable {
        var latitude: Double?
        var longitude: Double?
        var timestamp: Double?
        var time: String?
        var horizontalAccuracy: Double?
        var verticalAccuracy: Double?
        var altitude: Double?
        var speed: Double?
        var course: Double?
        var floor: Int?
        var deviceId: String?
        var label: String?
    }

    private let decoder = JSONDecoder()
    private let isoWithFraction: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()
    private let isoWhole: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter
    }()

    /// Reads every line of `path` (`-` for standard input), calling `fix` for each fix in order and
    /// `skipped` for each line that is not one. Throws only if the input cannot be opened or read.
    func read(
        path: String, fix: (Fix) throws -> Void, skipped: (SkippedLine) -> Void
    ) throws {
        let source = path == "-" ? "stdin" : path
        let descriptor = path == "-" ? STDIN_FILENO : open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw CommandError(message: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }

        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var lineNumber = 0
        func handle(_ bytes: ArraySlice<UInt8>) throws {
            lineNumber += 1
            var line = bytes
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            guard line.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) else {
                return
            }
            switch decode(Data(line)) {
            case .success(let value): try fix(value)
            case .failure(let reason):
                skipped(SkippedLine(source: source, line: lineNumber, reason: reason.text))
            }
        }
        while true {
            // A plain read returns what a pipe holds now, so visits come out while stdin is still open.
            let count = chunk.withUnsafeMutableBytes { readBytes(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CommandError(message: "cannot read \(source): \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            pending.append(contentsOf: chunk[0..<count])
            var start = pending.startIndex
            while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                try handle(pending[start..<newline])
                start = newline + 1
            }
            pending.removeSubrange(..<start)
        }
        if !pending.isEmpty { try handle(pending[...]) }
    }

    /// Why a line is not a fix.
    private struct Reason: Error {
        var text: String
    }

    /// Turns one line into a fix.
    private func decode(_ data: Data) -> Result<Fix, Reason> {
        let line: Line
        do {
            line = try decoder.decode(Line.self, from: data)
        } catch {
            return .failure(Reason(text: JSONErrorText.describe(error)))
        }
        guard let latitude = line.latitude else {
            return .failure(Reason(text: "missing field \"latitude\""))
        }
        guard let longitude = line.longitude else {
            return .failure(Reason(text: "missing field \"longitude\""))
        }
        let coordinate: Coordinate
        do {
            coordinate = try Coordinate(latitude: latitude, longitude: longitude)
        } catch {
            return .failure(Reason(text: error.description))
        }
        let timestamp: Date
        if let milliseconds = line.timestamp {
            guard milliseconds.isFinite else {
                return .failure(Reason(text: "timestamp must be a finite number"))
            }
            timestamp = Date(timeIntervalSince1970: milliseconds / 1000)
        } else if let text = line.time {
            guard let date = isoWithFraction.date(from: text) ?? isoWhole.date(from: text) else {
                return .failure(
                    Reason(text: "time \"\(text)\" is not an ISO 8601 date and time with an offset"))
            }
            timestamp = date
        } else {
            return .failure(
                Reason(text: "missing field \"timestamp\" (Unix milliseconds) or \"time\" (ISO 8601)"))
        }
        return .success(
            Fix(
                timestamp: timestamp, coordinate: coordinate, horizontalAccuracy: line.horizontalAccuracy,
                altitude: line.altitude, verticalAccuracy: line.verticalAccuracy, speed: line.speed,
                course: line.course, floor: line.floor, deviceId: line.deviceId, label: line.label))
    }
}
