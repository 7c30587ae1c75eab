import Foundation
import Testing

@testable import Geofence
@testable import GeofenceInput

/// The lines of a test file in Data/formats, without their line breaks.
private func lines(_ name: String) throws -> [String] {
    let text = try String(contentsOf: try dataURL("formats/" + name), encoding: .utf8)
    // "\r\n" is one Character in Swift, so lines are split on any newline.
    return text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
}

@Suite struct NMEAReaderTests {
    private func read(_ lines: [String], source: String = "gpslogger.nmea") -> (
        records: [InputRecord], errors: [String]
    ) {
        var reader = NMEAReader(source: source)
        var records: [InputRecord] = []
        var errors: [String] = []
        let collect: (Result<InputRecord, RecordError>) -> Void = {
            switch $0 {
            case .success(let record): records.append(record)
            case .failure(let error): errors.append(error.description)
            }
        }
        for (index, line) in lines.enumerated() {
            var bytes = Array(line.utf8)
            bytes.withUnsafeMutableBufferPointer {
                reader.line(UnsafeBufferPointer($0), number: index + 1, collect)
            }
        }
        reader.finish(collect)
        return (records, errors)
    }

    @Test func rmcAndGGAOfOneEpochAreOneFixAndGGAAloneTakesTheDateAcrossMidnight() throws {
        let (records, errors) = read(try lines("gpslogger.nmea"))
        let fixes = records.compactMap(\.fix)
        let midnight = 1_798_761_600.0  // 2027-01-01T00:00:00Z
        #expect(
            fixes.map(\.timestamp) == [
                unix(midnight - 2), unix(midnight - 1), unix(midnight), unix(midnight + 2),
            ])
        let first = try #require(fixes.first)
        #expect(abs(first.coordinate.latitude - (48 + 7.038 / 60)) < 1e-12)
        #expect(abs(first.coordinate.longitude - (11 + 31.0 / 60)) < 1e-12)
        #expect(first.altitude == 545.4)
        #expect(abs((first.speed ?? 0) - 22.4 * 1852 / 3600) < 1e-12)
        #expect(first.course == 84.4)
        #expect(first.horizontalAccuracy == nil)
        #expect(fixes[3].altitude == nil && fixes[3].speed == 0 && fixes[3].course == nil)
        #expect(
            records.contains(
                .ignored(kind: "nmea", reason: "gpslogger.nmea:7: the receiver had no fix (RMC status V)")))
        #expect(
            errors == [
                "gpslogger.nmea:10: checksum 00 does not match the sentence (79): it was damaged",
                "gpslogger.nmea:11: field \"RMC latitude\": hemisphere \"X\" is not N or S",
            ])
    }

    @Test func aPositionBeforeAnyDateIsReported() {
        let (records, errors) = read(["$GPGGA,120000.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"])
        #expect(records.isEmpty)
        #expect(
            errors == [
                "gpslogger.nmea:1: a position without a date: no RMC or ZDA sentence has given one yet"
            ])
    }

    @Test func zdaDatesTheGGAOfItsEpoch() {
        let (records, errors) = read([
            "$GPZDA,120000.00,03,03,2026,00,00",
            "$GPGGA,120000.00,5130.000,N,00007.000,W,1,08,0.9,20.0,M,46.9,M,,",
        ])
        #expect(errors.isEmpty)
        #expect(records.compactMap(\.fix).map(\.timestamp) == [unix(1_772_539_200)])
        #expect(records.compactMap(\.fix).first?.coordinate.longitude == -(7.0 / 60))
    }

    @Test func sentencesAreToldFromOtherLines() {
        var good = Array("$GPRMC,000002.00,A,4807.050,N,01131.030,E,0.0,,010127,,,A*66".utf8)
        var bad = Array(#"{"lat":1}"#.utf8)
        #expect(good.withUnsafeMutableBufferPointer { NMEAReader.looksLikeOne(UnsafeBufferPointer($0)) })
        #expect(!bad.withUnsafeMutableBufferPointer { NMEAReader.looksLikeOne(UnsafeBufferPointer($0)) })
    }
}

