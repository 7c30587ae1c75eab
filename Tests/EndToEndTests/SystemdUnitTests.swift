import Foundation
import TestSupport
import Testing

/// The repository's root, three folders above this file.
private let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

extension EndToEnd {
    /// The units in Examples/systemd, with the binary's path pointed at the one just built, pass
    /// `systemd-analyze verify` without a single warning (an unknown key or a bad value is only a
    /// warning there, so the test reads standard error too). `make setup` installs systemd's tools.
    @Test func theShippedSystemdUnitsVerify() throws {
        let scratch = try TemporaryDirectory("systemd")
        let analyze = "/usr/bin/systemd-analyze"
        try #require(FileManager.default.isExecutableFile(atPath: analyze), "make setup installs systemd")
        let executable = try GeofenceCommand.executable().path
        let folder = repository.appendingPathComponent("Examples/systemd").path
        let system = [
            "geofence.service", "geofence-mqtt.service", "geofence-current-month.service",
            "geofence-current-month.timer",
        ]
        for name in system + ["geofence-user.service"] {
            let text = TemporaryDirectory.read(folder + "/" + name)
            try #require(!text.isEmpty, "\(name) is shipped")
            try FileManager.default.createDirectory(
                atPath: scratch.file(name == "geofence-user.service" ? "user" : "system"),
                withIntermediateDirectories: true)
            let rewritten =
                text
                .replacingOccurrences(
                    of: "/usr/local/bin/geofence-current-month", with: folder + "/geofence-current-month"
                )
                .replacingOccurrences(of: "/usr/local/bin/geofence ", with: executable + " ")
                .replacingOccurrences(of: "%h/.local/bin/geofence ", with: executable + " ")
            if name == "geofence-user.service" {
                try scratch.write("user/geofence.service", rewritten)
            } else {
                try scratch.write("system/" + name, rewritten)
            }
        }
        func verify(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: analyze)
            process.arguments = arguments
            process.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_RUNTIME_DIR"] = environment["XDG_RUNTIME_DIR"] ?? scratch.path
            process.environment = environment
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, text)
        }
        let systemResult = try verify(["verify", "--man=no"] + system.map { "system/" + $0 })
        #expect(systemResult.status == 0, "\(systemResult.stderr)")
        #expect(systemResult.stderr.isEmpty, "\(systemResult.stderr)")
        let userResult = try verify(["--user", "verify", "--man=no", "user/geofence.service"])
        #expect(userResult.status == 0, "\(userResult.stderr)")
        #expect(userResult.stderr.isEmpty, "\(userResult.stderr)")
        // The system units keep the rules read-only and write logs under LogsDirectory=.
        let service = TemporaryDirectory.read(folder + "/geofence.service")
        #expect(service.contains("--log-directory /var/log/geofence"))
        #expect(service.contains("LogsDirectory=geofence"))
        #expect(service.contains("EnvironmentFile=-/etc/geofence/geofence.env"))
        #expect(!service.contains("ProtectHome=yes"))
    }

    /// Every shipped rules file runs the way the units run it: rules (and the hooks beside them)
    /// in a folder nothing is written to, `--log-directory` elsewhere. Every action succeeds, the
    /// `log:` files and the hooks' files land in the log directory, and the rules folder is
    /// unchanged.
    @Test(arguments: ["commute.yaml", "hooks.yaml", "reminders.yaml"])
    func everyShippedRulesFileWorksWithReadOnlyRulesAndALogDirectory(rules: String) throws {
        let scratch = try TemporaryDirectory("shipped-\(rules)")
        let etc = scratch.file("etc")
        // `cp -rL Rules/. /etc/geofence/`, as the units' comments say: the hooks link is followed.
        try FileManager.default.copyItem(atPath: repository.appendingPathComponent("Rules").path, toPath: etc)
        let link = etc + "/hooks"
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.copyItem(
            atPath: repository.appendingPathComponent("Examples/hooks").path, toPath: link)
        func listing() throws -> [String] {
            try FileManager.default.subpathsOfDirectory(atPath: etc).sorted().map { path in
                let size = (try? FileManager.default.attributesOfItem(atPath: etc + "/" + path))?[.size] ?? 0
                return "\(path) \(size)"
            }
        }
        let before = try listing()
        try scratch.write("day.ndjson", try DayFixtures.day(in: scratch).joined(separator: "\n") + "\n")
        let check = try GeofenceProcess.run(
            ["check", "etc/" + rules, "--log-directory", "logs"], in: scratch.path, name: "check")
        #expect(check.status == 0)
        #expect(check.stderr.contains("does not exist; the run creates it") || check.stderr.isEmpty)
        let run = try GeofenceProcess.run(
            [
                "run", "etc/" + rules, "--input", "day.ndjson", "--history", "--fire-history", "--state",
                "state",
                "--log-directory", "logs",
            ], in: scratch.path, name: "run")
        #expect(run.status == 0, "\(run.stderr)")
        let actions = try GeofenceProcess.run(
            ["actions", "--state", "state"], in: scratch.path, name: "actions")
        let statuses = actions.stdout.split(separator: "\n").map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["status"] as? String
        }
        #expect(!statuses.isEmpty, "the synthetic day fires something in \(rules)")
        #expect(statuses.allSatisfy { $0 == "done" }, "\(actions.stdout)")
        #expect(try listing() == before, "nothing is written beside the rules")
        switch rules {
        case "commute.yaml":
            // Morning, evening (abandoned at the gym: a stop, logged) and home from the gym.
            #expect(TemporaryDirectory.lines(scratch.file("logs/commutes.ndjson")).count == 3)
        case "hooks.yaml":
            #expect(TemporaryDirectory.lines(scratch.file("logs/events-seen.ndjson")).count >= 1)
        default: break
        }
    }
}
