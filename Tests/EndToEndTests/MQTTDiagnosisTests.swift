import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension EndToEnd {
    /// Issue 12: MQTT problems say what is wrong and what to do: a refused password with
    /// GEOFENCE_MQTT_PASSWORD unset, `mqtts://` against a plain port, and a broker that cannot be
    /// reached, which is warned about again while it lasts (not once and then never).
    @Test func mqttProblemsSayWhatIsWrongAndWhatToDo() throws {
        let scratch = try Scratch("mqtt-diagnosis")
        try scratch.write("rules.yaml", DayFixtures.hookRules(hook: "/bin/true"))
        // A broker that wants a password (user geo, password secret).
        let port = try Broker.freePort()
        let passwords = Process()
        passwords.executableURL = URL(fileURLWithPath: try mosquittoProgram("mosquitto_passwd"))
        passwords.arguments = ["-c", "-b", scratch.file("passwords"), "geo", "secret"]
        try passwords.run()
        passwords.waitUntilExit()
        try #require(passwords.terminationStatus == 0)
        try scratch.write(
            "broker.conf",
            """
            listener \(port) 127.0.0.1
            user \(Broker.userName())
            allow_anonymous false
            password_file \(scratch.file("passwords"))
            persistence false

            """)
        let broker = Process()
        broker.executableURL = URL(fileURLWithPath: try mosquittoProgram("mosquitto"))
        broker.arguments = ["-c", scratch.file("broker.conf")]
        broker.standardOutput = FileHandle.nullDevice
        broker.standardError = FileHandle.nullDevice
        try broker.run()
        defer { kill(broker.processIdentifier, SIGKILL) }

        let unreachable = try Broker.freePort()
        try #require(
            ProcessInfo.processInfo.environment["GEOFENCE_MQTT_PASSWORD"] == nil,
            "the runs inherit the test's environment, which must not hold a password")
        func start(_ url: String, _ name: String) throws -> GeofenceProcess {
            try GeofenceProcess(
                [
                    "run", "rules.yaml", "--mqtt", url, "--mqtt-client-id", "e2e-\(name)", "--state",
                    scratch.file(name),
                ],
                in: scratch.path, name: name)
        }
        let noPassword = try start("mqtt://geo@127.0.0.1:\(port)", "no-password")
        let tlsOnPlainPort = try start("mqtts://geo@127.0.0.1:\(port)", "tls")
        let nobodyThere = try start("mqtt://127.0.0.1:\(unreachable)", "unreachable")
        defer { for run in [noPassword, tlsOnPlainPort, nobodyThere] { run.send(SIGKILL) } }

        try waitUntil("the refusal explained") { noPassword.stderr.contains("no password was sent") }
        #expect(noPassword.stderr.contains("GEOFENCE_MQTT_PASSWORD is not set"))
        try waitUntil("the TLS hint") { tlsOnPlainPort.stderr.contains("is a plain MQTT port") }
        #expect(tlsOnPlainPort.stderr.contains("use mqtt:// or the broker's TLS port (8883)"))
        try waitUntil("the unreachable broker warned about again", seconds: 120) {
            nobodyThere.stderr.components(separatedBy: "is the broker running").count - 1 >= 2
        }
        #expect(nobodyThere.stderr.contains("for 10 s:"))
        #expect(nobodyThere.stderr.contains("for 1 min:"))
    }
}
