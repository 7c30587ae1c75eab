import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `geofence run --nats` engines against a private NATS server or cluster.
private enum NATSRun {
    /// Starts engine `name` with its own state directory.
    static func engine(
        _ name: String, cluster: NATSCluster, partitions: Int, replicas: Int, in scratch: Scratch
    ) throws -> GeofenceProcess {
        try GeofenceProcess(
            [
                "run", "rules.yaml", "--nats", cluster.url, "--nats-partitions", String(partitions),
                "--nats-replicas", String(replicas), "--nats-engine", name, "--nats-lease", "3s",
                "--nats-snapshot", "1s", "--history", "--state", scratch.file("state-\(name)"),
            ], in: scratch.path, name: name)
    }

    /// Waits until the output stream holds `count` messages (every expected event, commute and
    /// action once), giving up after `seconds`.
    static func waitForOutput(_ count: Int, url: String, engines: [GeofenceProcess], seconds: Double) throws {
        try waitUntil(
            "\(count) output messages (have \((try? NATSOutput.count(url: url)) ?? 0))\n"
                + engines.map(\.stderr).joined(separator: "\n---\n"), seconds: seconds, every: 0.5
        ) {
            try NATSOutput.count(url: url) >= UInt64(count)
        }
    }

    /// Stops the engines with SIGTERM; each must end cleanly.
    static func stop(_ engines: [GeofenceProcess]) throws {
        for engine in engines { engine.send(SIGTERM) }
        for engine in engines {
            let ended = try engine.waitForExit(seconds: 60)
            #expect(!ended.signaled && ended.status == 0, "stderr:\n\(engine.stderr)")
        }
    }

    /// The ids per device of `type` in `objects`, compared with replay's; returns how many.
    static func expectSame(_ objects: [[String: Any]], as replayed: [[String: Any]], type: String) -> Int {
        let got = NATSOutput.idsByDevice(objects, type: type)
        let expected = NATSOutput.idsByDevice(replayed, type: type)
        #expect(got.count == expected.count, "devices with \(type)s: \(got.count) vs replay's \(expected.count)")
        var differing: [String] = []
        for (device, ids) in expected where got[device] != ids { differing.append(device) }
        #expect(differing.isEmpty, "\(differing.count) devices' \(type)s differ from replay's, e.g. \(differing.first ?? "")")
        return expected.values.reduce(0) { $0 + $1.count }
    }
}

extension EndToEnd {
    /// On one server, one engine reading a few phones' days from the partitioned stream publishes
    /// to the output stream exactly the events and actions `replay` gives, each id once.
    @Test func oneEngineOnJetStreamGivesWhatReplayGives() throws {
        let scratch = try Scratch("nats-one")
        try scratch.write("rules.yaml", NATSFleet.rules)
        let fleet = NATSFleet(count: 12, intervalSeconds: 300)
        let replayed = try fleet.replayed(in: scratch)
        let cluster = try NATSCluster(nodes: 1, partitions: 4, in: scratch)
        let engine = try NATSRun.engine("solo", cluster: cluster, partitions: 4, replicas: 1, in: scratch)
        try NATSFleet.waitUntilReady(engine)
        try fleet.publish(0..<fleet.messages.count, to: cluster.url)
        let outputs = replayed.filter { ["event", "action", "commute"].contains($0["type"] as? String ?? "") }
        try #require(outputs.count > 12 * 4)
        try NATSRun.waitForOutput(outputs.count, url: cluster.url, engines: [engine], seconds: 180)
        try NATSRun.stop([engine])
        let objects = try NATSOutput.read(url: cluster.url)
        #expect(objects.count == outputs.count)
        _ = NATSRun.expectSame(objects, as: replayed, type: "event")
        _ = NATSRun.expectSame(objects, as: replayed, type: "action")
        #expect(engine.stderr.contains("partition 3: taken"), "\(engine.stderr)")
    }
}
