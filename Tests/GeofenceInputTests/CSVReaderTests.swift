import Foundation
import Testing

@testable import Geofence
@testable import GeofenceInput

/// A header, one row, and the fix the row must give.
struct CSVCase: Sendable, CustomTestStringConvertible {
    let header: String
    let row: String
    let expected: Fix
    init(_ header: String, _ row: String, _ expected: Fix) {
        self.header = header
        self.row = row
        self.expected = expected
    }
    var testDescription: String { header }
}

@Suite struct CSVReaderTests {
    static let cases: [CSVCase] = [
        CSVCase(
            "Lat,Lng,Timestamp,Accuracy", "47.1,8.5,1700000000,5",
            Fix(timestamp: unix(1_700_000_000), coordinate: at(47.1, 8.5), horizontalAccuracy: 5)),
        // Milliseconds are told from seconds by size.
        CSVCase(
            "latitude,longitude,time", "47.1,8.5,1700000000250",
            Fix(timestamp: unix(1_700_000_000.25), coordinate: at(47.1, 8.5))),
        CSVCase(
            "LATITUDE\tLONGITUDE\tTRACKED_AT\tALTITUDE", "47.1\t8.5\t2023-11-14T23:13:20+01:00\t410.5",
            Fix(timestamp: unix(1_700_000_000), coordinate: at(47.1, 8.5), altitude: 410.5)),
        CSVCase(
            #""latitude";"longitude";"date";"horizontal_accuracy";"device""#,
            #""47.1";"8.5";"2023-11-14 22:13:20";"-1";"my ""phone""""#,
            Fix(timestamp: unix(1_700_000_000), coordinate: at(47.1, 8.5), deviceId: #"my "phone""#)),
        // A decimal comma in a semicolon-separated file.
        CSVCase(
            "lat;long;time;acc", "47,5;8,25;2023-11-14T22:13:20Z;12,5",
            Fix(timestamp: unix(1_700_000_000), coordinate: at(47.5, 8.25), horizontalAccuracy: 12.5)),
        // GPSLogger's header: time wins over timestamp_ms, bearing is the course, speed is m/s.
        CSVCase(
            "time,lat,lon,elevation,accuracy,bearing,speed,satellites,provider,hdop,timestamp_ms",
            "2023-11-14T22:13:20.500Z,47.1,8.5,400,4.0,90.5,1.5,9,gps,0.9,1700000000500",
            Fix(
                timestamp: unix(1_700_000_000.5), coordinate: at(47.1, 8.5), horizontalAccuracy: 4,
                altitude: 400,
                speed: 1.5, course: 90.5)),
        // GPSLogger in a locale with decimal commas: comma-separated, numbers quoted.
        CSVCase(
            "time,lat,lon,elevation,accuracy,bearing,speed,satellites,provider,hdop,timestamp_ms",
            #"2023-11-14T22:13:20.500Z,"47,3769","8,5417","410,5","12,0","90,5","1,25",9,gps,"0,9",1700000000500"#,
            Fix(
                timestamp: unix(1_700_000_000.5), coordinate: at(47.3769, 8.5417), horizontalAccuracy: 12,
                altitude: 410.5, speed: 1.25, course: 90.5)),
        // Empty optional cells are unknown.
        CSVCase(
            "lat,lon,time,accuracy,speed", "47.1,8.5,1700000000,,",
            Fix(timestamp: unix(1_700_000_000), coordinate: at(47.1, 8.5))),
    ]

    @Test(arguments: cases)
    func readsARowUnderItsHeader(_ csvCase: CSVCase) {
        var reader = CSVReader(source: "track.csv")
        #expect(reader.decode(csvCase.header, number: 1) == .success(nil))
        #expect(reader.hasHeader)
        #expect(reader.decode(csvCase.row, number: 2) == .success(.fix(csvCase.expected)))
        // The auto-detecting line decoder takes the same header and row.
        var decoder = LineDecoder(source: "track.csv")
        #expect(decoder.decode(csvCase.header, number: 1) == .success(nil))
        #expect(decoder.decode(csvCase.row, number: 2) == .success(.fix(csvCase.expected)))
    }

    static let badRows: [BadLine] = [
        BadLine("47.1,8.5", "track.csv:7: has 2 values; the header needs at least 4", .malformed),
        BadLine(
            "95,8.5,1700000000,3", #"track.csv:7: field "lat": 95 is outside -90...90"#, .invalidCoordinate),
        BadLine(
            "NaN,8.5,1700000000,3", #"track.csv:7: field "lat": NaN is not a finite number"#,
            .invalidCoordinate),
        BadLine(",8.5,1700000000,3", #"track.csv:7: field "lat": missing"#, .missingField),
        BadLine(
            "north,8.5,1700000000,3", #"track.csv:7: field "lat": "north" is not a number"#, .invalidField),
        BadLine(
            "47.1,8.5,yesterday,3",
            #"track.csv:7: field "Time": "yesterday" is neither an ISO 8601 time, "yyyy-MM-dd HH:mm:ss" nor Unix seconds or milliseconds"#,
            .invalidField),
        BadLine(#""47.1,8.5,1700000000,3"#, "track.csv:7: a quoted value is not closed", .malformed),
        BadLine("47.1,8.5,1700000000,x", #"track.csv:7: field "acc": "x" is not a number"#, .invalidField),
        // Unquoted, a comma separates cells; quoted, two commas are not one decimal comma.
        BadLine(
            #"47.1,8.5,1700000000,"1,2,3""#, #"track.csv:7: field "acc": "1,2,3" is not a number"#,
            .invalidField),
    ]

    @Test(arguments: badRows)
    func reportsBadRowsExactly(_ bad: BadLine) {
        var reader = CSVReader(source: "track.csv")
        _ = reader.decode("lat,lon,Time,acc", number: 6)
        let error = reader.decode(bad.line, number: 7).failure
        #expect(error?.description == bad.message)
        #expect(error?.kind == bad.kind)
    }

    @Test func aLineBeforeTheHeaderIsAnErrorAndTheHeaderStillCounts() {
        var reader = CSVReader(source: "track.csv")
        let title = reader.decode("My walk, exported", number: 1).failure
        #expect(
            title?.description
                == "track.csv:1: no CSV header naming latitude, longitude and time columns has been read yet")
        #expect(title?.kind == .unrecognized)
        #expect(reader.decode("lat,lon,time", number: 2) == .success(nil))
        #expect(reader.decode("1,2,1700000000", number: 3).success??.fix?.coordinate == at(1, 2))
    }

    @Test func aRepeatedHeaderIsSkipped() {
        var reader = CSVReader(source: "joined.csv")
        _ = reader.decode("lat,lon,time", number: 1)
        #expect(reader.decode("lat,lon,time", number: 5) == .success(nil))
    }

    @Test func readsThePosmoExport() throws {
        let zurich = try #require(TimeZone(identifier: "Europe/Zurich"))
        let batch = InputReader.readAll(
            contentsOf: try dataURL("posmo_trajectory.csv"), format: .csv, timeZone: zurich)
        #expect(batch.errors == [])
        #expect(batch.records.count == 1327)
        let first = try #require(batch.records.first?.fix)
        #expect(first.coordinate == at(47.0516249, 7.0389004))
        // Accuracy 0.0 in this export means unknown.
        #expect(first.horizontalAccuracy == nil)
        #expect(first.deviceId == "0")
        // 2019-01-25 20:00:16.178999901 in Zurich (UTC+1 in January).
        #expect(abs(first.timestamp.timeIntervalSince1970 - 1_548_442_816.178_999_901) < 1e-6)
        let last = try #require(batch.records.last?.fix)
        #expect(last.timestamp > first.timestamp)
        #expect(last.horizontalAccuracy == 24)
        #expect(last.coordinate == at(46.5169352, 6.6274571))
        // The rows with accuracy 0.0 (counted with awk) all read as unknown.
        #expect(batch.records.filter { $0.fix?.horizontalAccuracy == nil }.count == 149)
    }
}
