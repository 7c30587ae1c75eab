import Foundation
import Testing

@testable import Geofence
@testable import GeofenceInput

@Suite struct StreamDecoderTests {
    /// Feeds a test file's lines one by one, as `run` does.
    private func decodeLines(_ name: String, format: InputFormat = .auto) throws -> (
        records: [InputRecord], errors: [RecordError], format: InputFormat?
    ) {
        let text = try String(contentsOf: try dataURL("formats/" + name), encoding: .utf8)
        var decoder = StreamDecoder(format: format, source: name)
        var results: [Result<InputRecord, RecordError>] = []
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            .enumerated()
        {
            results += decoder.decode(String(line), number: index + 1)
        }
        results += decoder.finish()
        return (
            results.compactMap { try? $0.get() },
            results.compactMap { if case .failure(let error) = $0 { error } else { nil } },
            decoder.decidedFormat
        )
    }

    @Test(arguments: [
        ("takeout-records-old.json", InputFormat.json, 3),
        ("takeout-records-new.json", .json, 2),
        ("overland-batch.json", .json, 1),
        ("gpslogger.geojson", .json, 2),
        ("ocat.json", .json, 2),
        ("homeassistant-history.json", .json, 3),
        ("timeline-phone.json", .json, 2),
        ("geolife-20081023025304.plt", .geolife, 3),
    ])
    func everyLineFormatIsToldFromItsFirstLine(name: String, format: InputFormat, fixes: Int) throws {
        let read = try decodeLines(name)
        #expect(read.format == format)
        #expect(read.errors.isEmpty)
        #expect(read.records.compactMap(\.fix).count == fixes)
    }

    @Test func nmeaFedLineByLineGivesTheSameFixesAsTheReader() throws {
        let read = try decodeLines("gpslogger.nmea")
        #expect(read.format == .nmea)
        #expect(read.records.compactMap(\.fix).count == 4)
        #expect(read.errors.map(\.line) == [10, 11])
    }

    @Test func anXMLDocumentIsRefusedOnceNamingItsRoot() throws {
        let read = try decodeLines("gpslogger.kml")
        #expect(read.records.isEmpty)
        #expect(
            read.errors.map(\.description) == [
                "gpslogger.kml:1: an XML document (<kml>) is read whole, by replay and stays, not line by line"
            ])
    }

    @Test func theRecordersOcatOutputIsReadWhenOwnTracksIsForced() throws {
        let read = try decodeLines("ocat.json", format: .owntracks)
        #expect(read.errors.isEmpty)
        #expect(read.records.compactMap(\.fix).count == 2)
    }

    @Test func aMosquittoSubLineNamesItsDeviceByTopic() {
        var decoder = StreamDecoder(source: "pipe")
        let results = decoder.decode(
            #"owntracks/jane/phone {"_type":"location","lat":52.52,"lon":13.405,"tst":1700000000,"tid":"jp"}"#,
            number: 1)
        #expect(results.count == 1)
        #expect((try? results.first?.get())?.fix?.deviceId == "jane/phone")
        #expect((try? results.first?.get())?.fix?.label == "jp")
    }

    /// A decoder made for an input of lines only (the HTTP receiver's posts, gpsd's reports)
    /// reads its very first line as one, on the path that decodes each line where it lies.
    @Test func aDecoderForLinesReadsItsFirstLine() {
        var decoder = StreamDecoder(lines: LineDecoder(source: "posts"))
        #expect(decoder.readsIndependentJSONLines)
        let first = decoder.decode(
            #"{"latitude":47.37,"longitude":8.54,"timestamp":1700000000000}"#, number: 1)
        #expect((try? first.first?.get())?.fix?.coordinate == at(47.37, 8.54))
        #expect(decoder.decidedFormat == .auto)
    }

    @Test func ndjsonStaysLineByLine() {
        var decoder = StreamDecoder(source: "fixes.ndjson")
        let first = decoder.decode(
            #"{"latitude":47.37,"longitude":8.54,"timestamp":1700000000000}"#, number: 1)
        #expect(decoder.decidedFormat == .auto)
        #expect((try? first.first?.get())?.fix?.coordinate == at(47.37, 8.54))
    }
}

@Suite struct WholeInputFormatTests {
    @Test(arguments: [
        ("takeout-records-old.json", 3), ("takeout-records-new.json", 2), ("overland-batch.json", 1),
        ("gpslogger.geojson", 2), ("trackintel-positionfixes.geojson", 2), ("ocat.json", 2),
        ("recorder-api-locations.json", 1), ("recorder-api-last.json", 2), ("homeassistant-history.json", 3),
        ("timeline-phone.json", 2), ("gpslogger.kml", 3), ("gpslogger.nmea", 4),
        ("geolife-20081023025304.plt", 3),
    ])
    func everyFormatIsToldFromItsContent(name: String, fixes: Int) throws {
        let batch = InputReader.readAll(contentsOf: try dataURL("formats/" + name))
        #expect(batch.records.compactMap(\.fix).count == fixes)
        // The NMEA file holds two broken sentences on purpose; every other file reads cleanly.
        #expect(batch.errors.count == (name == "gpslogger.nmea" ? 2 : 0))
    }

    @Test func aOneLineDocumentWithoutANewlineIsRead() {
        let text =
            #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[8.5,47.4]},"properties":{"timestamp":"2026-03-03T08:00:00Z"}}]}"#
        let batch = InputReader.readAll(data: Data(text.utf8), source: "post.json")
        #expect(batch.errors.isEmpty)
        #expect(batch.records.compactMap(\.fix).map(\.coordinate) == [at(47.4, 8.5)])
    }
}
