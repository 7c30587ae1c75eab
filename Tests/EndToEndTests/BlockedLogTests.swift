import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// A `log:` target that cannot take a line (a FIFO nobody reads, `/dev/full`) fails that action
    /// with an error line at once; the engine neither waits on it nor stops evaluating fixes, and
    /// the next action's log is written.
    @Test func aLogTargetThatCannotTakeALineFailsWithoutBlockingTheEngine() throws {
        let scratch = try TemporaryDirectory("blocked-log")
        #expect(mkfifo(scratch.file("fifo"), 0o600) == 0)
        try scratch.write(
            "rules.yaml",
            """
            timezone: Europe/London
            places:
              home: { center: [51.5007, -0.1246], radius: 150 }
            rules:
              - { name: to fifo, on: enter home, log: fifo }
              - { name: to full, on: enter home, log: /dev/full }
              - { name: to file, on: enter home, log: ok.ndjson }

            """)
        var lines: [String] = []
        for minute in 0..<30 {
            let latitude = minute < 10 ? 51.52 : 51.5007
            let milliseconds = Int64(1_700_000_000 + minute * 60) * 1000
            lines.append(
                #"{"latitude":\#(latitude),"longitude":-0.1246,"timestamp":\#(milliseconds),"horizontalAccuracy":10}"#
            )
        }
        try scratch.write("fixes.ndjson", lines.joined(separator: "\n") + "\n")
        let result = try GeofenceProcess.run(
            ["run", "rules.yaml", "--input", "fixes.ndjson", "--state", scratch.file("state")],
            in: scratch.path,
            name: "run")
        #expect(result.status == 0, "stderr:\n\(result.stderr)")
        #expect(result.stderr.contains("error: log \(scratch.file("fifo")): No such device or address"))
        #expect(result.stderr.contains("error: log /dev/full: No space left on device"))
        #expect(TemporaryDirectory.lines(scratch.file("ok.ndjson")).count == 1)
    }
}
