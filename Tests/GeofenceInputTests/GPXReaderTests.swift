import Foundation
import Testing

@testable import Geofence
@testable import GeofenceInput

/// A shared GPX file with the number of fixes it must give and of points it must skip,
/// counted independently with Python's ElementTree.
struct GPXFileCase: Sendable, CustomTestStringConvertible {
    let file: String
    let fixes: Int
    let skipped: Int
    /// Points refused because their time is outside the plausible range (`TimeBounds`).
    var implausibleTimes = 0
    var testDescription: String { file }
}

@Suite struct GPXReaderTests {
    static let files: [GPXFileCase] = [
        // Every track point is dated 1901-12-13T20:45:52Z, the smallest 32-bit Unix time: a clock
        // that was never set. Times before 2000 are refused where they enter (issue 10).
        GPXFileCase(file: "Mojstrovka.gpx", fixes: 0, skipped: 0, implausibleTimes: 184),
        GPXFileCase(file: "around-visnjan-with-car.gpx", fixes: 104, skipped: 0),
        GPXFileCase(file: "cerknicko-jezero.gpx", fixes: 297, skipped: 6),
        GPXFileCase(file: "gpx1.1_with_all_fields.gpx", fixes: 3, skipped: 5),
        GPXFileCase(file: "korita-zbevnica.gpx", fixes: 513, skipped: 360),
        GPXFileCase(file: "track-with-empty-segment.gpx", fixes: 9, skipped: 0),
        GPXFileCase(file: "track_with_dilution_errors.gpx", fixes: 0, skipped: 3),
        GPXFileCase(file: "track_with_speed.gpx", fixes: 3, skipped: 0),
        GPXFileCase(file: "unicode_with_bom.gpx", fixes: 1, skipped: 0),
    ]

    @Test(arguments: files)
    func readsEverySharedFile(_ file: GPXFileCase) throws {
        let url = try dataURL("gpx/" + file.file)
        let batch = GPXReader.read(data: try Data(contentsOf: url), source: file.file)
        #expect(batch.records.compactMap(\.fix).count == file.fixes)
        // Every skip is a point without a time, reported as ignored, never an error; the only
        // errors are times outside the plausible range.
        #expect(batch.errors.count == file.implausibleTimes)
        #expect(batch.errors.allSatisfy { $0.field == "time" && $0.message.contains("before 2000-01-01") })
        let ignored = batch.records.compactMap { record -> String? in
            if case .ignored(_, let reason) = record { return reason }
            return nil
        }
        #expect(ignored.count == file.skipped)
        #expect(ignored.allSatisfy { $0.hasPrefix("\(file.file):") && $0.hasSuffix("has no time") })
        let times = batch.records.compactMap { $0.fix?.timestamp }
        #expect(times.count == file.fixes)
        #expect(times == times.sorted())
        // Auto-detection reads it as GPX too.
        #expect(InputReader.readAll(contentsOf: url) == batch)
    }

