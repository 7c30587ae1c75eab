import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A private NATS cluster for one test: `nats-server` nodes with JetStream on free loopback ports,
/// routed to each other, with the OwnTracks subject mapping into partitions. Every node is killed
/// when the value is dropped.
final class NATSCluster: @unchecked Sendable {
    /// The client port of each node.
    let ports: [Int]
    /// The MQTT port of each node (empty unless asked for): nats-server's MQTT gateway, where an
    /// OwnTracks phone's `owntracks/USER/DEVICE` becomes the subject `owntracks.USER.DEVICE`.
    let mqttPorts: [Int]
    private let clusterPorts: [Int]
    private let partitions: Int
    private let scratch: TemporaryDirectory
    private var processes: [Process?]

    /// Starts `nodes` servers (1: a single server without routes), each with an MQTT listener if
    /// `mqtt`, and waits until each accepts connections.
    init(nodes: Int, partitions: Int, mqtt: Bool = false, in scratch: TemporaryDirectory) throws {
        self.scratch = scratch
        self.partitions = partitions
        ports = try (0..<nodes).map { _ in try Broker.freePort() }
        mqttPorts = mqtt ? try (0..<nodes).map { _ in try Broker.freePort() } : []
        clusterPorts = nodes > 1 ? try (0..<nodes).map { _ in try Broker.freePort() } : []
        processes = Array(repeating: nil, count: nodes)
        for node in 0..<nodes { try start(node) }
    }

    deinit {
        for process in processes.compactMap({ $0 }) where process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// The `--nats` value naming every node.
    var url: String { ports.map { "nats://127.0.0.1:\($0)" }.joined(separator: ",") }

    /// The log of `node`.
    func log(_ node: Int) -> String { TemporaryDirectory.read(scratch.file("nats-\(node).log")) }

    /// Starts `node` (again, keeping its JetStream folder) and waits until it accepts connections.
    func start(_ node: Int) throws {
        let name = "nats-\(node)"
        var config = """
            server_name: n\(node)
            listen: 127.0.0.1:\(ports[node])
            jetstream {
              store_dir: "\(scratch.file(name + "-store"))"
              max_memory_store: 64MB
              max_file_store: 2GB
            }
            mappings = {
              "owntracks.*.*": "geofence.fix.{{partition(\(partitions),1,2)}}.{{wildcard(1)}}.{{wildcard(2)}}"
            }

            """
        if !mqttPorts.isEmpty {
            config += """
                mqtt {
                  listen: 127.0.0.1:\(mqttPorts[node])
                }

                """
        }
        if !clusterPorts.isEmpty {
            let routes = clusterPorts.enumerated().filter { $0.offset != node }.map {
                "nats-route://127.0.0.1:\($0.element)"
            }
            config += """
                cluster {
                  name: geofence-test
                  listen: 127.0.0.1:\(clusterPorts[node])
                  routes: [\(routes.joined(separator: ", "))]
                }

                """
        }
        try scratch.write(name + ".conf", config)
        let child = Process()
        child.executableURL = URL(fileURLWithPath: try mosquittoProgram("nats-server"))
        child.arguments = ["-c", scratch.file(name + ".conf"), "-l", scratch.file(name + ".log")]
        child.standardInput = FileHandle.nullDevice
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        processes[node] = child
        try waitUntil("nats-server \(node) to accept connections\n\(log(node))", seconds: 30) {
            guard child.isRunning else {
                throw HarnessError("nats-server \(node) ended at its start:\n\(log(node))")
            }
            return Broker.accepts(port: ports[node])
                && (mqttPorts.isEmpty || Broker.accepts(port: mqttPorts[node]))
        }
    }

    /// Waits until JetStream is ready on a cluster (a meta leader elected), so that streams can be
    /// created.
    func waitForJetStream() throws {
        guard clusterPorts.count > 1 else { return }
        try waitUntil("a JetStream meta leader\n\(log(0))", seconds: 60) {
            (0..<ports.count).contains {
                log($0).contains("JetStream cluster new metadata leader")
                    || log($0).contains("Self is new JetStream cluster metadata leader")
            }
        }
    }

    /// Copies every node's log and the engines' standard error (`*.stderr`) from `scratch` into a
    /// new folder beside it that outlives the test, and returns its path: the scratch folder is
    /// removed with the test, and a failure after a node's loss is understood only from the
    /// servers' logs.
    static func keepLogs(of scratch: TemporaryDirectory, label: String) -> String {
        let kept = scratch.path + "-kept-" + label
        let manager = FileManager.default
        do {
            try manager.createDirectory(atPath: kept, withIntermediateDirectories: true)
            for name in try manager.contentsOfDirectory(atPath: scratch.path)
            where name.hasSuffix(".log") || name.hasSuffix(".stderr") || name.hasSuffix(".conf") {
                try manager.copyItem(atPath: scratch.file(name), toPath: kept + "/" + name)
            }
        } catch {
            return "\(kept) (incomplete: \(error))"
        }
        return kept
    }

    /// Stops `node` (SIGSTOP): it answers nothing, while the kernel still takes what clients send
    /// into its sockets.
    func pause(node: Int) {
        guard let process = processes[node], process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGSTOP)
    }

    /// Kills `node` as a crash would and waits for it to end.
    func kill(node: Int) throws {
        guard let process = processes[node] else { return }
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        processes[node] = nil
    }
}
