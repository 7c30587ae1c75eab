import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// Issue 12: what used to vanish in silence (encrypted and waypoint messages, OwnTracks `tst`
    /// in milliseconds dropped as from the future) is said once per kind and input, with what it
    /// means, and counted in the summary that ends the run.
    @Test func silentProblemsAreWarnedOncePerKindAndCountedInTheSummary() throws {
        let scratch = try TemporaryDirectory("report")
        try scratch.write("rules.yaml", DayFixtures.hookRules(hook: "/bin/true"))
        let now = Int64(Date().timeIntervalSince1970)
        var lines: [String] = []
        for _ in 0..<3 { lines.append(#"{"_type":"encrypted","data":"c2VjcmV0"}"#) }
        for _ in 0..<2 {
            lines.append(#"{"_type":"waypoint","desc":"shop","lat":51.5,"lon":-0.1,"tst":\#(now)}"#)
        }
        for index in 0..<3 {
            lines.append(
                #"{"_type":"location","lat":51.5,"lon":-0.12,"acc":10,"tst":\#(now * 1000 + Int64(index))}"#)
        }
        for index in stride(from: 5, through: 1, by: -1) {
            lines.append(
                #"{"_type":"location","lat":51.5007,"lon":-0.1246,"acc":10,"tst":\#(now - Int64(index) * 10)}"#
            )
        }
        let result = try GeofenceProcess.run(
            ["run", "rules.yaml", "--input", "-", "--format", "owntracks", "--state", "state"],
            in: scratch.path,
            name: "run", stdin: lines.joined(separator: "\n") + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        func count(_ text: String) -> Int { result.stderr.components(separatedBy: text).count - 1 }
        #expect(count("encrypted messages are ignored") == 1)
        #expect(count("waypoint messages are ignored") == 1)
        #expect(count("dropped by the filter as fromTheFuture") == 1)
        #expect(result.stderr.contains("is the tracker writing milliseconds where seconds are expected"))
        #expect(
            result.stderr.contains(
                "summary: input stdin: 13 records, 8 fixes, 3 dropped (fromTheFuture 3), 5 ignored (encrypted 3, waypoint 2)"
            ))
        // One first determination per place; no crossing, so no action.
        #expect(result.stderr.contains("summary: 4 events, 0 commutes stored; 0 actions"))
    }
}
