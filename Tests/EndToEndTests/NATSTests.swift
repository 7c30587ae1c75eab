import Foundation
@testable import GeofenceRuntime
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `geofence run --nats` engines against a private NATS server or cluster.
private enum NATSRun {
    /// Starts engine `name` with its own state directory.
    static func engine(
        _ name: String, cluster: NATSCluster, partitions: Int, replicas: Int, in scratch: TemporaryDirectory
    ) throws -> GeofenceProcess {
        try GeofenceProcess(
            [
                "run", "rules.yaml", "--nats", cluster.url, "--nats-partitions", String(partitions),
                "--nats-replicas", String(replicas), "--nats-engine", name, "--nats-lease", "8s",
                "--nats-snapshot", "1s", "--history", "--state", scratch.file("state-\(name)"),
            ], in: scratch.path, name: name,
            executable: ProcessInfo.processInfo.environment["GEOFENCE_NATS_BENCH_EXECUTABLE"].map {
                URL(fileURLWithPath: $0)
            })
    }

    /// Waits until the output stream holds `count` messages (every expected event, commute and
    /// action once), giving up after `seconds`.
    static func waitForOutput(_ count: Int, url: String, engines: [GeofenceProcess], seconds: Double) throws {
        try waitUntil(
            "\(count) output messages (have \((try? NATSOutput.count(url: url)) ?? 0))\n"
                + engines.map(\.stderr).joined(separator: "\n---\n"), seconds: seconds, every: 0.5
        ) {
            // A count that times out (a consumer created while the cluster elects leaders after a
            // node was killed) is "not yet", not the end of the wait.
            ((try? NATSOutput.count(url: url)) ?? 0) >= UInt64(count)
        }
    }

    /// The partitions `engine` holds now, read from its log (taken and not released or lost).
    static func held(by engine: GeofenceProcess) -> Set<Int> {
        var held = Set<Int>()
        for line in engine.stderr.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard let index = words.firstIndex(of: "partition"), index + 2 < words.count,
                let partition = Int(words[index + 1].dropLast())
            else { continue }
            switch words[index + 2] {
            case "taken", "taken;": held.insert(partition)
            case "released", "lease": held.remove(partition)
            default: break
            }
        }
        return held
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
        #expect(
            got.count == expected.count, "devices with \(type)s: \(got.count) vs replay's \(expected.count)")
        var differing: [String] = []
        for (device, ids) in expected where got[device] != ids { differing.append(device) }
        let example = differing.sorted().first.map { device in
            let want = expected[device] ?? []
            let have = got[device] ?? []
            let same = Set(want) == Set(have) ? "the same ids in another order" : "other ids"
            return
                "\(device), \(same):\n  replay: \(describe(want, of: replayed))\n  stream: \(describe(have, of: objects))"
        }
        #expect(
            differing.isEmpty,
            "\(differing.count) devices' \(type)s differ from replay's, e.g. \(example ?? "")")
        return expected.values.reduce(0) { $0 + $1.count }
    }

    /// The outputs with `ids`, in that order, each as its id, time and what it is, for a failure.
    private static func describe(_ ids: [String], of objects: [[String: Any]]) -> String {
        var byID: [String: [String: Any]] = [:]
        for object in objects { if let id = object["id"] as? String { byID[id] = object } }
        return ids.map { id in
            let object = byID[id] ?? [:]
            let fields = ["date", "transition", "place", "rule"].compactMap { key in
                object[key].map { "\($0)" }
            }
            return "\(id) (\(fields.joined(separator: " ")))"
        }.joined(separator: ", ")
    }
}

