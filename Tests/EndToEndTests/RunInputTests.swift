import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// NMEA RMC and GGA sentences, one pair a second from 10:00:00 UTC on 1 May 2024: `atHome`
/// seconds at home (51.5007 N 0.1246 W), then walking north by 0.0001° (11 m) a second for
/// `walking` seconds; HDOP 0.9.
private func nmeaLeavingHome(atHome: Int, walking: Int) -> String {
    func checksum(_ body: String) -> String { String(format: "%02X", body.utf8.reduce(UInt8(0)) { $0 ^ $1 }) }
    func degreesMinutes(_ value: Double, width: Int) -> String {
        let whole = Int(abs(value))
        return String(format: "%0\(width)d%07.4f", whole, (abs(value) - Double(whole)) * 60)
    }
    var lines: [String] = []
    for second in 0..<(atHome + walking) {
        let time = String(format: "%02d%02d%02d.00", 10 + second / 3600, second / 60 % 60, second % 60)
        let north = Double(max(0, second - atHome)) * 0.0001
        let position =
            "\(degreesMinutes(51.5007 + north, width: 2)),N,\(degreesMinutes(0.1246, width: 3)),W"
        let knots = second < atHome ? "0.0" : "21.4"
        let rmc = "GPRMC,\(time),A,\(position),\(knots),0.0,010524,,,A"
        let gga = "GPGGA,\(time),\(position),1,08,0.9,35.0,M,47.0,M,,"
        lines += ["$\(rmc)*\(checksum(rmc))", "$\(gga)*\(checksum(gga))"]
    }
    return lines.joined(separator: "\r\n") + "\r\n"
}

extension EndToEnd {
    /// `run --gpsd` against a real gpsd that gpsfake feeds a walk away from home: the fixes come
    /// in as the device `--gpsd-device` names, and leaving home runs the rule's hook once (gpsfake
    /// plays its log again and again; the repeats are older fixes, dropped).
    @Test func runReadsFixesFromGPSD() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsfake") else {
            Issue.record("gpsfake is missing (make setup installs gpsd-tools)")
            return
        }
        let scratch = try TemporaryDirectory("run-gpsd")
        // gpsfake plays a sentence every 0.1 s from its start: 30 s at home leave geofence time to
        // start and connect (checked below) before the walk begins; 2 minutes of walking give the
        // exit its 30 s of confirmation before the log starts again with older fixes.
        try scratch.write("walk.nmea", nmeaLeavingHome(atHome: 150, walking: 120))
        try scratch.write(
            "hook.sh",
            "#!/bin/sh\nprintf '%s %s\\n' \"$GEOFENCE_DEVICE\" \"$GEOFENCE_TRANSITION\" >> \"$1\"\n",
            executable: true)
        try scratch.write(
            "rules.yaml",
            """
            places:
              home: { center: [51.5007, -0.1246], radius: 150 }
            rules:
              - { name: left, on: exit home, run: [./hook.sh, hooks.txt] }

            """)
        let port = try Broker.freePort()
        let gpsfake = Process()
        gpsfake.executableURL = URL(fileURLWithPath: "/usr/bin/gpsfake")
        gpsfake.arguments = ["-P", String(port), "-q", "-c", "0.1", scratch.file("walk.nmea")]
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = (environment["PATH"] ?? "/usr/bin:/bin") + ":/usr/sbin:/sbin"
        gpsfake.environment = environment
        gpsfake.standardInput = FileHandle.nullDevice
        gpsfake.standardOutput = FileHandle.nullDevice
        gpsfake.standardError = FileHandle.nullDevice
        try gpsfake.run()
        // gpsfake and the gpsd it starts share the process group Foundation made for gpsfake;
        // SIGKILL, as a child of Process may start with SIGTERM blocked.
        defer {
            kill(-gpsfake.processIdentifier, SIGKILL)
            gpsfake.waitUntilExit()
        }
        let run = try GeofenceProcess(
            [
                "run", "rules.yaml", "--gpsd", "127.0.0.1:\(port)", "--gpsd-device", "boat", "--history",
                "--fire-history", "--state", scratch.file("state"),
            ], in: scratch.path, name: "run")
        try waitUntil("geofence to connect to gpsd\n\(run.stderr)", seconds: 30) {
            run.stderr.contains("connected to gpsd at 127.0.0.1:\(port)")
        }
        try waitUntil("the hook of leaving home\n\(run.stderr)") {
            TemporaryDirectory.lines(scratch.file("hooks.txt")).count >= 1
        }
        run.send(SIGTERM)
        let ended = try run.waitForExit()
        #expect(!ended.signaled && ended.status == 0, "stderr:\n\(run.stderr)")
        #expect(TemporaryDirectory.lines(scratch.file("hooks.txt")) == ["boat exit"])
        #expect(run.stderr.contains("connected to gpsd at 127.0.0.1:\(port)"), "\(run.stderr)")
    }

    /// `run` reads a whole KML document (GPSLogger's `gx:Track`, a point without a time among the
    /// tracks) as `replay` does: the same hooks, and as many as the same day as NDJSON gives.
    @Test func runReadsAKMLDocumentAsReplayDoes() throws {
        let scratch = try TemporaryDirectory("kmlrun")
        try scratch.write("hook.sh", appendEventIDHook, executable: true)
        try scratch.write("rules.yaml", DayFixtures.hookRules(hook: "./hook.sh", arguments: ["hooks.txt"]))
        let day = try DayFixtures.day(in: scratch)
        try scratch.write("day.ndjson", day.joined(separator: "\n") + "\n")
        var kml = """
            <?xml version="1.0" encoding="UTF-8"?><kml xmlns="http://www.opengis.net/kml/2.2" \
            xmlns:gx="http://www.google.com/kml/ext/2.2"><Document><name>day</name>
            <Placemark><name>start</name><Point><coordinates>-0.1246,51.5007,0</coordinates></Point></Placemark>
            <Placemark><gx:Track>

            """
        for line in day {
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let milliseconds = try #require(object["timestamp"] as? Int)
            let when = ISO8601DateFormatter().string(
                from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
            kml +=
                "<when>\(when)</when>\n<gx:coord>\(object["longitude"] ?? 0) \(object["latitude"] ?? 0) 10.0</gx:coord>\n"
        }
        kml += "</gx:Track></Placemark></Document></kml>\n"
        try scratch.write("day.kml", kml)
        let expected = DayFixtures.hookIDs(
            try DayFixtures.replay(
                rules: scratch.file("rules.yaml"), input: scratch.file("day.kml"), in: scratch))
        let fromLines = DayFixtures.hookIDs(
            try DayFixtures.replay(
                rules: scratch.file("rules.yaml"), input: scratch.file("day.ndjson"), in: scratch))
        try #require(expected.count >= 8, "the day crosses every place's boundary")
        #expect(expected.count == fromLines.count)

        let run = try GeofenceProcess.run(
            ["run", "rules.yaml", "--input", "day.kml", "--fire-history", "--state", scratch.file("state")],
            in: scratch.path, name: "run")
        #expect(run.status == 0, "stderr:\n\(run.stderr)")
        #expect(
            TemporaryDirectory.lines(scratch.file("hooks.txt")).sorted() == expected.sorted(), "\(run.stderr)"
        )

        let followed = try GeofenceProcess.run(
            ["run", "rules.yaml", "--input", "day.kml", "--format", "kml", "--follow"], in: scratch.path,
            name: "followed")
        #expect(followed.status == 2)
        #expect(followed.stderr.contains("not followed"), "\(followed.stderr)")
    }
}
