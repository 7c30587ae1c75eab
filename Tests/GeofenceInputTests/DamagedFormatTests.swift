import Foundation
import Testing

@testable import Geofence
@testable import GeofenceInput
import GeofenceSimulation

/// Damaged copies of the format test files: every reader must give records and errors (never
/// trap), name lines inside the file, and keep what it read before the damage.
@Suite struct DamagedFormatTests {
    static let jsonFiles = [
        "takeout-records-old.json", "takeout-records-new.json", "overland-batch.json", "gpslogger.geojson",
        "trackintel-positionfixes.geojson", "ocat.json", "recorder-api-locations.json",
        "recorder-api-last.json",
        "homeassistant-history.json",
    ]

    private static func lineCount(_ bytes: [UInt8]) -> Int {
        bytes.filter { $0 == UInt8(ascii: "\n") }.count + 1
    }

    /// Seeded damage: a cut, a run of random bytes written over the text, or a byte removed.
    private static func damaged(_ bytes: [UInt8], seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        var copy = bytes
        switch seed % 3 {
        case 0:
            copy = Array(copy.prefix(Int.random(in: 0..<copy.count, using: &generator)))
        case 1:
            let at = Int.random(in: 0..<copy.count, using: &generator)
            for index in at..<min(copy.count, at + 8) {
                copy[index] = UInt8.random(in: 0...255, using: &generator)
            }
        default:
            copy.remove(at: Int.random(in: 0..<copy.count, using: &generator))
        }
        return copy
    }

    @Test(arguments: jsonFiles)
    func damagedJSONDocumentsGiveErrorsWithinTheFileAndNeverTrap(name: String) throws {
        let original = Array(try Data(contentsOf: try dataURL("formats/" + name)))
        for seed in UInt64(1)...60 {
            let bytes = Self.damaged(original, seed: seed)
            let batch = JSONDocumentReader.readAll(data: Data(bytes), source: name)
            let lines = Self.lineCount(bytes)
            #expect(batch.errors.allSatisfy { $0.line >= 1 && $0.line <= lines }, "seed \(seed)")
            // Something is always said: records, or why there are none (empty text says nothing).
            let blank = bytes.allSatisfy { LineBytes.isSpace($0) }
            #expect(blank || !batch.records.isEmpty || !batch.errors.isEmpty, "seed \(seed)")
            #expect(batch.errors.allSatisfy { !$0.message.isEmpty }, "seed \(seed)")
        }
    }

    @Test func aCutTakeoutFileKeepsTheRecordsBeforeTheCut() throws {
        let original = Array(try Data(contentsOf: try dataURL("formats/takeout-records-old.json")))
        // Cut inside the third record: the first two are whole.
        let cut = Array(original.prefix(upTo: original.count - 60))
        let batch = JSONDocumentReader.readAll(data: Data(cut), source: "Records.json")
        #expect(batch.records.compactMap(\.fix).count == 2)
        #expect(batch.errors.map(\.message) == ["the JSON ends before its last value is closed"])
    }

    @Test func damagedNMEAAndGeoLifeLinesGiveErrorsNotTraps() throws {
        for name in ["gpslogger.nmea", "geolife-20081023025304.plt"] {
            let original = Array(try Data(contentsOf: try dataURL("formats/" + name)))
            for seed in UInt64(1)...60 {
                let bytes = Self.damaged(original, seed: seed)
                var nmea = NMEAReader(source: name)
                var geolife = GeoLifeReader(source: name)
                var errors: [RecordError] = []
                let collect: (Result<InputRecord, RecordError>) -> Void = {
                    if case .failure(let error) = $0 { errors.append(error) }
                }
                var number = 0
                for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
                    number += 1
                    Array(line).withUnsafeBufferPointer {
                        nmea.line($0, number: number, collect)
                        if case .failure(let error) = geolife.line($0, number: number) {
                            errors.append(error)
                        }
                    }
                }
                nmea.finish(collect)
                #expect(errors.allSatisfy { $0.line >= 1 && $0.line <= number }, "\(name) seed \(seed)")
            }
        }
    }

    @Test func damagedKMLGivesErrorsNotTraps() throws {
        let original = Array(try Data(contentsOf: try dataURL("formats/gpslogger.kml")))
        for seed in UInt64(1)...60 {
            let bytes = Self.damaged(original, seed: seed)
            let batch = KMLReader.read(data: Data(bytes), source: "gpslogger.kml")
            #expect(
                batch.errors.allSatisfy { $0.line >= 0 && $0.line <= Self.lineCount(bytes) }, "seed \(seed)")
            #expect(batch.records.compactMap(\.fix).count <= 3, "seed \(seed)")
        }
    }
}

/// Times outside 2000-2100 are refused where they are read, in every new format as in the old.
@Suite struct FormatTimeBoundsTests {
    @Test func aTakeoutRecordAtTheEpochIsRefused() {
        let text =
            #"{"locations":[{"timestampMs":"0","latitudeE7":1,"longitudeE7":1},{"timestamp":"2300-01-01T00:00:00Z","latitudeE7":1,"longitudeE7":1}]}"#
        let batch = JSONDocumentReader.readAll(data: Data(text.utf8), source: "Records.json")
        #expect(batch.records.isEmpty)
        #expect(
            batch.errors.map(\.description) == [
                #"Records.json:1: field "timestampMs": "0" is before 2000-01-01, outside the plausible range (a clock that was never set?)"#,
                #"Records.json:1: field "timestamp": "2300-01-01T00:00:00Z" is after 2100-01-01, outside the plausible range (microseconds, or a broken clock?)"#,
            ])
    }

    @Test func anNMEADateOfAReceiverAfterAWeekRolloverIsRefused() {
        var reader = NMEAReader(source: "old.nmea")
        var errors: [String] = []
        for (index, line) in ["$GPRMC,120000.00,A,4807.038,N,01131.000,E,0.0,,060499,,,A"].enumerated() {
            Array(line.utf8).withUnsafeBufferPointer {
                reader.line($0, number: index + 1) {
                    if case .failure(let error) = $0 { errors.append(error.description) }
                }
            }
        }
        reader.finish { if case .failure(let error) = $0 { errors.append(error.description) } }
        #expect(
            errors == [
                "old.nmea:1: the epoch's date and time is before 2000-01-01, outside the plausible range (a clock that was never set?)"
            ])
    }
}
