import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension EndToEnd {
    /// Issue 9: live, a change is confirmed on the engine's clock. OwnTracks in move mode (`m: 2`)
    /// sends a fix at home and then nothing (it reports only after moving 100 m); the enter is
    /// confirmed and its hook runs `confirm_silence` later with no further fix.
    @Test func aMoveModeFixInsideThenSilenceIsConfirmedOnTheClock() throws {
        let scratch = try TemporaryDirectory("clock")
        try scratch.write(
            "rules.yaml",
            """
            timezone: Europe/London
            hysteresis: { confirm: 1s, confirm_silence: 2s }
            places:
              home: { center: [51.5007, -0.1246], radius: 400 }
            rules:
              - { name: arrived home, on: enter home, run: ["./hook.sh"] }

            """)
        try scratch.write("hook.sh", "#!/bin/sh\necho \"$GEOFENCE_PLACE\" > arrived.txt\n", executable: true)
        let now = Date().timeIntervalSince1970.rounded()
        func line(_ latitude: Double, secondsAgo: Double, mode: Int? = nil) -> String {
            let m = mode.map { #","m":\#($0)"# } ?? ""
            return
                #"{"_type":"location","lat":\#(latitude),"lon":-0.1246,"tst":\#(Int(now - secondsAgo)),"acc":10,"tid":"ph"\#(m)}"#
        }
        // Away (2 km north) long enough to be determined outside, then one fix at home.
        let lines = [
            line(51.5187, secondsAgo: 200), line(51.5187, secondsAgo: 160), line(51.5187, secondsAgo: 120),
            line(51.5007, secondsAgo: 1, mode: 2),
        ]
        try scratch.write("fixes.json", lines.joined(separator: "\n") + "\n")
        let run = try GeofenceProcess(
            [
                "run", "rules.yaml", "--input", "fixes.json", "--format", "owntracks", "--follow",
                "--history",
                "--state", scratch.file("state"),
            ], in: scratch.path, name: "run")
        try waitUntil("the enter on the clock\n\(run.stderr)") {
            FileManager.default.fileExists(atPath: scratch.file("arrived.txt"))
        }
        run.send(SIGTERM)
        let ended = try run.waitForExit()
        #expect(!ended.signaled && ended.status == 0, "stderr:\n\(run.stderr)")
        #expect(TemporaryDirectory.read(scratch.file("arrived.txt")) == "home\n")
        #expect(run.stdout.contains("-> [arrived home]"), "stdout:\n\(run.stdout)")
    }
}
