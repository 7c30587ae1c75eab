import Foundation
import Testing

@testable import Geofence
@testable import GeofenceInput

/// Input an attacker or an unlucky user sends: times that would overflow an id, bytes that crash
/// an XML parser, lines without end, files sorted backwards. Each is refused or read, never fatal.
@Suite struct HostileInputTests {
    /// The message of a line that must fail, or a failed expectation.
    private func failure(_ line: String, format: InputFormat = .auto) -> String {
        guard case .failure(let error) = decodeOne(line, format: format) else {
            Issue.record("\(line) was accepted")
            return ""
        }
        return error.description
    }

    @Test func timesOutsideThePlausibleRangeAreRefusedWhereTheyEnter() {
        #expect(
            failure(#"{"latitude":52.5,"longitude":13.4,"timestamp":1e999}"#).contains("is not a finite time")
        )
        #expect(failure(#"{"latitude":52.5,"longitude":13.4,"timestamp":1e19}"#).contains("after 2100-01-01"))
        // Microseconds written where milliseconds belong: year 55,000.
        #expect(
            failure(#"{"latitude":52.5,"longitude":13.4,"timestamp":1700000000000000}"#).contains(
                "after 2100"))
        #expect(
            failure(#"{"latitude":52.5,"longitude":13.4,"time":"1999-12-31T23:59:59Z"}"#).contains(
                "before 2000-01-01"))
        #expect(failure(#"{"_type":"location","lat":52.5,"lon":13.4,"tst":1e16}"#).contains("\"tst\""))
        #expect(
            failure(
                #"{"type":"visit","latitude":47.37,"longitude":8.54,"horizontalAccuracy":5,"arrival":1e999}"#
            ).contains("\"arrival\""))
        #expect(
            failure("2150-01-01T00:00:00Z\t*\t{\"_type\":\"location\",\"lat\":1,\"lon\":2}", format: .rec)
                .contains("after 2100"))
    }

    @Test func theUnknownSentinelsOfAVisitStillMeanUnknown() {
        let line =
            #"{"type":"visit","latitude":47.37,"longitude":8.54,"horizontalAccuracy":5,"arrival":"0001-01-01T00:00:00Z","departure":"4001-01-01T00:00:00Z"}"#
        #expect(
            decodeOne(line)
                == .success(
                    .visit(
                        Visit(
                            coordinate: at(47.37, 8.54), horizontalAccuracy: 5, arrival: nil, departure: nil))
                ))
    }

    @Test func aCSVTimeOutsideThePlausibleRangeNamesItsCell() throws {
        let text = "time,latitude,longitude\n2021-05-01T10:00:00Z,47.3,8.5\n2190-05-01T10:00:00Z,47.3,8.5\n"
        let batch = InputReader.readAll(data: Data(text.utf8), source: "x.csv", format: .csv)
        #expect(batch.records.count == 1)
        let error = try #require(batch.errors.first)
        #expect(error.line == 3)
        #expect(error.field == "time")
    }

    @Test func bytesThatAreNotUTF8NeverReachTheXMLParser() {
        // Found by libFuzzer: these five bytes crashed Foundation's XMLParser (SIGILL).
        let batch = GPXReader.read(data: Data([0x3C, 0xFF, 0x2F, 0x3E]), source: "bad.gpx")
        #expect(batch.records.isEmpty)
        #expect(batch.errors.first?.description.contains("bad.gpx:1:2: byte 1 is not UTF-8") == true)
        #expect(XMLBytes.check(Data("<gpx>é</gpx>".utf8)) == .valid)
        #expect(XMLBytes.check(Data([0x3C, 0x61, 0x00, 0x3E])) == .invalid(offset: 2, line: 1, column: 3))
        // Overlong form of '/', and a surrogate: both invalid UTF-8.
        #expect(XMLBytes.check(Data([0x3C, 0xC0, 0xAF])) == .invalid(offset: 1, line: 1, column: 2))
        #expect(XMLBytes.check(Data([0x0A, 0xED, 0xA0, 0x80])) == .invalid(offset: 1, line: 2, column: 1))
    }

    @Test func pointsBeforeABadByteAreKept() {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1"><trk><trkseg>
            <trkpt lat="47.1" lon="8.1"><time>2021-05-01T10:00:00Z</time></trkpt>
            <trkpt lat="47.2" lon="8.2"><time>2021-05-01T10:01:00Z</time></trkpt>
            <trkpt lat="47.3" lon="8.3"><name>\u{1}</name></trkpt>
            """
        var bytes = Array(text.utf8)
        bytes.append(contentsOf: [0x0A, 0x3C, 0xFF, 0x3E])
        let batch = GPXReader.read(data: Data(bytes), source: "cut.gpx")
        #expect(batch.records.compactMap(\.fix).count == 2)
        #expect(batch.errors.count == 1)
        #expect(batch.errors.first?.line == 6)
    }

    @Test func aDocumentInAnotherEncodingIsRefusedWithItsName() {
        let text = #"<?xml version="1.0" encoding="ISO-8859-1"?><gpx></gpx>"#
        let batch = GPXReader.read(data: Data(text.utf8), source: "latin.gpx")
        #expect(batch.errors.first?.message.contains("ISO-8859-1") == true)
    }

    /// A scratch file with `bytes`, removed by the caller.
    private func scratchFile(_ bytes: [UInt8]) throws -> String {
        let path = NSTemporaryDirectory() + "geofence-hostile-\(UUID().uuidString)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func readAll(_ path: String) throws -> (
        records: [InputRecord], errors: [RecordError], notes: [String]
    ) {
        var records: [InputRecord] = []
        var errors: [RecordError] = []
        var notes: [String] = []
        try RecordReader(path: path, maxLineBytes: 4096).read(
            record: { records.append($0) }, error: { errors.append($0) }, note: { notes.append($0) })
        return (records, errors, notes)
    }

    @Test func aLineLongerThanTheLimitIsSkippedAndTheNextOneRead() throws {
        var bytes = [UInt8](repeating: 0, count: 100_000)
        bytes.append(0x0A)
        bytes.append(
            contentsOf: Array(#"{"latitude":47.3,"longitude":8.5,"time":"2021-05-01T10:00:00Z"}"#.utf8))
        let path = try scratchFile(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let read = try readAll(path)
        #expect(read.records.compactMap(\.fix).count == 1)
        #expect(read.errors.count == 1)
        #expect(read.errors.first?.line == 1)
        #expect(read.errors.first?.message.contains("100000 bytes is longer than 4096") == true)
    }

    @Test func aFileWithoutNewlinesIsOneSkippedLine() throws {
        let path = try scratchFile([UInt8](repeating: 0, count: 300_000))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let read = try readAll(path)
        #expect(read.records.isEmpty)
        #expect(read.errors.count == 1)
    }

    @Test func inputSortedNewestFirstIsReadOldestFirst() throws {
        let lines = (0..<20).reversed().map { minute in
            #"{"latitude":47.3,"longitude":8.5,"time":"2021-05-01T10:\#(String(format: "%02d", minute)):00Z"}"#
        }
        let path = try scratchFile(Array((lines.joined(separator: "\n") + "\n").utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let read = try readAll(path)
        let times = read.records.compactMap(\.fix).map(\.timestamp)
        #expect(times.count == 20)
        #expect(times == times.sorted())
        #expect(read.notes.count == 1)
        #expect(read.notes.first?.contains("newest fix first") == true)
    }

    @Test func inputOldestFirstWithAFewStepsBackStreamsAsItCame() throws {
        let minutes = [0, 1, 2, 1, 3, 4, 5, 6, 7, 8, 9, 10]
        let lines = minutes.map { minute in
            #"{"latitude":47.3,"longitude":8.5,"time":"2021-05-01T10:\#(String(format: "%02d", minute)):00Z"}"#
        }
        let path = try scratchFile(Array((lines.joined(separator: "\n") + "\n").utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let read = try readAll(path)
        let times = read.records.compactMap(\.fix).map { Int($0.timestamp.timeIntervalSince1970 / 60) % 60 }
        #expect(times == minutes)
        #expect(read.notes.isEmpty)
    }

    /// Every input a fuzzer crashed a reader with, kept in `Fuzz/crashes`, is read to an answer.
    @Test(arguments: ["gpx", "lines"])
    func everyKeptFuzzCrashIsReadWithoutTrapping(target: String) throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/crashes/\(target)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(!names.isEmpty)
        for name in names {
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            let batch =
                target == "gpx"
                ? GPXReader.read(data: data, source: name)
                : InputReader.readAll(data: data.dropFirst(), source: name, format: .auto)
            #expect(!batch.errors.isEmpty, "\(name) gives an error naming its fault")
        }
    }

    @Test func aProcessingInstructionWithoutDataIsSkipped() {
        // Found by libFuzzer: FoundationXML called strlen(NULL) on this PI.
        let text =
            "\u{FEFF}<?x?>\n<gpx><trk><trkseg><trkpt lat=\"47.1\" lon=\"8.1\"><time>2021-05-01T10:00:00Z</time></trkpt></trkseg></trk></gpx>"
        let batch = GPXReader.read(data: Data(text.utf8), source: "pi.gpx")
        #expect(batch.errors.isEmpty)
        #expect(batch.records.compactMap(\.fix).count == 1)
    }

    @Test func malformedXMLNamesItsLineAndColumn() {
        let text = "<gpx>\n<trk>\n</gpx>"
        let batch = GPXReader.read(data: Data(text.utf8), source: "bad.gpx")
        #expect(
            batch.errors.map(\.description) == ["bad.gpx:3:1: the XML is malformed here: </gpx> closes <trk>"]
        )
        let entity = GPXReader.read(data: Data("<gpx>&ent;</gpx>".utf8), source: "e.gpx")
        #expect(entity.errors.first?.message.contains("unknown entity &ent;") == true)
    }

    @Test func aMissingFileIsOneUnreadableError() {
        #expect(throws: RecordError.self) {
            try RecordReader(path: "/nonexistent/fixes.ndjson").read(record: { _ in }, error: { _ in })
        }
    }
}
