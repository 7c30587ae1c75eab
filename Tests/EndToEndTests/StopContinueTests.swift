import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// One rule for a stop and a restart: fixes written to a followed file while `run` was stopped
    /// (SIGSTOP) for longer than the expiration are history when it continues (SIGCONT), as they
    /// would be after a kill and a restart, so the crossing they hold is not lost as "expired".
    @Test func fixesWrittenWhileStoppedCountAsAfterARestart() throws {
        let scratch = try TemporaryDirectory("stop-continue")
        try scratch.write(
            "rules.yaml",
            """
            timezone: Europe/London
            filter: { expiration: 2s }
            places:
              home: { center: [51.5007, -0.1246], radius: 150 }
            rules:
              - { name: arrived home, on: enter home, log: true }

            """)
        try scratch.write("fixes.ndjson", "")
        let run = try GeofenceProcess(
            ["run", "rules.yaml", "--input", "fixes.ndjson", "--follow", "--state", scratch.file("state")],
            in: scratch.path, name: "run")
        defer { if run.process.isRunning { kill(run.process.processIdentifier, SIGKILL) } }
        try waitUntil("the input to open\n\(run.stderr)") {
            run.stderr.contains("input fixes.ndjson: opened")
        }
        // Sent directly: a stopped child does not count as running for `send`.
        let pid = run.process.processIdentifier
        kill(pid, SIGSTOP)
        // Ten minutes of fixes, away and then home, the newest written now.
        let now = Date().timeIntervalSince1970
        var lines: [String] = []
        for step in 0..<30 {
            let latitude = step < 10 ? 51.52 : 51.5007
            let milliseconds = Int64((now - 600 + Double(step) * 20) * 1000)
            lines.append(
                #"{"latitude":\#(latitude),"longitude":-0.1246,"timestamp":\#(milliseconds),"horizontalAccuracy":10}"#
            )
        }
        try TemporaryDirectory.append(lines.joined(separator: "\n") + "\n", to: scratch.file("fixes.ndjson"))
        // Stopped for longer than the expiration (2 s): the newest fix is then older than it.
        usleep(4_000_000)
        kill(pid, SIGCONT)
        try waitUntil("the arrival\n\(run.stdout)\n\(run.stderr)") {
            run.stdout.contains("-> [arrived home]")
        }
        run.send(SIGTERM)
        let ended = try run.waitForExit()
        #expect(!ended.signaled && ended.status == 0, "stderr:\n\(run.stderr)")
    }
}
