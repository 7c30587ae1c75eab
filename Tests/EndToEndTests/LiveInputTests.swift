import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// Live standard input is judged by arrival time: a tracker's cached first fix from another
    /// place, already an hour old when it arrives, is dropped as expired (and says so with
    /// `--verbose`) instead of placing the person there; the fresh fixes after it decide.
    @Test func aStaleCachedFixOnLiveInputIsDroppedAsExpired() throws {
        let scratch = try TemporaryDirectory("live")
        try scratch.write(
            "rules.yaml",
            """
            timezone: Europe/London
            places:
              home: { center: [51.5007, -0.1246], radius: 150 }
              away: { center: [48.8584, 2.2945], radius: 150 }
            rules:
              - { name: arrived away, on: enter away, log: true }

            """)
        let now = Date().timeIntervalSince1970
        func line(_ latitude: Double, _ longitude: Double, secondsAgo: Double) -> String {
            let milliseconds = Int64((now - secondsAgo) * 1000)
            return
                #"{"latitude":\#(latitude),"longitude":\#(longitude),"timestamp":\#(milliseconds),"horizontalAccuracy":10}"#
        }
        // The cached fix: in Paris an hour ago. Then the phone at home, a fix every 5 s over the
        // last two minutes (old enough to confirm, young enough to be live).
        var lines = [line(48.8584, 2.2945, secondsAgo: 3600)]
        for step in 0..<24 { lines.append(line(51.5007, -0.1246, secondsAgo: 120 - Double(step) * 5)) }
        let result = try GeofenceProcess.run(
            ["run", "rules.yaml", "--input", "-", "--verbose", "--state", scratch.file("state")],
            in: scratch.path,
            name: "run", stdin: lines.joined(separator: "\n") + "\n")
        #expect(result.status == 0, "stderr:\n\(result.stderr)")
        #expect(result.stderr.contains(": expired"), "stderr:\n\(result.stderr)")
        #expect(result.stdout.contains("inside home (first determination)"), "stdout:\n\(result.stdout)")
        #expect(result.stdout.contains("outside away (first determination)"), "stdout:\n\(result.stdout)")
        #expect(!result.stdout.contains("[arrived away]"))
    }
}
