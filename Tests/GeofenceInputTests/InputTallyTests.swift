import Foundation
import Testing

@testable import Geofence
@testable import GeofenceInput

@Suite struct InputTallyTests {
    private func tally(_ text: String, source: String = "in.ndjson") -> InputTally {
        var tally = InputTally(source: source)
        let batch = InputReader.readAll(data: Data(text.utf8), source: source)
        tally.lines = text.isEmpty ? 0 : text.split(separator: "\n", omittingEmptySubsequences: false).count
        batch.records.forEach { tally.count($0) }
        batch.errors.forEach { tally.count($0) }
        return tally
    }

    @Test func aSummaryCountsLinesFixesWhatMovesNothingAndErrors() {
        let t = tally(
            """
            {"latitude":1,"longitude":2,"timestamp":1700000000000}
            {"_type":"waypoint","desc":"home"}
            {"latitude":95,"longitude":2,"timestamp":1700000000000}
            """)
        #expect(
            t.description
                == "in.ndjson: 3 lines: 1 fix, 1 moving nothing (1 waypoint), 1 unreadable (1 invalidCoordinate)"
        )
        #expect(t.whyNothingWasRead == nil)
    }

    @Test func whyNothingWasReadIsSaid() {
        #expect(tally("").whyNothingWasRead == "no fix was read from in.ndjson: it is empty")
        #expect(
            tally("hello\nworld").whyNothingWasRead
                == "no fix was read from in.ndjson: none of its records could be read (2 unreadable; the first: in.ndjson:1: not JSON, not an OwnTracks Recorder line, and no CSV header naming latitude, longitude and time has been read)"
        )
        #expect(
            tally(#"{"_type":"transition","tst":1700000000,"event":"enter"}"# + "\n" + #"{"_type":"lwt"}"#)
                .whyNothingWasRead
                == "no fix was read from in.ndjson: its 2 records carry no position (1 lwt, 1 transition)")
        #expect(
            tally("# a comment\n\n").whyNothingWasRead
                == "no fix was read from in.ndjson: its 3 lines are blank or comments")
    }
}
