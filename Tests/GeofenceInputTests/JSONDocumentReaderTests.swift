import Foundation
import Testing

@testable import Geofence
@testable import GeofenceInput

/// Reads a test file from Data/formats with the JSON document reader.
private func readFormat(
    _ name: String, expected: JSONDocumentReader.Expected = .any, deviceId: String? = nil
) throws -> InputBatch {
    let data = try Data(contentsOf: try dataURL("formats/" + name))
    return JSONDocumentReader.readAll(data: data, source: name, deviceId: deviceId, expected: expected)
}

@Suite struct JSONRecordSplitterTests {
    /// Cuts text into pieces, fed in chunks of `chunk` bytes.
    private func pieces(_ text: String, chunk: Int = 1 << 16, maximum: Int = 1 << 20) -> [JSONRecordSplitter
        .Piece]
    {
        var splitter = JSONRecordSplitter(maximumRecordBytes: maximum)
        var result: [JSONRecordSplitter.Piece] = []
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            splitter.feed(Array(bytes[start..<min(start + chunk, bytes.count)])) { result.append($0) }
            start += chunk
        }
        splitter.finish { result.append($0) }
        return result
    }

    private func records(_ pieces: [JSONRecordSplitter.Piece]) -> [String] {
        pieces.compactMap {
            if case .record(let bytes, _, _) = $0 { String(decoding: bytes, as: UTF8.self) } else { nil }
        }
    }

    @Test func theElementsOfARecordArrayAreTheRecordsAndOtherMembersAreSkipped() {
        let text =
            #"{"count":2,"meta":{"a":[1,2,{"b":"]}"}]},"locations":[{"x":1},{"y":"}\"{"}],"after":[3]}"#
        let found = pieces(text)
        #expect(records(found) == [#"{"x":1}"#, #"{"y":"}\"{"}"#])
        #expect(found.contains(.record(bytes: Array(#"{"x":1}"#.utf8), line: 1, container: "locations")))
    }

    @Test(arguments: [1, 2, 3, 7, 64])
    func chunkBoundariesDoNotChangeWhatIsFound(chunk: Int) {
        let text = """
            {"type":"FeatureCollection","features":[
            {"type":"Feature","properties":{"t":"a,b"},"geometry":{"type":"Point","coordinates":[1.5,2]}},
            {"type":"Feature","properties":{"t":"\\"]"},"geometry":null}
            ]}
            [ {"a":1}, {"b":[true,false,null]} ]
            {"latitude":1,"longitude":2,"timestamp":1700000000000}
            """
        #expect(pieces(text, chunk: chunk) == pieces(text))
        #expect(records(pieces(text)).count == 5)
    }

    @Test func aRecordStartsOnTheLineWhereItsFirstByteIs() {
        let text = "{\n  \"locations\" : [ {\n    \"a\" : 1\n  }, {\n    \"b\" : 2\n  } ]\n}\n"
        let lines = pieces(text).compactMap { if case .record(_, let line, _) = $0 { line } else { nil } }
        #expect(lines == [2, 4])
    }

    @Test func aTopLevelObjectWithoutARecordArrayIsItselfARecord() {
        let found = pieces(
            #"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{}}"#)
        #expect(records(found).count == 1)
        #expect(
            found.first
                == .record(
                    bytes: Array(
                        #"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{}}"#
                            .utf8), line: 1, container: nil))
    }

    @Test func aRecordOverTheLimitIsSkippedAndTheNextIsRead() {
        let big = String(repeating: "x", count: 300)
        let found = pieces(#"{"locations":[{"a":"\#(big)"},{"b":1}]}"#, maximum: 100)
        #expect(found.first == .oversizedRecord(line: 1, container: "locations"))
        #expect(records(found) == [#"{"b":1}"#])
    }

    @Test func brokenStructureIsReportedWithItsLineAndStopsTheStream() {
        let found = pieces("{\"locations\":[{\"a\":1}]}\n{\"x\" 1}")
        #expect(records(found) == [#"{"a":1}"#])
        #expect(found.last == .malformed(line: 2, message: "expected ':' after a member name"))
        let cut = pieces(#"{"locations":[{"a":1},{"b":"#)
        #expect(cut.last == .malformed(line: 1, message: "the JSON ends before its last value is closed"))
    }

    @Test func aLargeDocumentIsCutOutWithoutHoldingMoreThanARecord() {
        // 20 MB of Takeout-shaped records, fed 64 KiB at a time: what is held at once stays the
        // size of one record (plus the growth slack of an array), not of the document.
        var splitter = JSONRecordSplitter()
        let record = Array(
            #"{"timestampMs":"1486105895000","latitudeE7":356617327,"longitudeE7":1396785506,"accuracy":8},"#
                .utf8)
        var chunk = Array("{\"locations\":[".utf8)
        var fed = 0
        var count = 0
        while fed < 20_000_000 {
            while chunk.count < 1 << 16 { chunk += record }
            splitter.feed(chunk) { if case .record = $0 { count += 1 } }
            fed += chunk.count
            chunk = []
        }
        splitter.feed(Array(#"{"a":1}]}"#.utf8)) { if case .record = $0 { count += 1 } }
        #expect(count > 200_000)
        #expect(splitter.peakBufferedBytes < 4096)
    }
}

@Suite struct TakeoutRecordsTests {
    @Test func theOldLayoutWithTimestampMsIsRead() throws {
        let batch = try readFormat("takeout-records-old.json")
        #expect(batch.errors.isEmpty)
        let fixes = batch.records.compactMap(\.fix)
        #expect(fixes.count == 3)
        #expect(
            fixes[0]
                == Fix(
                    timestamp: unix(1_486_105_895), coordinate: at(35.6617327, 139.6785506),
                    horizontalAccuracy: 8,
                    altitude: 98, speed: 0, course: 145))
        #expect(fixes[1].timestamp == unix(1_486_110_600.090))
        // A latitude that overflowed a signed 32-bit integer is wrapped back.
        #expect(abs(fixes[2].coordinate.latitude - -9.4967296) < 1e-9)
        #expect(fixes[2].coordinate.longitude == -139.6787215)
    }

    @Test func theNewLayoutWithISOTimestampsAndDeviceTagsIsRead() throws {
        let batch = try readFormat("takeout-records-new.json")
        #expect(batch.errors.isEmpty)
        let fixes = batch.records.compactMap(\.fix)
        #expect(
            fixes.first
                == Fix(
                    timestamp: unix(1_642_007_904.190), coordinate: at(41.4216106, 2.1684775),
                    horizontalAccuracy: 20,
                    altitude: 150, verticalAccuracy: 10, speed: 10, course: 270, deviceId: "1234567890"))
        // The record's own timestamp, not the one of its nested activity.
        #expect(fixes.map(\.timestamp) == [unix(1_642_007_904.190), unix(1_642_007_995)])
        #expect(fixes.map(\.deviceId) == ["1234567890", "-987654321"])
    }

    @Test func aDeviceGivenToTheReaderNamesEveryRecord() throws {
        let batch = try readFormat("takeout-records-new.json", deviceId: "jane/phone")
        #expect(batch.records.compactMap(\.fix).map(\.deviceId) == ["jane/phone", "jane/phone"])
    }

    @Test func aBadRecordIsReportedOnItsOwnLineAndTheRestAreRead() {
        let text = """
            {
              "locations" : [ {
                "timestampMs" : "1486105895000",
                "latitudeE7" : 956617327,
                "longitudeE7" : 1396785506
              }, {
                "latitudeE7" : 356617327,
                "longitudeE7" : 1396785506
              }, {
                "timestampMs" : "1486105896000",
                "latitudeE7" : 356617327,
                "longitudeE7" : 1396785506
              } ]
            }
            """
        let batch = JSONDocumentReader.readAll(data: Data(text.utf8), source: "Records.json")
        #expect(batch.records.count == 1)
        #expect(
            batch.errors.map(\.description) == [
                "Records.json:4: field \"latitudeE7\": 95.6617327 is outside -90...90",
                "Records.json:6: field \"timestamp\": missing (a Takeout location needs timestamp or timestampMs)",
            ])
    }
}

