import Foundation
import Testing

@testable import Geofence
@testable import GeofenceInput

@Suite struct InputReaderTests {
    @Test func aBadLineNeverStopsARunAndNothingAcceptedIsLost() {
        let text = [
            #"{"latitude":1,"longitude":2,"timestamp":1700000000000}"#,
            #"{"latitude":95.2,"longitude":2,"timestamp":1700000001000}"#,
            "not a record",
            "",
            #"{"_type":"location","lat":1,"lon":2,"tst":1700000002}"#,
            #"{"_type":"lwt","tst":1700000003}"#,
            "2023-11-14T22:13:24Z\t*                 \t{\"_type\":\"location\",\"lat\":1,\"lon\":2,\"tst\":1700000004}",
        ].joined(separator: "\r\n")
        let batch = InputReader.readAll(data: Data(text.utf8), source: "mixed.log")
        #expect(
            batch.records == [
                .fix(Fix(timestamp: unix(1_700_000_000), coordinate: at(1, 2))),
                .fix(Fix(timestamp: unix(1_700_000_002), coordinate: at(1, 2))),
                .ignored(kind: "lwt", reason: "last will: the device lost its connection to the broker"),
                .fix(Fix(timestamp: unix(1_700_000_004), coordinate: at(1, 2))),
            ])
        #expect(
            batch.errors.map(\.description) == [
                #"mixed.log:2: field "latitude": 95.2 is outside -90...90"#,
                "mixed.log:3: not JSON, not an OwnTracks Recorder line, and no CSV header naming latitude, longitude and time has been read",
            ])
        #expect(batch.errors.map(\.kind) == [.invalidCoordinate, .unrecognized])
    }

    @Test func readsCSVWhenAHeaderComesFirst() {
        let text = "\u{FEFF}lat,lon,time\n1,2,1700000000\n3,4,1700000001\n"
        let batch = InputReader.readAll(data: Data(text.utf8), source: "t.csv")
        #expect(batch.errors == [])
        #expect(batch.records.compactMap { $0.fix?.coordinate } == [at(1, 2), at(3, 4)])
    }

    @Test func aForcedFormatIsUsedForEveryLine() {
        let text = #"{"_type":"location","lat":1,"lon":2,"tst":1700000000}"#
        let batch = InputReader.readAll(data: Data(text.utf8), source: "f", format: .ndjson)
        #expect(batch.records == [])
        #expect(batch.errors.map(\.kind) == [.missingField])
    }

    @Test func aGPXLineOnItsOwnIsNotReadLineByLine() {
        let error = decodeOne("<gpx>", source: "s", number: 1).failure
        #expect(error?.description == "s:1: GPX is read as a whole document (GPXReader), not line by line")
        #expect(error?.kind == .unrecognized)
    }

    @Test func aMissingFileIsOneUnreadableError() {
        let url = URL(fileURLWithPath: "/nonexistent/geofence/fixes.ndjson")
        let batch = InputReader.readAll(contentsOf: url)
        #expect(batch.records == [])
        #expect(batch.errors.count == 1)
        #expect(batch.errors.first?.kind == .unreadable)
        #expect(batch.errors.first?.description.hasPrefix("fixes.ndjson: cannot be read") == true)
    }

    @Test func everyFormatHasAName() {
        #expect(
            InputFormat.allCases.map(\.rawValue) == [
                "auto", "ndjson", "owntracks", "rec", "gpx", "csv", "json", "takeout", "geojson", "kml",
                "nmea",
                "geolife",
            ])
        #expect(InputFormat(rawValue: "owntracks") == .owntracks)
    }
}

@Suite struct RecorderDeviceTests {
    @Test(
        arguments: [
            ("/var/spool/owntracks/recorder/store/rec/jane/phone/2026-11.rec", "jane/phone"),
            ("store/rec/bob/tablet/2025-01.rec", "bob/tablet"),
            ("/tmp/fixes.ndjson", nil),
            ("/data/rec/2026-11.rec", nil),
        ] as [(String, String?)])
    func theDeviceOfARecorderFileComesFromItsPath(path: String, device: String?) {
        #expect(InputReader.recorderDevice(forPath: path) == device)
    }
}
