import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// `replay -` reading a pipe that stays open answers each line as it comes, whatever
    /// `--threads` says: standard input is never held back to be decoded with others in a block
    /// (a file is). The first determination is printed while the pipe is still open; a hang guard
    /// with a generous limit, not a timing check.
    @Test(arguments: [1, 2])
    func replayOfALivePipeAnswersEachLineAsItComes(threads: Int) throws {
        let scratch = try TemporaryDirectory("replay-pipe")
        try scratch.write(
            "rules.yaml",
            """
            timezone: Europe/London
            places:
              home: { center: [51.5007, -0.1246], radius: 150 }
            rules:
              - { name: at home, on: enter home, log: true }

            """)
        let pipe = Pipe()
        let child = try GeofenceProcess(
            ["replay", "rules.yaml", "-", "--threads", "\(threads)"], in: scratch.path, name: "replay",
            stdinPipe: pipe)
        func send(fixes: Range<Int>) {
            for step in fixes {
                let line =
                    #"{"latitude":51.5007,"longitude":-0.1246,"timestamp":\#(1_772_521_200_000 + step * 10_000),"horizontalAccuracy":10}"#
                pipe.fileHandleForWriting.write(Data((line + "\n").utf8))
            }
        }
        // Five minutes of fixes at home, one every 10 s: enough to determine the place.
        send(fixes: 0..<30)
        try waitUntil("the first determination while the pipe is open", seconds: 120) {
            child.stdout.contains(#""transition":"determined""#)
        }
        #expect(child.process.isRunning, "replay ended before its input did")
        send(fixes: 30..<40)
        try pipe.fileHandleForWriting.close()
        let ended = try child.waitForExit(seconds: 120)
        #expect(ended.status == 0, "stderr:\n\(child.stderr)")
        #expect(child.stderr.contains("40 lines: 40 fixes"), "stderr:\n\(child.stderr)")
    }

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