@Suite struct GeoLifeReaderTests {
    @Test func theHeaderIsSkippedAndFeetBecomeMetres() throws {
        var reader = GeoLifeReader(source: "20081023025304.plt", deviceId: "geolife/000")
        var records: [InputRecord] = []
        for (index, line) in try lines("geolife-20081023025304.plt").enumerated() {
            var bytes = Array(line.utf8)
            let result = bytes.withUnsafeMutableBufferPointer {
                reader.line(UnsafeBufferPointer($0), number: index + 1)
            }
            if case .success(let record?) = result { records.append(record) }
            if case .failure(let error) = result { Issue.record("unexpected error \(error)") }
        }
        #expect(
            records.compactMap(\.fix) == [
                Fix(
                    timestamp: unix(1_224_730_384), coordinate: at(39.984702, 116.318417),
                    altitude: 492 * 0.3048,
                    deviceId: "geolife/000"),
                Fix(
                    timestamp: unix(1_224_730_390), coordinate: at(39.984683, 116.31845),
                    altitude: 492 * 0.3048,
                    deviceId: "geolife/000"),
                Fix(
                    timestamp: unix(1_224_730_395), coordinate: at(39.984686, 116.318417),
                    deviceId: "geolife/000"),
            ])
    }

    @Test func aBrokenLineNamesItsField() {
        var reader = GeoLifeReader(source: "x.plt")
        var line = Array("39.98,116.31,0,492,39744.12,2008-13-23,02:53:04".utf8)
        let result = line.withUnsafeMutableBufferPointer { reader.line(UnsafeBufferPointer($0), number: 9) }
        #expect(throws: RecordError.self) { try result.get() }
        if case .failure(let error) = result {
            #expect(
                error.description == "x.plt:9: field \"date\": \"2008-13-23,02:53:04\" is not a date and time"
            )
        }
    }

    @Test(arguments: [
        ("Geolife Trajectories 1.3/Data/000/Trajectory/20081023025304.plt", "geolife/000"),
        ("/data/Data/153/Trajectory/x.plt", "geolife/153"),
        ("tracks/x.plt", nil),
    ])
    func theDeviceOfAGeoLifeFileIsItsUser(path: String, device: String?) {
        #expect(GeoLifeReader.device(forPath: path) == device)
    }
}