    @Test func readsGPX10SpeedAndElevation() throws {
        let data = try Data(contentsOf: try dataURL("gpx/track_with_speed.gpx"))
        let fixes = GPXReader.read(data: data, source: "s").records.compactMap(\.fix)
        #expect(fixes.map(\.speed) == [1.2, 2.2, 3.2])
        #expect(
            fixes.first
                == Fix(
                    timestamp: unix(1_236_002_752), coordinate: at(52.330848, 5.541371), altitude: 48.962041,
                    speed: 1.2))
    }

    @Test func readsAWaypointAfterAByteOrderMark() throws {
        let data = try Data(contentsOf: try dataURL("gpx/unicode_with_bom.gpx"))
        #expect(data.starts(with: [0xEF, 0xBB, 0xBF]))
        let fixes = GPXReader.read(data: data, source: "s").records.compactMap(\.fix)
        // 2016-05-27T10:08:47.8Z; hdop 16.2 gives no accuracy.
        #expect(
            fixes == [
                Fix(
                    timestamp: unix(1_464_343_727.8), coordinate: at(43.309634, 3.515386), altitude: -14.6,
                    label: "test")
            ])
    }

    @Test func namesTheLineOfAPointWithoutTime() throws {
        let data = try Data(contentsOf: try dataURL("gpx/track_with_dilution_errors.gpx"))
        let batch = GPXReader.read(data: data, source: "dop.gpx")
        #expect(batch.errors.isEmpty)
        #expect(
            batch.records == [
                .ignored(kind: "wpt", reason: "dop.gpx:3: <wpt> has no time"),
                .ignored(kind: "rtept", reason: "dop.gpx:8: <rtept> has no time"),
                .ignored(kind: "trkpt", reason: "dop.gpx:16: <trkpt> has no time"),
            ])
    }

    @Test func readsSpeedAndCourseFromGarminExtensionsAndSortsByTime() {
        let gpx = """
            <?xml version="1.0"?>
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"
                 xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2">
              <wpt lat="1" lon="2"><time>2023-11-14T22:13:30Z</time><name>Later</name></wpt>
              <trk><trkseg>
                <trkpt lat="1.5" lon="2.5"><time>2023-11-14T22:13:20Z</time>
                  <extensions><gpxtpx:TrackPointExtension><gpxtpx:speed>4.5</gpxtpx:speed>
                  <gpxtpx:course>33</gpxtpx:course></gpxtpx:TrackPointExtension></extensions>
                </trkpt>
              </trkseg></trk>
            </gpx>
            """
        let batch = GPXReader.read(data: Data(gpx.utf8), source: "g.gpx")
        #expect(batch.errors == [])
        #expect(
            batch.records == [
                .fix(Fix(timestamp: unix(1_700_000_000), coordinate: at(1.5, 2.5), speed: 4.5, course: 33)),
                .fix(Fix(timestamp: unix(1_700_000_010), coordinate: at(1, 2), label: "Later")),
            ])
    }

    @Test func skipsBadPointsAndKeepsTheRest() {
        let gpx = """
            <gpx><trk><trkseg>
            <trkpt lat="91" lon="2"><time>2023-11-14T22:13:20Z</time></trkpt>
            <trkpt lat="1" lon="2"><time>soon</time></trkpt>
            <trkpt lon="2"><time>2023-11-14T22:13:20Z</time></trkpt>
            <trkpt lat="1" lon="2"><time>2023-11-14T22:13:20Z</time></trkpt>
            </trkseg></trk></gpx>
            """
        let batch = GPXReader.read(data: Data(gpx.utf8), source: "bad.gpx")
        #expect(batch.records == [.fix(Fix(timestamp: unix(1_700_000_000), coordinate: at(1, 2)))])
        #expect(
            batch.errors.map(\.description) == [
                #"bad.gpx:2: field "lat": 91 is outside -90...90"#,
                #"bad.gpx:3: field "time": "soon" is not an ISO 8601 time"#,
                #"bad.gpx:4: field "lat": <trkpt> has no lat"#,
            ])
        #expect(batch.errors.map(\.kind) == [.invalidCoordinate, .invalidField, .missingField])
    }

    @Test func aTruncatedDocumentKeepsThePointsBeforeTheFault() throws {
        let gpx = """
            <gpx><trk><trkseg>
            <trkpt lat="1" lon="2"><time>2023-11-14T22:13:20Z</time></trkpt>
            <trkpt lat="1" lon="2"><time>2023-11-14T22:13
            """
        let batch = GPXReader.read(data: Data(gpx.utf8), source: "cut.gpx")
        #expect(batch.records.count == 1)
        let error = try #require(batch.errors.last)
        #expect(error.kind == .malformed)
        #expect(error.line == 3)
    }

    @Test func refusesADocumentThatIsNotGPX() {
        let batch = GPXReader.read(data: Data("<kml><Placemark/></kml>".utf8), source: "x.kml")
        #expect(batch.records == [])
        #expect(batch.errors.map(\.description) == ["x.kml:1: not a GPX document: the root element is <kml>"])
    }
}