@Suite struct GeoJSONFormatTests {
    @Test func anOverlandBatchGivesItsFixesAndVisitsAndSkipsTripsAndAppEvents() throws {
        let batch = try readFormat("overland-batch.json")
        #expect(batch.errors.isEmpty)
        #expect(batch.records.count == 4)
        #expect(
            batch.records[0]
                == .fix(
                    Fix(
                        timestamp: unix(1_443_711_600), coordinate: at(37.3318, -122.030581),
                        horizontalAccuracy: 30,
                        altitude: 0, speed: 4, deviceId: "phone")))
        #expect(
            batch.records[1]
                == .visit(
                    Visit(
                        coordinate: at(37.3319, -122.0306), horizontalAccuracy: 42,
                        arrival: unix(1_443_711_900),
                        departure: nil)))
        #expect(
            batch.records[2]
                == .ignored(kind: "action", reason: "an Overland app event (app_terminated), not a position"))
        #expect(
            batch.records[3] == .ignored(kind: "trip", reason: "an Overland trip summary, not a position"))
        // `current` (a newer point sent again in a later batch) is not read: the 18:00 fix is absent.
        #expect(!batch.records.compactMap(\.fix).contains { $0.timestamp == unix(1_443_722_400) })
    }

    @Test func aGPSLoggerFeatureCollectionIsRead() throws {
        let batch = try readFormat("gpslogger.geojson")
        #expect(batch.errors.isEmpty)
        #expect(
            batch.records.compactMap(\.fix) == [
                Fix(
                    timestamp: unix(1_500_540_587), coordinate: at(51.5079, -0.1223), horizontalAccuracy: 4,
                    altitude: 51, speed: 1.25, course: 113.2),
                Fix(
                    timestamp: unix(1_500_540_647), coordinate: at(51.5081, -0.1231), horizontalAccuracy: 25.5
                ),
            ])
    }

    @Test func trackintelPositionfixesAreRead() throws {
        let batch = try readFormat("trackintel-positionfixes.geojson")
        #expect(batch.errors.isEmpty)
        let fixes = batch.records.compactMap(\.fix)
        #expect(fixes.count == 2)
        #expect(abs(fixes[0].timestamp.timeIntervalSince1970 - 1_548_442_816.178999) < 1e-6)
        #expect(fixes[0].horizontalAccuracy == nil)  // 0 is "unknown"
        #expect(
            fixes[1]
                == Fix(
                    timestamp: unix(1_548_443_069), coordinate: at(47.0517351, 7.0390012),
                    horizontalAccuracy: 12, altitude: 435.5, deviceId: "0"))
    }

    @Test func aLineStringIsRefusedNamingWhatItIs() {
        let text =
            #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[1,2],[3,4]]}}]}"#
        let batch = JSONDocumentReader.readAll(data: Data(text.utf8), source: "track.geojson")
        #expect(batch.records.isEmpty)
        #expect(
            batch.errors.map(\.description) == [
                "track.geojson:1: field \"geometry.type\": a GeoJSON LineString is a drawn track with no time per point; only Point features are fixes"
            ])
    }

    @Test func aFeatureWithoutATimeSaysWhereItLooked() {
        let text =
            #"{"type":"Feature","properties":{"name":"x"},"geometry":{"type":"Point","coordinates":[8.5,47.1]}}"#
        let batch = JSONDocumentReader.readAll(data: Data(text.utf8), source: "one.geojson")
        #expect(
            batch.errors.map(\.description) == [
                "one.geojson:1: field \"properties.timestamp\": missing (looked for timestamp, time, tracked_at, datetime, date and time_long)"
            ])
    }
}