extension EndToEnd {
    /// On one server, one engine reading a few phones' days from the partitioned stream publishes
    /// to the output stream exactly the events and actions `replay` gives, each id once.
    @Test func oneEngineOnJetStreamGivesWhatReplayGives() throws {
        let scratch = try TemporaryDirectory("nats-one")
        try scratch.write("rules.yaml", NATSFleet.rules)
        let fleet = NATSFleet(count: 12, intervalSeconds: 300)
        let replayed = try fleet.replayed(in: scratch)
        let cluster = try NATSCluster(nodes: 1, partitions: 4, in: scratch)
        let engine = try NATSRun.engine("solo", cluster: cluster, partitions: 4, replicas: 1, in: scratch)
        try NATSFleet.waitUntilReady(engine)
        try fleet.publish(0..<fleet.messages.count, to: cluster.url)
        let outputs = replayed.filter {
            ["event", "action", "commute"].contains($0["type"] as? String ?? "")
        }
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

extension EndToEnd {
    /// An OwnTracks phone publishing to nats-server's MQTT gateway (here `mosquitto_pub` at QoS 1
    /// on `owntracks/USER/DEVICE`, as the app does) lands in the partitioned stream through the
    /// server's mapping, and `run --nats` gives the events and actions `replay` gives for the same
    /// messages. Plain MQTT on loopback; TLS on the gateway is the server's configuration and is
    /// not tested here (docs/scale-out.md).
    @Test func ownTracksMessagesPublishedToTheNATSMQTTGatewayAreProcessed() throws {
        let scratch = try TemporaryDirectory("nats-mqtt")
        try scratch.write("rules.yaml", NATSFleet.rules)
        let fleet = NATSFleet(count: 1, intervalSeconds: 600, untilHour: 14)
        let replayed = try fleet.replayed(in: scratch)
        let outputs = replayed.filter {
            ["event", "action", "commute"].contains($0["type"] as? String ?? "")
        }
        try #require(outputs.count >= 4)
        let cluster = try NATSCluster(nodes: 1, partitions: 4, mqtt: true, in: scratch)
        let engine = try NATSRun.engine("gateway", cluster: cluster, partitions: 4, replicas: 1, in: scratch)
        try NATSFleet.waitUntilReady(engine)
        let topic = fleet.messages[0].subject.replacingOccurrences(of: ".", with: "/")
        #expect(topic == "owntracks/user0/phone")
        try Broker.publish(
            fleet.messages.map(\.payload), topic: topic, port: cluster.mqttPorts[0], in: scratch,
            name: "phone")
        try NATSRun.waitForOutput(outputs.count, url: cluster.url, engines: [engine], seconds: 180)
        try NATSRun.stop([engine])
        let objects = try NATSOutput.read(url: cluster.url)
        #expect(objects.count == outputs.count)
        #expect(NATSRun.expectSame(objects, as: replayed, type: "event") > 0)
        _ = NATSRun.expectSame(objects, as: replayed, type: "action")
        // Printed by the engine too, as `run` prints events.
        #expect(engine.stdout.contains("user0/phone  left home"), "\(engine.stdout)")
    }
}

extension EndToEnd {
    /// Three engines on a three-node cluster share six partitions of a fleet's day. One engine is
    /// killed (SIGKILL) midway, then one NATS node (SIGKILL, while the engines work through the
    /// last third of the day); the run goes on, and the output stream holds,
    /// for every device, exactly the events and actions `replay` gives, each id once (repeats after
    /// the fail-over dropped by JetStream's duplicate window). A failure keeps the servers' logs
    /// and the engines' standard error in a folder named in the failure.
    ///
    /// `GEOFENCE_NATS_DEVICES` sets the fleet's size (default 1,000 phones, a fix every 10 minutes
    /// from 07:00 to 14:00, 43 fixes each: a shorter day than the 15-hour one, with the same
    /// crossings of the morning; 100 under the sanitizers). Every wait is a hang guard: the cluster
    /// elects leaders after the node's loss, and every reader and publisher here tries again.
    @Test func enginesSurviveAKilledEngineAndAKilledServer() throws {
        let environment = ProcessInfo.processInfo.environment
        // `make sanitizers` runs this suite again from .build/asan and .build/tsan, where every
        // engine is several times slower: a smaller fleet keeps CI's time in bounds there.
        let sanitized = ["/.build/asan/", "/.build/tsan/"].contains {
            CommandLine.arguments.first?.contains($0) ?? false
        }
        let devices = environment["GEOFENCE_NATS_DEVICES"].flatMap(Int.init) ?? (sanitized ? 100 : 1000)
        let partitions = 6
        let scratch = try TemporaryDirectory("nats-cluster")
        try scratch.write("rules.yaml", NATSFleet.rules)
        let fleet = NATSFleet(count: devices, intervalSeconds: 600, untilHour: 14)
        let replayed = try fleet.replayed(in: scratch)
        let expected = replayed.filter {
            ["event", "action", "commute"].contains($0["type"] as? String ?? "")
        }
        try #require(expected.count > devices * 4)

        let cluster = try NATSCluster(nodes: 3, partitions: partitions, in: scratch)
        do {
            try engineAndNodeKill(
                cluster: cluster, fleet: fleet, replayed: replayed, expected: expected, devices: devices,
                partitions: partitions, scratch: scratch)
        } catch {
            throw HarnessError("\(error)\nlogs kept in \(NATSCluster.keepLogs(of: scratch, label: "failed"))")
        }
    }

    /// The body of ``enginesSurviveAKilledEngineAndAKilledServer()``, from the cluster's start.
    private func engineAndNodeKill(
        cluster: NATSCluster, fleet: NATSFleet, replayed: [[String: Any]], expected: [[String: Any]],
        devices: Int, partitions: Int, scratch: TemporaryDirectory
    ) throws {
        try cluster.waitForJetStream()
        let names = ["e1", "e2", "e3"]
        var engines: [GeofenceProcess] = []
        for name in names {
            engines.append(
                try NATSRun.engine(name, cluster: cluster, partitions: partitions, replicas: 3, in: scratch))
        }
        for engine in engines { try NATSFleet.waitUntilReady(engine) }
        // Nothing is published until the leases have settled, each engine holding its share: an
        // engine that claims late (a sanitizer build) may otherwise find its partitions read past
        // the morning's crossings, with no event left for it before the kill.
        try waitUntil(
            "each engine to hold \(partitions / names.count) partitions\n"
                + engines.map(\.stderr).joined(separator: "\n---\n"), seconds: 180
        ) {
            engines.allSatisfy { NATSRun.held(by: $0).count == partitions / names.count }
        }

        // Two thirds of the day, then kill an engine while it works through them.
        let total = fleet.messages.count
        let thirds = [0, total / 3, 2 * total / 3, total]
        let started = Date()
        // Published in slices until e1 has committed an event: engines fast enough to work through
        // a whole two thirds before the leases settle would otherwise leave e1 partitions with
        // nothing left to do, and the kill would not land midway.
        let slice = max(1, thirds[2] / 20)
        var published = thirds[0]
        while published < thirds[2], !engines[0].stderr.contains("first event since taken") {
            let next = min(thirds[2], published + slice)
            try fleet.publish(published..<next, to: cluster.url)
            published = next
            if !engines[0].stderr.contains("partition") { usleep(500_000) }
            usleep(200_000)
        }
        if published < thirds[2] { try fleet.publish(published..<thirds[2], to: cluster.url) }
        try waitUntil("e1 to own partitions and commit events\n\(engines[0].stderr)", seconds: 300) {
            engines[0].stderr.contains("first event since taken")
        }
        try NATSRun.waitForOutput(expected.count / 5, url: cluster.url, engines: engines, seconds: 300)
        let e1Partitions = NATSRun.held(by: engines[0])
        try #require(!e1Partitions.isEmpty, "e1 owned no partition:\n\(engines[0].stderr)")
        engines[0].send(SIGKILL)
        let killedAt = Date()
        _ = try engines[0].waitForExit(seconds: 30)

        // e1's partitions are taken over.
        var takenAt: Date?
        try waitUntil(
            "e1's partitions \(e1Partitions.sorted()) to be taken over\n\(engines[0].stderr)\n---\n\(engines[1].stderr)\n\(engines[2].stderr)",
            seconds: 120
        ) {
            let taken = e1Partitions.allSatisfy { partition in
                engines[1...].contains { $0.stderr.contains("partition \(partition): taken from e1") }
            }
            if taken, takenAt == nil { takenAt = Date() }
            return taken
        }

        // Lose a server while the engines work through the last third: the streams and the bucket
        // keep a quorum of two. Publishes in flight to it lose their answers, and consumers placed
        // on it are gone; the engines must notice both (docs/scale-out.md, "Elections"). The first
        // half of the last third is published from a thread of its own, and the node killed once
        // the output stream has grown by a few hundred messages since it began: the engines are
        // then mid-batch. The day's last fixes are held back until the node is gone, so the
        // engines have work left that only a cluster of two can take: without them, a fast engine
        // could finish the whole day while the two nodes left elect leaders, and nothing would
        // show that it goes on after the loss.
        let lastThird = thirds[2]..<thirds[3]
        let heldBack = (lastThird.lowerBound + lastThird.count / 2)..<thirds[3]
        let heldBackFrom = fleet.messages[heldBack.lowerBound].timestamp
        let expectedAfterKill = expected.filter { object in
            (object["confirmedAt"] as? String ?? object["date"] as? String)
                .flatMap(NATSOutput.date(from:)).map { $0 >= heldBackFrom } ?? false
        }.count
        try #require(
            expectedAfterKill > 0,
            "the day's last \(heldBack.count) fixes (from \(heldBackFrom)) confirm nothing: the check after the node's loss would prove nothing")
        var outputBeforeLastThird: UInt64 = 0
        try waitUntil("the output stream's count before the last third", seconds: 300, every: 0.5) {
            outputBeforeLastThird = (try? NATSOutput.count(url: cluster.url)) ?? 0
            return outputBeforeLastThird > 0
        }
        let publishing = Locked<Result<Void, any Error>?>(nil)
        let firstHalf = lastThird.lowerBound..<heldBack.lowerBound
        let url = cluster.url
        let publisher = Thread {
            publishing.withLock { $0 = Result { try fleet.publish(firstHalf, to: url) } }
        }
        publisher.start()
        try waitUntil(
            "the engines to publish output of the last third (from \(outputBeforeLastThird))\n"
                + engines[1...].map(\.stderr).joined(separator: "\n---\n"), seconds: 300, every: 0.1
        ) {
            ((try? NATSOutput.count(url: cluster.url)) ?? 0) >= outputBeforeLastThird + 300
                || publishing.withLock { $0 != nil }
        }
        try cluster.kill(node: 2)
        let nodeKilledAt = Date()
        // The output as the two nodes left see it (0 means the count timed out during the election).
        var outputAtNodeKill: UInt64 = 0
        try waitUntil("the output stream's count after node 2's loss", seconds: 300, every: 0.5) {
            outputAtNodeKill = (try? NATSOutput.count(url: cluster.url)) ?? 0
            return outputAtNodeKill > 0
        }
        // The publisher retries through the election by itself (a hang guard of its own); each
        // device's held-back fixes follow its earlier ones.
        try waitUntil("the first half of the last third to be published", seconds: 900, every: 0.5) {
            publishing.withLock { $0 != nil }
        }
        try publishing.withLock { $0 }?.get()
        try fleet.publish(heldBack, to: cluster.url)
        var outputResumedAt: Date?
        try waitUntil(
            "the output stream to grow after node 2's loss (from \(outputAtNodeKill))\n"
                + engines[1...].map(\.stderr).joined(separator: "\n---\n"), seconds: 600, every: 0.5
        ) {
            let grew = ((try? NATSOutput.count(url: cluster.url)) ?? 0) > outputAtNodeKill
            if grew { outputResumedAt = Date() }
            return grew
        }
        try NATSRun.waitForOutput(
            expected.count, url: cluster.url, engines: Array(engines[1...]), seconds: 600)
        let finished = Date()
        try NATSRun.stop(Array(engines[1...]))

        let objects = try NATSOutput.read(url: cluster.url)
        #expect(objects.count == expected.count, "the output stream holds a repeat or misses something")
        let ids = objects.compactMap { $0["id"] as? String }
        #expect(Set(ids).count == ids.count)
        let events = NATSRun.expectSame(objects, as: replayed, type: "event")
        let actions = NATSRun.expectSame(objects, as: replayed, type: "action")
        if ["event", "action"].contains(where: {
            NATSOutput.idsByDevice(objects, type: $0) != NATSOutput.idsByDevice(replayed, type: $0)
        }) {
            print("logs kept in \(NATSCluster.keepLogs(of: scratch, label: "differing"))")
        }

        // What each engine committed locally: the union is everything, the overlap the repeats.
        var stored: [String] = []
        for name in names {
            let store = try Store(directory: scratch.file("state-\(name)"))
            stored += try store.events().map(\.id)
            store.close()
        }
        let expectedEvents = Set(NATSOutput.idsByDevice(replayed, type: "event").values.joined())
        #expect(expectedEvents.isSubset(of: Set(stored)))
        let firstEvents = engines[1...].flatMap { engine in
            engine.stderr.split(separator: "\n").filter { line in
                line.contains("first event since taken")
                    && e1Partitions.contains { line.contains("partition \($0):") }
            }
        }
        // Partitions that moved besides the takeover, and why (for the README's account).
        let moves = engines[1...].flatMap { engine in
            engine.stderr.split(separator: "\n").filter { line in
                line.contains("lease lost") || line.contains(": released") || line.contains("cannot renew")
            }
        }
        print(
            """
            NATS fail-over run: \(devices) devices, \(total) fixes, \(events) events, \(actions) actions; \
            \(partitions) partitions, 3 engines, 3 nodes
              e1 owned \(e1Partitions.sorted()); taken over \(String(format: "%.1f", (takenAt ?? killedAt).timeIntervalSince(killedAt))) s after the kill (polled)
              \(firstEvents.joined(separator: "\n  "))
              the day's last \(heldBack.count) fixes held back until node 2's loss: \(expectedAfterKill) outputs confirmed from then
              node 2 killed: the output stream grew again \(String(format: "%.1f", (outputResumedAt ?? nodeKilledAt).timeIntervalSince(nodeKilledAt))) s after (polled; \(outputAtNodeKill) messages then)
              e2 and e3: leases lost, released or not renewed (whole run): \(moves.count)
              \(moves.prefix(10).joined(separator: "\n  "))
              events committed by more than one engine (published again, dropped by JetStream): \(stored.count - Set(stored).count)
              whole run \(String(format: "%.1f", finished.timeIntervalSince(started))) s
            """)
    }
}

extension EndToEnd {
    /// An asynchronous publish whose answer is lost with its server (taken into the server's
    /// socket, then the server killed before reading it) is given up after
    /// ``JetStream/publishAnswerSeconds`` and counted as a failure, and the connection's later waits
    /// for publishes succeed once the server is back. Without the limit on each publish the
    /// library kept the lost one unanswered for ever and every later wait timed out: an engine
    /// then never again saw its output stored (the stall after a node's loss in the cluster test).
    @Test func aPublishWhoseAnswerIsLostWithItsServerDoesNotStallLaterWaits() throws {
        let scratch = try TemporaryDirectory("nats-lost-answer")
        let cluster = try NATSCluster(nodes: 1, partitions: 2, in: scratch)
        let jetStream = try JetStream(
            servers: try NATSSettings.servers(fromURL: cluster.url), name: "lost answer test")
        defer { jetStream.close() }
        try jetStream.ensureStream(.init(name: "LOST", subjects: ["lost.>"], replicas: 1))
        try jetStream.publishAsync(subject: "lost.first", payload: Array("1".utf8), messageID: "first")
        try jetStream.waitForPublishes(timeoutSeconds: 60)
        let before = jetStream.publishTally
        #expect(before.stored == 1 && before.failures == 0)

        cluster.pause(node: 0)
        try jetStream.publishAsync(subject: "lost.second", payload: Array("2".utf8), messageID: "second")
        // Time for the library's flusher to write it into the stopped server's socket.
        Thread.sleep(forTimeInterval: 1)
        try cluster.kill(node: 0)
        try cluster.start(0)

        // A hang guard: each try publishes once more and waits; it passes once every publish so
        // far has been answered or given up.
        var tries = 0
        try waitUntil(
            "a wait for publishes to succeed after the server's restart", seconds: 180, every: 0.5
        ) {
            tries += 1
            do {
                try jetStream.publishAsync(
                    subject: "lost.third", payload: Array("3".utf8), messageID: "third")
                try jetStream.waitForPublishes(timeoutSeconds: JetStream.publishAnswerSeconds + 5)
                return true
            } catch {
                return false
            }
        }
        let after = jetStream.publishTally
        #expect(after.failures >= before.failures + 1, "the lost publish was not given up: \(after)")
        #expect(after.stored >= before.stored + 1, "\(after) after \(tries) tries")
    }
}

extension EndToEnd {
    /// Not a check but a measurement, run only when `GEOFENCE_NATS_BENCH` names a fleet size: the
    /// whole fleet's day is stored first, then 1, 2 and 3 engines (on `GEOFENCE_NATS_BENCH_NODES`
    /// servers, default 1) read it; prints fixes per second from the engines' start until the
    /// output stream holds everything. `GEOFENCE_NATS_BENCH_EXECUTABLE` runs another build of
    /// geofence as the engines (the release build for the README's table).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["GEOFENCE_NATS_BENCH"] != nil))
    func enginesThroughputMeasurement() throws {
        let environment = ProcessInfo.processInfo.environment
        let devices = environment["GEOFENCE_NATS_BENCH"].flatMap(Int.init) ?? 300
        let nodes = environment["GEOFENCE_NATS_BENCH_NODES"].flatMap(Int.init) ?? 1
        let partitions = 6
        let fleet = NATSFleet(count: devices, intervalSeconds: 300)
        var lines: [String] = []
        // With `GEOFENCE_NATS_BENCH_EVENTS_ONLY`, rules without actions: the engines' own cost,
        // without the outbox's two transactions per action.
        let rules =
            environment["GEOFENCE_NATS_BENCH_EVENTS_ONLY"] != nil
            ? "timezone: Europe/London\n" + DayFixtures.places + "\nrules: []\n" : NATSFleet.rules
        for count in 1...3 {
            let scratch = try TemporaryDirectory("nats-bench")
            try scratch.write("rules.yaml", rules)
            let expected = try fleet.replayed(in: scratch).filter {
                ["event", "action", "commute"].contains($0["type"] as? String ?? "")
            }
            let cluster = try NATSCluster(nodes: nodes, partitions: partitions, in: scratch)
            try cluster.waitForJetStream()
            // A first engine creates the streams; it is stopped before the measured run.
            let setup = try NATSRun.engine(
                "setup", cluster: cluster, partitions: partitions, replicas: nodes, in: scratch)
            try NATSFleet.waitUntilReady(setup)
            try NATSRun.stop([setup])
            try fleet.publish(0..<fleet.messages.count, to: cluster.url)
            let start = Date()
            var engines: [GeofenceProcess] = []
            for index in 1...count {
                engines.append(
                    try NATSRun.engine(
                        "b\(index)", cluster: cluster, partitions: partitions, replicas: nodes, in: scratch))
            }
            try NATSRun.waitForOutput(expected.count, url: cluster.url, engines: engines, seconds: 1800)
            let seconds = Date().timeIntervalSince(start)
            try NATSRun.stop(engines)
            let line =
                "\(count) engine(s), \(nodes) node(s), \(devices) devices, \(fleet.messages.count) fixes: \(String(format: "%.1f", seconds)) s, \(Int(Double(fleet.messages.count) / seconds)) fixes/s"
            print(line)
            lines.append(line)
        }
        print(lines.joined(separator: "\n"))
        #expect(lines.count == 3)
    }
}

extension EndToEnd {
    /// The lease keeper renews on its own thread while the engine's loop is busy for longer than
    /// a lease (here the test's thread sleeping through two and a half lease times), and closes
    /// the fence once another engine holds the lease or renewals fail (the server killed).
    @Test func leasesAreRenewedWhileTheLoopIsBusyAndTheFenceClosesWhenTheyCannotBe() throws {
        let scratch = try TemporaryDirectory("nats-keeper")
        let cluster = try NATSCluster(nodes: 1, partitions: 2, in: scratch)
        let jetStream = try JetStream(
            servers: try NATSSettings.servers(fromURL: cluster.url), name: "keeper test")
        defer { jetStream.close() }
        let bucket = try jetStream.keyValue(bucket: "KEEPER", replicas: 1)
        let start = ProcessInfo.processInfo.systemUptime
        let clock: @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime - start }
        let keeper = LeaseKeeper(
            bucket: bucket, engine: "k1", leaseSeconds: 4, log: RunLog(verbose: false), clock: clock)
        var first: [Int: UInt64] = [:]
        for partition in 0..<2 {
            let sentAt = clock()
            first[partition] = try #require(
                try bucket.create(PartitionSnapshot.leaseKey(partition: partition), Array("k1".utf8)))
            keeper.hold(partition, revision: first[partition]!, sentAt: sentAt)
        }
        keeper.start()
        defer { keeper.stop() }
        Thread.sleep(forTimeInterval: 10)
        for partition in 0..<2 {
            let entry = try #require(try bucket.get(PartitionSnapshot.leaseKey(partition: partition)))
            #expect(String(decoding: entry.value, as: UTF8.self) == "k1")
            // A renewal every second: several while the loop slept (at least two, on any load).
            #expect(entry.revision >= first[partition]! + 4, "renewed only to \(entry.revision)")
        }