@Suite struct KMLReaderTests {
    @Test func gpsloggerTracksArePairedWhenByCoordAndAnnotationsMoveNothing() throws {
        let data = try Data(contentsOf: try dataURL("formats/gpslogger.kml"))
        let batch = KMLReader.read(data: data, source: "gpslogger.kml")
        #expect(batch.errors.isEmpty)
        #expect(
            batch.records.compactMap(\.fix) == [
                Fix(timestamp: unix(1_500_540_587), coordinate: at(51.5079, -0.1223), altitude: 51),
                Fix(timestamp: unix(1_500_540_647), coordinate: at(51.5081, -0.1231), altitude: 12),
                Fix(timestamp: unix(1_500_541_800), coordinate: at(51.5101, -0.1301), altitude: 10),
            ])
        #expect(
            batch.records.contains(
                .ignored(kind: "Placemark", reason: "gpslogger.kml:2: a Placemark without a time")))
    }

    @Test func aTimedPlacemarkIsAFix() {
        let text = """
            <kml xmlns="http://www.opengis.net/kml/2.2"><Document>
            <Placemark><TimeStamp><when>2026-03-03T08:00:00Z</when></TimeStamp><Point><coordinates>-0.1246,51.5007,3</coordinates></Point></Placemark>
            </Document></kml>
            """
        let batch = KMLReader.read(data: Data(text.utf8), source: "x.kml")
        #expect(batch.errors.isEmpty)
        #expect(
            batch.records.compactMap(\.fix) == [
                Fix(timestamp: unix(1_772_524_800), coordinate: at(51.5007, -0.1246), altitude: 3)
            ])
    }

    @Test func unpairedWhensAndCoordsAreAnErrorNotAGuess() {
        let text =
            "<kml><Document><Placemark><gx:Track>\n<when>2026-03-03T08:00:00Z</when>\n<when>2026-03-03T08:01:00Z</when>\n<gx:coord>1 2 3</gx:coord>\n</gx:Track></Placemark></Document></kml>"
        let batch = KMLReader.read(data: Data(text.utf8), source: "x.kml")
        #expect(batch.records.isEmpty)
        #expect(
            batch.errors.map(\.description) == [
                "x.kml:1: a gx:Track with 2 <when> and 1 <gx:coord>: they must pair up"
            ])
    }

    @Test func bytesThatAreNotUTF8EndTheDocumentAtTheLineBeforeThem() {
        let batch = KMLReader.read(
            data: Data([0x3C, 0x6B, 0x6D, 0x6C, 0x3E, 0x0A, 0x3C, 0xFF, 0x2F, 0x3E]), source: "x.kml")
        #expect(
            batch.errors.map(\.description) == [
                "x.kml:2:2: byte 7 is not UTF-8 (or is a NUL); the document is read up to the line before it"
            ])
    }

    @Test func anotherRootIsNamed() {
        let batch = KMLReader.read(data: Data("<TrainingCenterDatabase/>".utf8), source: "x.tcx")
        #expect(
            batch.errors.map(\.description) == [
                "x.tcx:1: not a KML document: the root element is <TrainingCenterDatabase>"
            ])
    }
}

@Suite struct XMLRootNameTests {
    @Test(arguments: [
        ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><kml xmlns=\"http://www.opengis.net/kml/2.2\">", "kml"),
        ("\u{FEFF}<?xml version=\"1.0\"?>\n<!-- made by hand -->\n<gpx version=\"1.1\">", "gpx"),
        ("<!DOCTYPE x><kml:kml>", "kml"),
        ("<TrainingCenterDatabase/>", "TrainingCenterDatabase"),
        ("<?xml version=\"1.0\"", nil),
        ("{\"a\":1}", nil),
    ])
    func theRootElementIsFoundAfterDeclarationsAndComments(text: String, name: String?) {
        var bytes = Array(text.utf8)
        #expect(
            bytes.withUnsafeMutableBufferPointer { XMLRootName.find(in: UnsafeBufferPointer($0)) } == name)
    }
}

@Suite struct TopicLineTests {
    @Test(arguments: [
        (#"owntracks/jane/phone {"_type":"location","lat":1,"lon":2,"tst":3}"#, "owntracks/jane/phone", 21),
        (#"owntracks/jane/phone/event  {"_type":"transition"}"#, "owntracks/jane/phone/event", 28),
    ])
    func aTopicAndItsPayloadAreFound(line: String, topic: String, payloadStart: Int) {
        var bytes = Array(line.utf8)
        let split = bytes.withUnsafeMutableBufferPointer {
            TopicLine.split(UnsafeBufferPointer($0), 0, $0.count)
        }
        #expect(split?.topic == topic)
        #expect(split?.payloadStart == payloadStart)
    }

    @Test(arguments: [
        #"{"_type":"location"}"#,
        "2023-11-14T22:13:20Z\t*                 \t{}",
        #"lat,lon,time {"x"}"#,
        "nothing here {",
        "owntracks/jane/phone",
    ])
    func otherLinesAreNotTopicLines(line: String) {
        var bytes = Array(line.utf8)
        #expect(
            bytes.withUnsafeMutableBufferPointer { TopicLine.split(UnsafeBufferPointer($0), 0, $0.count) }
                == nil)
    }
}
