import Foundation
import Testing

@testable import Geofence
@testable import GeofenceInput

/// JSON lines decoded on several threads (`RecordReader.decodingThreads`) give exactly what one
/// thread gives: the same records, errors and remarks in the same order, and the same tally.
@Suite struct ParallelDecodingTests {
    /// Everything a read hands out, in order, as text.
    private struct Transcript: Equatable {
        var events: [String] = []
        var tally: InputTally?
    }

    private func read(
        _ path: String, threads: Int, format: InputFormat = .auto,
        onThreadsNow: (@Sendable () -> Bool)? = nil
    ) throws -> Transcript {
        var transcript = Transcript()
        var reader = RecordReader(path: path, format: format, maxLineBytes: 600)
        reader.decodingThreads = threads
        reader.decodesOnThreadsNow = onThreadsNow
        transcript.tally = try reader.read(
            record: { transcript.events.append("record \($0)") },
            error: { transcript.events.append("error \($0)") },
            note: { transcript.events.append("note \($0)") })
        return transcript
    }

    private func scratchFile(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "geofence-parallel-\(UUID().uuidString).ndjson"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A file that mixes, across several blocks of lines, every kind of line the parallel path
    /// takes or hands back to the reading thread: fixes, broken JSON, comments, blank lines,
    /// non-ASCII text, an overlong line, a line that is not JSON, OwnTracks messages and visits.
    private func mixedLines(count: Int) -> String {
        var lines: [String] = []
        for index in 0..<count {
            let seconds = 1_700_000_000 + index
            switch index % 97 {
            case 3: lines.append(#"{"latitude":47.3,"longitude":"#)
            case 11: lines.append("# a comment")
            case 17: lines.append("")
            case 23:
                lines.append(
                    #"{"latitude":47.37,"longitude":8.54,"timestamp":\#(seconds)000,"label":"Zürich"}"#)
            case 31:
                lines.append(
                    #"{"latitude":47.37,"longitude":8.54,"timestamp":1,"label":"#
                        + String(repeating: "x", count: 700) + "\"}")
            case 41: lines.append("latitude,longitude")
            case 53:
                lines.append(#"{"_type":"location","lat":47.36,"lon":8.53,"tst":\#(seconds),"tid":"ph"}"#)
            case 61:
                lines.append(
                    #"{"type":"visit","latitude":47.36,"longitude":8.53,"horizontalAccuracy":20,"arrival":\#(seconds)000,"departure":null}"#
                )
            case 67: lines.append(#"{"latitude":95,"longitude":8.5,"timestamp":\#(seconds)000}"#)
            default:
                let latitude = 47.0 + Double(index % 1000) * 0.0001
                lines.append(
                    #"{"timestamp":\#(seconds)000,"latitude":\#(latitude),"longitude":8.5,"horizontalAccuracy":8.0,"deviceId":"d\#(index % 5)"}"#
                )
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test(arguments: [2, 3, 8])
    func severalThreadsReadExactlyWhatOneReads(threads: Int) throws {
        let path = try scratchFile(mixedLines(count: 10_000))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let one = try read(path, threads: 1)
        let several = try read(path, threads: threads)
        #expect(one.events.count > 9_000)
        #expect(one.events.contains { $0.hasPrefix("error") })
        #expect(several.events.count == one.events.count)
        #expect(several == one)
    }

    /// Answers `decodesOnThreadsNow` by turns, counting the questions.
    private final class Turns: @unchecked Sendable {
        private let lock = NSLock()
        private var asked = 0
        var count: Int { lock.withLock { asked } }
        func next() -> Bool {
            lock.withLock {
                asked += 1
                return asked % 2 == 1
            }
        }
    }

    /// A reader told by turns to decode a round of blocks on its threads or on the reading thread
    /// alone (as `replay` does while the pipeline is behind) reads exactly what one thread reads.
    @Test(arguments: [2, 3])
    func roundsDecodedOnTheReadingThreadAloneReadTheSame(threads: Int) throws {
        // Long runs of fixes between the lines only the reading thread takes: full rounds.
        var text = ""
        for part in 0..<4 {
            text += mixedLines(count: 200)
            for index in 0..<9_000 {
                text +=
                    #"{"timestamp":\#(1_700_100_000 + part * 10_000 + index)000,"latitude":47.1,"longitude":8.5,"deviceId":"d\#(index % 7)"}"#
                    + "\n"
            }
        }
        let path = try scratchFile(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let turns = Turns()
        let one = try read(path, threads: 1)
        let byTurns = try read(path, threads: threads, onThreadsNow: { turns.next() })
        #expect(turns.count >= 8)
        #expect(one.events.count > 36_000)
        #expect(byTurns == one)
    }

    @Test func aFileWhoseLastLineHasNoNewlineLosesNothing() throws {
        let text = mixedLines(count: 5_000) + #"{"latitude":47.3,"longitude":8.5,"timestamp":1700009999000}"#
        let path = try scratchFile(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let one = try read(path, threads: 1)
        let two = try read(path, threads: 2)
        #expect(two == one)
        #expect(two.events.last?.hasPrefix("record") == true)
        #expect(two.tally?.lines == 5_001)
    }

    @Test func aForcedFormatReadsTheSameOnSeveralThreads() throws {
        let path = try scratchFile(mixedLines(count: 3_000))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try read(path, threads: 4, format: .ndjson) == read(path, threads: 1, format: .ndjson))
        #expect(try read(path, threads: 4, format: .owntracks) == read(path, threads: 1, format: .owntracks))
    }

    @Test func aCSVFileIsReadOnOneThreadWhateverIsAsked() throws {
        var text = "time,latitude,longitude\n"
        for index in 0..<5_000 {
            text += String(
                format: "2023-11-14T%02d:%02d:%02dZ,47.3,8.5\n", index / 3600, index / 60 % 60, index % 60)
        }
        let path = try scratchFile(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let one = try read(path, threads: 1)
        #expect(one.tally?.fixes == 5_000)
        #expect(try read(path, threads: 3) == one)
    }
}