@Suite struct RecorderDocumentTests {
    @Test func ocatOutputIsRead() throws {
        let batch = try readFormat("ocat.json", deviceId: "jjolie/moto")
        #expect(batch.errors.isEmpty)
        #expect(
            batch.records.compactMap(\.fix) == [
                Fix(
                    timestamp: unix(1_706_694_150), coordinate: at(20.634506, -87.078073),
                    horizontalAccuracy: 5,
                    altitude: 0, speed: 12 / 3.6, course: 67, deviceId: "jjolie/moto", label: "JJ",
                    trigger: .request),
                Fix(
                    timestamp: unix(1_706_694_270), coordinate: at(20.634601, -87.0781),
                    horizontalAccuracy: 8,
                    deviceId: "jjolie/moto", label: "JJ"),
            ])
    }

    @Test func theRecorderAPIsLocationsAndLastAreReadWithTheirDevices() throws {
        let locations = try readFormat("recorder-api-locations.json")
        #expect(locations.errors.isEmpty)
        #expect(locations.records.compactMap(\.fix).map(\.deviceId) == ["NE"])
        let last = try readFormat("recorder-api-last.json")
        #expect(last.errors.isEmpty)
        // USER/DEVICE from the topic, or from the username and device the Recorder adds.
        #expect(last.records.compactMap(\.fix).map(\.deviceId) == ["demo/iphone", "jane/phone"])
    }
}

