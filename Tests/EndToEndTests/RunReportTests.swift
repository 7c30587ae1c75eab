import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// Issue 12: what used to vanish in silence (encrypted and waypoint messages, fixes dropped as
    /// from the future) is said once per kind and input, with what it means, and counted in the
    /// summary that ends the run; unreadable lines (`tst` in milliseconds) are each named.
    @Test func silentProblemsAreWarnedOncePerKindAndCountedInTheSummary() throws {
        let scratch = try TemporaryDirectory("report")
        try scratch.write("rules.yaml", DayFixtures.hookRules(hook: "/bin/true"))
        let now = Int64(Date().timeIntervalSince1970)
        var lines: [String] = []
        for _ in 0..<3 { lines.append(#"{"_type":"encrypted","data":"c2VjcmV0"}"#) }
        for _ in 0..<2 {
            lines.append(#"{"_type":"waypoint","desc":"shop","lat":51.5,"lon":-0.1,"tst":\#(now)}"#)
        }
        // `tst` in milliseconds: an error naming the line and the field (the reader bounds times).
        for index in 0..<3 {
            lines.append(
                #"{"_type":"location","lat":51.5,"lon":-0.12,"acc":10,"tst":\#(now * 1000 + Int64(index))}"#)
        }
        // A phone clock an hour fast: plausible times, dropped live as from the future.
        for index in 0..<2 {
            lines.append(
                #"{"_type":"location","lat":51.5,"lon":-0.12,"acc":10,"tst":\#(now + 3600 + Int64(index))}"#)
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
        #expect(result.stderr.contains("fromTheFuture: check the clocks of the phone and of this machine"))
        #expect(count("field \"tst\"") == 3, "each unreadable line is named with its field")
        #expect(result.stderr.contains("stdin:6: field \"tst\""))
        #expect(
            result.stderr.contains(
                "summary: input stdin: 12 records, 7 fixes, 2 dropped (fromTheFuture 2), 5 ignored (encrypted 3, waypoint 2), 3 unreadable"
            ), "\(result.stderr)")
        // One first determination per place; no crossing, so no action.
        #expect(result.stderr.contains("summary: 4 events, 0 commutes stored; 0 actions"))
    }
}
