import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension EndToEnd {
    /// Issue 9: in `run`, a dwell falls due on the engine's clock. Two fixes confirm the arrival
    /// home, then the tracker is silent; the dwell's hook runs at the arrival plus `after:` with no
    /// further fix.
    @Test func aDwellFiresOnTheClockWithNoFurtherFix() throws {
        let scratch = try TemporaryDirectory("dwell-clock")
        try scratch.write(
            "rules.yaml",
            """
            timezone: Europe/London
            hysteresis: { confirm: 1s, confirm_fixes: 2 }
            places:
              home: { center: [51.5007, -0.1246], radius: 400 }
            rules:
              - { name: settled, on: dwell home, after: 25s, run: ["./hook.sh"] }

            """)
        try scratch.write("hook.sh", "#!/bin/sh\necho \"$GEOFENCE_PLACE\" > settled.txt\n", executable: true)
        let now = Date().timeIntervalSince1970.rounded()
        func line(_ latitude: Double, secondsAgo: Double) -> String {
            #"{"_type":"location","lat":\#(latitude),"lon":-0.1246,"tst":\#(Int(now - secondsAgo)),"acc":10,"tid":"ph"}"#
        }
        // 500 m north (outside) until 20 s ago, then two fixes at home: the arrival is dated about
        // 16 s ago, so the dwell is due about 9 s after the last fix.
        let lines = [
            line(51.5052, secondsAgo: 40), line(51.5052, secondsAgo: 30), line(51.5052, secondsAgo: 20),
            line(51.5007, secondsAgo: 2), line(51.5007, secondsAgo: 1),
        ]
        try scratch.write("fixes.json", lines.joined(separator: "\n") + "\n")
        let run = try GeofenceProcess(
            [
                "run", "rules.yaml", "--input", "fixes.json", "--format", "owntracks", "--follow",
                "--history", "--state", scratch.file("state"),
            ], in: scratch.path, name: "run")
        try waitUntil("the dwell on the clock\n\(run.stderr)") {
            FileManager.default.fileExists(atPath: scratch.file("settled.txt"))
        }
        run.send(SIGTERM)
        let ended = try run.waitForExit()
        #expect(!ended.signaled && ended.status == 0, "stderr:\n\(run.stderr)")
        #expect(TemporaryDirectory.read(scratch.file("settled.txt")) == "home\n")
        #expect(run.stdout.contains("-> [settled]"), "stdout:\n\(run.stdout)")
    }
}