        // Another engine takes partition 0 (as after an expiry): the next renewal finds it lost.
        try waitUntil("k2 to write lease 0", seconds: 60) {
            guard let entry = try bucket.get(PartitionSnapshot.leaseKey(partition: 0)) else { return false }
            return try bucket.update(
                PartitionSnapshot.leaseKey(partition: 0), Array("k2".utf8), revision: entry.revision) != nil
        }
        try waitUntil("the keeper to find lease 0 lost", seconds: 60) { keeper.lost == [0] }
        #expect(!keeper.mayCommit(0))
        #expect(keeper.lease(1)?.lost == false)

        // The server gone: renewals fail, and the fence closes on partition 1 too.
        try cluster.kill(node: 0)
        try waitUntil("the fence to close without renewals", seconds: 60) { !keeper.mayCommit(1) }
        #expect(keeper.lost == [0], "a failed renewal is not a lost lease")
    }
}

extension EndToEnd {
    /// A group's messages are stored in their order with no gap: once one is refused, the rest of
    /// its group is not sent (a batch sent at once has later ones stored before the refused one
    /// is sent again), while the other groups go on. A message already stored counts as stored
    /// when sent again (its id is a repeat).
    @Test func anOrderedPublishStopsAGroupAtItsFirstRefusedMessageAndGoesOnWithTheOthers() throws {
        let scratch = try TemporaryDirectory("nats-ordered")
        let cluster = try NATSCluster(nodes: 1, partitions: 2, in: scratch)
        let jetStream = try JetStream(
            servers: try NATSSettings.servers(fromURL: cluster.url), name: "ordered test")
        defer { jetStream.close() }
        try jetStream.ensureStream(.init(name: "ORDERED", subjects: ["kept.>"], replicas: 1))
        func message(_ subject: String, _ id: String, group: String) -> JetStream.Outgoing {
            .init(subject: subject, payload: Array(id.utf8), id: id, group: group)
        }
        // "lost.a" is no stream's: the server answers "no responders", as a stream without a
        // leader does.
        let messages = [
            message("kept.a", "a1", group: "a"), message("kept.b", "b1", group: "b"),
            message("lost.a", "a2", group: "a"), message("kept.b", "b2", group: "b"),
            message("kept.a", "a3", group: "a"), message("kept.b", "b3", group: "b"),
        ]
        let outcome = jetStream.publishInOrder(messages)
        #expect(outcome.stored == [true, true, false, true, false, true])
        #expect(
            outcome.failure?.lowercased().contains("no responders") == true,
            "\(String(describing: outcome.failure))")
        #expect(try jetStream.streamState("ORDERED").messages == 4)