@Suite struct UnknownJSONShapeTests {
    @Test func semanticLocationHistoryIsNamed() {
        let text = """
            {
              "timelineObjects": [{
                "placeVisit": {"location": {"latitudeE7": 414216106, "longitudeE7": 21684775}}
              }]
            }
            """
        let batch = JSONDocumentReader.readAll(data: Data(text.utf8), source: "2022_JANUARY.json")
        #expect(batch.records.isEmpty)
        #expect(
            batch.errors.map(\.description) == [
                "2022_JANUARY.json:2: field \"timelineObjects\": Google Takeout's Semantic Location History (a month of visits and trips, not fixes; read Records.json instead) is not read; its \"timelineObjects\" array was skipped"
            ])
    }

    @Test func aForcedShapeRefusesOtherRecordsNamingBoth() throws {
        let batch = try readFormat("gpslogger.geojson", expected: .takeout)
        #expect(batch.records.isEmpty)
        #expect(
            batch.errors.first?.description
                == "gpslogger.geojson:2: expected a Google Takeout location (latitudeE7, longitudeE7), found a GeoJSON Feature"
        )
    }

    @Test func anObjectOfNoKnownShapeListsItsMembers() {
        let batch = JSONDocumentReader.readAll(
            data: Data(#"[{"when":1,"where":"home"}]"#.utf8), source: "x.json")
        #expect(
            batch.errors.map(\.description) == [
                "x.json:1: not a record this reader knows: an object with members when, where"
            ])
    }
}

@Suite struct JSONDocumentSniffingTests {
    @Test(arguments: [
        ("[{\"a\":1}]", true),
        ("{\n  \"locations\" : [ {\n", true),
        ("{\"locations\":[{\"type\":\"Feature\"}]}\n", true),
        ("{\"type\": \"FeatureCollection\",\"features\": [\n{\"type\": \"Feature\"}\n", true),
        ("{\"type\":\"Feature\",\"geometry\":null,\"properties\":{}}\n", true),
        ("{\"_type\":\"location\",\"lat\":1,\"lon\":2,\"tst\":3,\"inregions\":[\"home\"]}\n", false),
        ("{\"latitude\":1,\"longitude\":2,\"timestamp\":1700000000000}\n{\"latitude\":1", false),
        ("2023-11-14T22:13:20Z\t*                 \t{}\n", false),
    ])
    func documentsAreToldFromJSONLines(text: String, isDocument: Bool) {
        var bytes = Array(text.utf8)
        let found = bytes.withUnsafeMutableBufferPointer {
            JSONDocumentReader.isDocument(prefix: UnsafeBufferPointer($0))
        }
        #expect(found == isDocument)
    }

    @Test func anUnfinishedFirstLineIsUndecided() {
        var bytes = Array("{\"latitude\":1,".utf8)
        #expect(
            bytes.withUnsafeMutableBufferPointer {
                JSONDocumentReader.isDocument(prefix: UnsafeBufferPointer($0))
            } == nil)
    }
}

@Suite struct HomeAssistantHistoryTests {
    @Test func theHistoryAPIsArraysOfStatesGiveFixesPerEntity() throws {
        let batch = try readFormat("homeassistant-history.json")
        #expect(batch.errors.isEmpty)
        let fixes = batch.records.compactMap(\.fix)
        #expect(fixes.map(\.deviceId) == ["device_tracker.pixel_7", "device_tracker.pixel_7", "person.jane"])
        let moving = fixes[1]
        // last_updated, not last_changed: the position moved after the zone did.
        #expect(abs(moving.timestamp.timeIntervalSince1970 - 1_772_524_965.000001) < 1e-6)
        #expect(moving.coordinate == at(51.5012, -0.1198))
        #expect(moving.horizontalAccuracy == 20 && moving.altitude == 29 && moving.verticalAccuracy == 4)
        #expect(moving.speed == 1 && moving.course == 88)
        #expect(
            batch.records.contains(
                .ignored(kind: "state", reason: "a Home Assistant state without a position (unavailable)")))
    }
}

@Suite struct TimelineExportTests {
    @Test func thePhonesTimelineExportGivesItsRawPositionsAndSkipsTheRest() throws {
        let batch = try readFormat("timeline-phone.json")
        #expect(batch.errors.isEmpty)
        #expect(
            batch.records.compactMap(\.fix) == [
                Fix(
                    timestamp: unix(1_718_010_000), coordinate: at(48.833657, 2.256223),
                    horizontalAccuracy: 13,
                    altitude: 80, speed: 0),
                Fix(
                    timestamp: unix(1_718_010_060.5), coordinate: at(48.8337, 2.2563), horizontalAccuracy: 40),
            ])
        #expect(
            batch.records.contains(
                .ignored(kind: "wifiScan", reason: "a Timeline raw signal that is not a position (wifiScan)"))
        )
        #expect(
            batch.records.contains {
                if case .ignored(kind: "semanticSegments", _) = $0 { true } else { false }
            })
    }
}
