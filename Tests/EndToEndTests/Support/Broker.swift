import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A program of the `mosquitto` and `mosquitto-clients` packages (`make setup` installs them),
/// looked up on `PATH` and in the sbin folders, where Debian puts the broker.
func mosquittoProgram(_ name: String) throws -> String {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    let folders = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/local/sbin", "/usr/bin"]
    for folder in folders where FileManager.default.isExecutableFile(atPath: folder + "/" + name) {
        return folder + "/" + name
    }
    throw HarnessError("\(name) is not installed (make setup installs mosquitto and mosquitto-clients)")
}

/// A private MQTT broker for one test: `mosquitto` listening on a free loopback port, without
/// persistence, logging everything to a file in the scratch folder. Killed when dropped.
///
/// mosquitto keeps at most 1000 messages queued for a client by default and drops the rest
/// ("Outgoing messages are being dropped" in its log): a day of 1,800 messages published at once
/// to a geofence slowed by a loaded machine lost its end marker and the test waited forever. The
/// test broker queues far more.
final class Broker: @unchecked Sendable {
    let port: Int
    private let scratch: TemporaryDirectory
    private var process: Process?
    private var starts = 0

    /// Starts a broker and waits until it accepts connections.
    init(in scratch: TemporaryDirectory) throws {
        self.scratch = scratch
        port = try Broker.freePort()
        try start()
    }

    deinit { kill() }

    /// The log of the current (latest) start.
    var log: String { TemporaryDirectory.read(scratch.file("broker-\(starts).log")) }

    /// Starts the broker (again) on the same port, with a fresh log; waits until it accepts
    /// connections.
    func start() throws {
        starts += 1
        let config = scratch.file("broker-\(starts).conf")
        try scratch.write(
            "broker-\(starts).conf",
            """
            listener \(port) 127.0.0.1
            user \(Broker.userName())
            allow_anonymous true
            persistence false
            max_queued_messages 100000
            log_dest file \(scratch.file("broker-\(starts).log"))
            log_type all

            """)
        let child = Process()
        child.executableURL = URL(fileURLWithPath: try mosquittoProgram("mosquitto"))
        child.arguments = ["-c", config]
        child.standardInput = FileHandle.nullDevice
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        process = child
        try waitUntil("the broker on port \(port) to accept connections\n\(log)", seconds: 20) {
            guard child.isRunning else { throw HarnessError("the broker ended at its start:\n\(self.log)") }
            return Broker.accepts(port: port)
        }
    }

    /// Stops the broker as a crash or power cut would (SIGKILL: a child of Foundation's Process
    /// may start with SIGTERM blocked, swift-corelibs-foundation#4772) and waits for it to end.
    func stop() throws {
        guard let process else { return }
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        try waitUntil("the broker to stop", seconds: 20) { !process.isRunning }
        process.waitUntilExit()
        self.process = nil
    }

    private func kill() {
        guard let process else { return }
        if process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Waits until the broker has acknowledged a subscription of `client` (its `count`th since
    /// this start): messages published after that reach it.
    func waitForSubscription(of client: String, count: Int = 1) throws {
        try waitUntil("\(client) to subscribe\n\(log)", seconds: 30) {
            log.components(separatedBy: "Sending SUBACK to \(client)").count - 1 >= count
        }
    }

    /// Publishes each of `lines` as one message on `topic` at QoS 1 with `mosquitto_pub -l`, in
    /// order (`retain`: with the retain flag), and waits for it to finish.
    func publish(_ lines: [String], topic: String, name: String = "publish", retain: Bool = false) throws {
        try Broker.publish(lines, topic: topic, port: port, in: scratch, name: name, retain: retain)
    }

    /// Publishes `lines` as ``publish(_:topic:name:retain:)`` does, to any MQTT server on loopback
    /// `port` (nats-server's MQTT gateway too).
    static func publish(
        _ lines: [String], topic: String, port: Int, in scratch: TemporaryDirectory, name: String,
        retain: Bool = false
    ) throws {
        try scratch.write(name + ".lines", lines.joined(separator: "\n") + "\n")
        let child = Process()
        child.executableURL = URL(fileURLWithPath: try mosquittoProgram("mosquitto_pub"))
        child.arguments =
            ["-h", "127.0.0.1", "-p", String(port), "-q", "1", "-t", topic, "-l"] + (retain ? ["-r"] : [])
        child.standardInput = FileHandle(forReadingAtPath: scratch.file(name + ".lines"))
        let errors = scratch.file(name + ".stderr")
        guard FileManager.default.createFile(atPath: errors, contents: nil),
            let errorHandle = FileHandle(forWritingAtPath: errors)
        else { throw HarnessError("cannot create \(errors)") }
        defer { try? errorHandle.close() }
        child.standardOutput = FileHandle.nullDevice
        child.standardError = errorHandle
        try child.run()
        defer { if child.isRunning { Glibc.kill(child.processIdentifier, SIGKILL) } }
        try waitUntil("mosquitto_pub to finish\n\(TemporaryDirectory.read(errors))", seconds: 60) {
            !child.isRunning
        }
        child.waitUntilExit()
        guard child.terminationStatus == 0 else {
            throw HarnessError(
                "mosquitto_pub failed (\(child.terminationStatus)): \(TemporaryDirectory.read(errors))")
        }
    }

    /// Starts `mosquitto_sub -v` on `filter` as `client`, its output (`topic payload` lines) going
    /// to `path`; waits until the broker acknowledged its subscription. The caller ends it.
    func subscribe(_ filter: String, client: String, to path: String) throws -> Process {
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let output = FileHandle(forWritingAtPath: path)
        else { throw HarnessError("cannot create \(path)") }
        defer { try? output.close() }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: try mosquittoProgram("mosquitto_sub"))
        child.arguments = [
            "-h", "127.0.0.1", "-p", String(port), "-q", "1", "-i", client, "-v", "-t", filter,
        ]
        child.standardInput = FileHandle.nullDevice
        child.standardOutput = output
        child.standardError = FileHandle.nullDevice
        try child.run()
        do {
            try waitForSubscription(of: client)
        } catch {
            Glibc.kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            throw error
        }
        return child
    }

    /// The user the tests run as: a broker started by root would otherwise switch to the user
    /// `mosquitto`, which cannot write its log in the scratch folder.
    static func userName() -> String {
        guard let entry = getpwuid(getuid()), let name = entry.pointee.pw_name else { return "root" }
        return String(cString: name)
    }

    /// A port nobody listens on: bound to 127.0.0.1:0, read back, closed.
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic -> Bool in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else {
            throw HarnessError("cannot bind a loopback port: \(String(cString: strerror(errno)))")
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func accepts(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

/// Stops a helper process started by a test (by its pid; SIGKILL, since it may have started with
/// SIGTERM blocked) and waits for it.
func end(_ child: Process) {
    if child.isRunning { kill(child.processIdentifier, SIGKILL) }
    child.waitUntilExit()
}