        let again = jetStream.publishInOrder([messages[0], messages[4]])
        #expect(again == .init(stored: [true, true], failure: nil))
        #expect(try jetStream.streamState("ORDERED").messages == 5, "a1 was a repeat, a3 new")
    }

    /// On three servers, the output stream's holders are named (a leader, two replicas current),
    /// and asking the leader to step down has another elected: what an engine does when the
    /// stream has refused its output for long.
    @Test func aStreamLeaderAskedToStepDownIsReplaced() throws {
        let scratch = try TemporaryDirectory("nats-step-down")
        let cluster = try NATSCluster(nodes: 3, partitions: 2, in: scratch)
        try cluster.waitForJetStream()
        let jetStream = try JetStream(
            servers: try NATSSettings.servers(fromURL: cluster.url), name: "step-down test")
        defer { jetStream.close() }
        try NATSFleet.retrying {
            try jetStream.ensureStream(.init(name: "LEADS", subjects: ["leads.>"], replicas: 3))
        }
        func leader(_ state: String) -> String? {
            state.hasPrefix("leader n")
                ? String(state.split(separator: ";")[0].dropFirst("leader ".count)) : nil
        }
        var first: String?
        try waitUntil("a leader and two current replicas", seconds: 120, every: 0.5) {
            guard let state = try? jetStream.clusterState("LEADS") else { return false }
            first = leader(state)
            return first != nil && state.components(separatedBy: " current").count == 3
        }
        try NATSFleet.retrying { try jetStream.stepDownLeader("LEADS") }
        var state = ""
        try waitUntil(
            "a new leader after the step-down (was \(first ?? "?")): \(state)", seconds: 120, every: 0.5
        ) {
            state = (try? jetStream.clusterState("LEADS")) ?? ""
            return leader(state).map { $0 != first } ?? false
        }
        try NATSFleet.retrying {
            try jetStream.publish(subject: "leads.after", payload: Array("stored".utf8), messageID: "after")
        }
        #expect(try jetStream.streamState("LEADS").messages == 1)
    }
}
