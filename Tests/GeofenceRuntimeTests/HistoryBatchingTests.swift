import Foundation
import Geofence
import GeofenceInput
import GeofenceRules
import TestSupport
import Testing

@testable import GeofenceRuntime

/// How `geofence run` reads history cheaply: commits gathered by time and count, batches that keep
/// only what carries something, and lines decoded on a thread of their own.
struct HistoryBatchingTests {
    /// History waits until the batch holds enough records or has gathered for long enough.
    @Test(arguments: [
        (records: 10, gathered: 0.2, lastCommit: 0.001, due: false),
        (records: 10, gathered: 1.0, lastCommit: 0.001, due: true),
        (records: 1_000_000, gathered: 0.01, lastCommit: 0.001, due: true),
        (records: 999_999, gathered: 0.01, lastCommit: 0.001, due: false),
    ])
    func historyIsCommittedByCountOrTime(records: Int, gathered: Double, lastCommit: Double, due: Bool) {
        let policy = HistoryCommitPolicy()
        #expect(
            policy.isDue(records: records, gatheredSeconds: gathered, lastCommitSeconds: lastCommit) == due)
    }

    /// A commit that took half a second (many devices' states) makes history gather for nine times
    /// as long, so that commits take a tenth of the time; never longer than the limit.
    @Test func slowCommitsStretchTheTimeHistoryGathers() {
        let policy = HistoryCommitPolicy()
        #expect(!policy.isDue(records: 10, gatheredSeconds: 4.4, lastCommitSeconds: 0.5))
        #expect(policy.isDue(records: 10, gatheredSeconds: 4.6, lastCommitSeconds: 0.5))
        #expect(policy.isDue(records: 10, gatheredSeconds: 30, lastCommitSeconds: 100))
        #expect(!policy.isDue(records: 10, gatheredSeconds: 29, lastCommitSeconds: 100))
    }

    /// Of a run of fixes that change nothing, a batch keeps each device's first output (outputs
    /// hear of every device) and every output with an event, counts them all, and saves the state
    /// of every device it saw.
    @Test func aBatchKeepsEachDevicesFirstOutputAndThoseWithEvents() throws {
        let yaml = """
            timezone: UTC
            places:
              home: { center: [51.5, -0.12], radius: 100 }
            rules: []

            """
        let rules = try RulesLoader.parse(yaml, file: "rules.yaml", baseDirectory: URL(fileURLWithPath: "/"))
            .get()
        var pipeline = Pipeline(rules: rules)
        var batch = Batch()
        let start = Date(timeIntervalSince1970: 1_772_521_200)
        for second in 0..<60 {
            for device in ["phone", "watch"] {
                let fix = Fix(
                    timestamp: start.addingTimeInterval(Double(second)),
                    coordinate: try Coordinate(latitude: 51.5, longitude: -0.12), horizontalAccuracy: 5,
                    deviceId: device)
                let output = pipeline.process(fix, arrivedAt: nil)
                batch.add(output, device: output.device, evidence: fix.timestamp)
            }
        }
        #expect(batch.records == 120)
        let withEvents = batch.outputs.filter { !$0.placeEvents.isEmpty }
        #expect(withEvents.count == 2, "each device's first determination inside home")
        #expect(Set(batch.outputs.map(\.device)) == ["phone", "watch"])
        #expect(batch.outputs.count <= 4)
        #expect(batch.evidence.count == batch.outputs.count)
        let step = try batch.step(pipeline: pipeline, now: start)
        #expect(step.states.map(\.device) == ["phone", "watch"])
        #expect(step.events.count == 2)
    }

    /// Lines decoded on the decoding thread give the records, the unreadable lines and the lines
    /// too long, in line order, that decoding them on the loop's thread gives, batch by batch, and
    /// hand back the decoder having read them.
    @Test func linesDecodedOnTheDecodingThreadAreThoseTheLoopWouldDecode() {
        var lines: [InputLine] = []
        for number in 1...50 {
            let text: String? =
                switch number {
                case 7: nil
                case 20: #"{"latitude": "north"}"#
                case 33: #"{"timestamp":1772521233000,"latitude":51.5,"longitude":-0.12,"label":"café"}"#
                default:
                    #"{"timestamp":\#(1_772_521_200_000 + number * 1000),"latitude":51.5,"longitude":-0.12,"horizontalAccuracy":8}"#
                }
            lines.append(
                InputLine(text: text ?? "", number: Int64(number), endOffset: 0, isTooLong: text == nil))
        }
        var direct = StreamDecoder(source: "fixes.ndjson")
        let expected = DecodedLines.decode(LineBlock(lines), with: &direct, crashText: nil)
        let thread = LineDecodingThread()
        defer { thread.stop() }
        // Twice: the thread waits between runs of batches and takes the decoder back each time.
        var decoder = StreamDecoder(source: "fixes.ndjson")
        for _ in 0..<2 {
            let batches = [LineBlock(Array(lines[..<25])), LineBlock(Array(lines[25...]))]
            thread.start(batches, decoder: decoder, crashText: nil)
            let first = thread.next()
            let second = thread.next()
            decoder = thread.finish()
            #expect(first.records.count + second.records.count == 48)
            #expect(first.fixes + second.fixes == 48)
            #expect(describe(first) + describe(second) == describe(expected))
        }
        // Undecided until its first line: the decoder came back having read them.
        #expect(decoder.decidedFormat != nil)
        #expect(decoder.decidedFormat == direct.decidedFormat)
        let entries = describe(expected)
        #expect(entries[6] == "too long 7")
        #expect(entries[19].hasPrefix("error "))
        #expect(entries[32].contains("café"))
        #expect(entries.count == 50)
    }

    /// While the thread has not begun them, the loop decodes batches of JSON object lines itself
    /// with a copy of the decoder, and leaves it any other batch (a non-ASCII line, a line too
    /// long, a line that is not an object): the records and failures are those of one decoder, in
    /// line order, and the thread hands its decoder back as usual.
    @Test func theLoopDecodesBatchesOfJSONLinesItselfRatherThanWait() {
        var lines: [InputLine] = []
        for number in 1...80 {
            let text: String? =
                switch number {
                case 5: #"{"latitude": "north"}"#
                case 45: nil
                case 57: #"{"timestamp":1772521257000,"latitude":51.5,"longitude":-0.12,"label":"café"}"#
                case 66: "[1, 2]"
                default:
                    #"{"timestamp":\#(1_772_521_200_000 + number * 1000),"latitude":51.5,"longitude":-0.12,"deviceId":"d\#(number % 3)"}"#
                }
            lines.append(
                InputLine(text: text ?? "", number: Int64(number), endOffset: 0, isTooLong: text == nil))
        }
        var direct = StreamDecoder(source: "fixes.ndjson")
        let expected = describe(DecodedLines.decode(LineBlock(lines), with: &direct, crashText: nil))
        // The first batch is read before the thread starts, as the loop does, so that the format
        // is known; then eight of ten lines each, the batches from the fifth on for the thread.
        var decoder = StreamDecoder(source: "fixes.ndjson")
        var entries = describe(
            DecodedLines.decode(LineBlock(Array(lines[..<10])), with: &decoder, crashText: nil))
        let batches = stride(from: 10, to: 80, by: 10).map { LineBlock(Array(lines[$0..<$0 + 10])) }
        let thread = LineDecodingThread(paused: true)
        defer { thread.stop() }
        thread.start(batches, decoder: decoder, crashText: nil)
        for _ in 0..<3 { entries += describe(thread.next()) }
        #expect(thread.decodedByLoop == 3, "the thread, paused, began none of the first three")
        // The fourth holds line 45, too long: only the thread may read it.
        thread.resume()
        for _ in 3..<batches.count { entries += describe(thread.next()) }
        decoder = thread.finish()
        #expect(entries == expected)
        #expect(entries.count == 80)
        #expect(entries[44] == "too long 45")
        #expect(entries[4].hasPrefix("error "))
        #expect(entries[56].contains("café"))
        #expect(entries[65].hasPrefix("error "))
        #expect(decoder.decidedFormat == direct.decidedFormat)
    }

    /// A block of lines gives back the texts and the follower's lines it was made of, bad UTF-8
    /// made valid as a `String` of it is.
    @Test func aLineBlockGivesBackItsLines() {
        let lines = [
            InputLine(text: "{}", number: 1, endOffset: 3),
            InputLine(text: "", number: 2, endOffset: 2_000_000, isTooLong: true, byteCount: 1_999_996),
            InputLine(text: "", number: 3, endOffset: 2_000_001),
            InputLine(text: "é", number: 4, endOffset: 2_000_004),
        ]
        let block = LineBlock(lines)
        #expect(block.inputLines == lines)
        #expect(block.texts.map(\.text) == ["{}", nil, "", "é"])
        #expect(block.first == 1 && block.last == 4 && block.count == 4)
    }

    private func describe(_ decoded: DecodedLines) -> [String] {
        decoded.entries.map { entry in
            switch entry {
            case .tooLong(let number): "too long \(number)"
            case .record(let index, _, _): "record \(decoded.records[index])"
            case .failure(let error): "error \(error)"
            }
        }
    }
}
