import Foundation
import Geofence
import GeofenceInput
import GeofenceRules
import Testing

@testable import GeofenceRuntime
import GeofenceSimulation

@Suite struct LeaseBookTests {
    private func book(_ engine: String, partitions: Int = 6) -> LeaseBook {
        LeaseBook(engine: engine, partitions: partitions, leaseSeconds: 3)
    }

    @Test func enginesStartingTogetherAimForTheirFairShareAndTryDifferentPartitionsFirst() {
        let members: [String: UInt64] = ["a": 1, "b": 2, "c": 3]
        var plans: [String: [Int]] = [:]
        for engine in ["a", "b", "c"] {
            var book = book(engine)
            book.observe(leases: [:], members: members, now: 0)
            #expect(book.fairShare(now: 0) == 2)
            let plan = book.plan(held: [], now: 0)
            #expect(plan.release.isEmpty)
            plans[engine] = plan.claim
        }
        #expect(plans == ["a": [0, 1], "b": [2, 3], "c": [4, 5]])
    }

    /// Engine a sends a renewal at 10 s that writes revision 5; b reads that revision at 10.2 s on
    /// its clock. a's fence closes half a lease after the send, long before b may claim.
    @Test func theFenceClosesHalfALeaseAfterARenewalLongBeforeAnotherEngineMayClaim() {
        let leaseSeconds = 8.0
        let keeper = LeaseKeeper.Held(revision: 5, renewedAt: 10)
        var other = LeaseBook(engine: "b", partitions: 6, leaseSeconds: leaseSeconds)
        other.observe(leases: [0: .init(owner: "a", revision: 5)], members: [:], now: 10.2)
        let fence = leaseSeconds / 2
        #expect(LeaseKeeper.mayCommit(keeper, now: 13.9, fenceSeconds: fence))
        #expect(!LeaseKeeper.mayCommit(keeper, now: 14.0, fenceSeconds: fence))
        for now in stride(from: 10.2, to: 18.2, by: 0.5) {
            other.observe(leases: [0: .init(owner: "a", revision: 5)], members: [:], now: now)
            #expect(!other.isClaimable(0, now: now), "claimable at \(now)")
        }
        #expect(other.isClaimable(0, now: 18.2))
        var lost = keeper
        lost.lost = true
        #expect(!LeaseKeeper.mayCommit(lost, now: 10.5, fenceSeconds: fence))
    }

    @Test func aHeldLeaseExpiresOnlyAfterItsRevisionStaysTheSameForALeaseTime() {
        var book = book("a")
        book.observe(leases: [0: .init(owner: "b", revision: 5)], members: [:], now: 10)
        #expect(!book.isClaimable(0, now: 12.9))
        // b renews: the clock starts again from when the new revision was seen.
        book.observe(leases: [0: .init(owner: "b", revision: 6)], members: [:], now: 12)
        #expect(!book.isClaimable(0, now: 14.9))
        book.observe(leases: [0: .init(owner: "b", revision: 6)], members: [:], now: 15)
        #expect(book.isClaimable(0, now: 15))
    }

    @Test func aReleasedOrUnwrittenLeaseIsClaimableAtOnceButNeverOnesOwn() {
        var book = book("a")
        book.observe(
            leases: [0: .init(owner: nil, revision: 9), 1: .init(owner: "a", revision: 3)], members: [:],
            now: 0)
        #expect(book.isClaimable(0, now: 0))
        #expect(!book.isClaimable(1, now: 100))
        #expect(book.isClaimable(2, now: 0))
    }

    @Test func anEngineHoldingMoreThanItsShareLetsTheHighestGo() {
        var book = book("a")
        book.observe(leases: [:], members: ["a": 1, "b": 1, "c": 1], now: 0)
        let plan = book.plan(held: Set(0..<6), now: 0)
        #expect(plan.release == [5, 4, 3, 2])
        #expect(plan.claim.isEmpty)
    }

    @Test func aSilentMemberStopsCountingAfterALeaseTime() {
        var book = book("a")
        book.observe(leases: [:], members: ["a": 1, "b": 7], now: 0)
        #expect(book.liveMembers(now: 2.9) == ["a", "b"])
        #expect(book.fairShare(now: 2.9) == 3)
        #expect(book.liveMembers(now: 3) == ["a"])
        #expect(book.fairShare(now: 3) == 6)
    }

    @Test func partitionsBoundTheEnginesThatGetWork() {
        // Eight engines, six partitions: the share is one, and two engines are left idle.
        let members = Dictionary(uniqueKeysWithValues: (0..<8).map { ("e\($0)", UInt64(1)) })
        var book = book("e7")
        book.observe(leases: [:], members: members, now: 0)
        #expect(book.fairShare(now: 0) == 1)
    }
}

@Suite struct PartitionSnapshotTests {
    static let rulesText = """
        timezone: Europe/London
        places:
          home:  { center: [51.5007, -0.1246], radius: 150 }
          work:  { center: [51.500678, -0.052595], radius: 150 }
        rules:
          - { name: home, on: enter home, log: true }
          - { name: work, on: enter work, log: true }
          - { name: commute, commute: { from: home, to: work } }
        """

    static func rules() throws -> RulesFile {
        try RulesLoader.parse(rulesText, file: "rules.yaml", baseDirectory: URL(fileURLWithPath: "/")).get()
    }

    /// Two devices' synthetic days interleaved, each fix tagged with a stream sequence.
    static func fixes() -> [(sequence: UInt64, fix: Fix)] {
        var all: [(Date, Int, Fix)] = []
        for (index, device) in ["jane/phone", "joe/phone"].enumerated() {
            let day = SyntheticDay(
                year: 2026, month: 3, day: 3, intervalSeconds: 120, noiseMeters: 20, outliers: [],
                seed: UInt64(7 + index))
            for (offset, var fix) in day.fixes().enumerated() {
                fix.deviceId = device
                all.append((fix.timestamp, offset * 2 + index, fix))
            }
        }
        return all.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.enumerated().map {
            (UInt64($0.offset + 1), $0.element.2)
        }
    }

    private static func ids(_ outputs: [PipelineOutput]) -> [String] {
        outputs.flatMap { $0.placeEvents.map(\.id) + $0.actions.map(\.id) + $0.commutes.map(\.id) }
    }

    /// The heart of fail-over: an engine that snapshots at one sequence, goes on, and dies; the
    /// next restores (one device's record newer than the marker, as a snapshot cut short leaves
    /// it), replays from the marker skipping what each record covers, and the union of what both
    /// produced, repeats removed by id, is what one engine produced, in the same order.
    @Test func aRestoredPartitionReplayedFromItsMarkerGivesWhatOneEngineGave() throws {
        let rules = try Self.rules()
        let fixes = Self.fixes()
        var single = Pipeline(rules: rules)
        let expected = Self.ids(fixes.map { single.process($0.fix, arrivedAt: nil) })
        #expect(expected.count > 8)

        let markerAt = UInt64(fixes.count / 3)
        let janeAt = markerAt + 40
        let diesAt = UInt64(fixes.count / 2)
        var first = Pipeline(rules: rules)
        var produced: [PipelineOutput] = []
        var records: [PartitionSnapshot.DeviceRecord] = []
        for (sequence, fix) in fixes where sequence <= diesAt {
            produced.append(first.process(fix, arrivedAt: nil))
            // The marker's snapshot of both devices, then a later one cut short after jane's record.
            if sequence == markerAt || sequence == janeAt {
                for device in ["jane/phone", "joe/phone"] where sequence == markerAt || device == "jane/phone"
                {
                    let record = PartitionSnapshot.DeviceRecord(
                        device: device, sequence: sequence, state: try #require(first.state.devices[device]))
                    let key = PartitionSnapshot.deviceKey(partition: 2, device: device)
                    records.removeAll { $0.device == device }
                    records.append(
                        try PartitionSnapshot.deviceRecord(PartitionSnapshot.encode(record), key: key))
                }
            }
        }
        let restored = PartitionSnapshot.restore(
            marker: .init(sequence: markerAt, engine: "e1"), records: records)
        #expect(restored.resumeAfter == markerAt)
        var state = PipelineState()
        state.devices = restored.devices
        var second = Pipeline(rules: rules, state: state)
        for (sequence, fix) in fixes where sequence > restored.resumeAfter {
            if PartitionSnapshot.covers(restored.sequences, device: fix.deviceId ?? "", sequence: sequence) {
                continue
            }
            produced.append(second.process(fix, arrivedAt: nil))
        }
        var seen = Set<String>()
        let deduplicated = Self.ids(produced).filter { seen.insert($0).inserted }
        #expect(deduplicated == expected)
        #expect(
            Self.ids(produced).count > expected.count,
            "the fail-over repeated nothing: the test shows nothing")
    }

    @Test func aRecordOfAnotherFormatVersionIsRefusedNamingItsKey() throws {
        var record = PartitionSnapshot.DeviceRecord(
            device: "jane/phone", sequence: 3,
            state: Pipeline(rules: try Self.rules()).newDevice(named: "jane/phone"))
        record.version = 2
        let bytes = try PartitionSnapshot.encode(record)
        #expect {
            try PartitionSnapshot.deviceRecord(bytes, key: "snap.1.abc")
        } throws: { error in
            "\(error)".contains("snap.1.abc") && "\(error)".contains("version 2")
        }
    }

    @Test(arguments: ["jane/phone", "a b.c*d>e", "ünï/çødé", "", "x=y+z/"])
    func everyDeviceNameHasAValidKeyAndComesBack(device: String) {
        let token = NATSNames.keyToken(device: device)
        #expect(token.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_=".contains($0)) })
        #expect(NATSNames.device(keyToken: token) == device)
        #expect(PartitionSnapshot.deviceKey(partition: 4, device: device) == "snap.4.\(token)")
    }
}

@Suite struct NATSSettingsTests {
    @Test func serverListsGetASchemeAndPort() throws {
        #expect(
            try NATSSettings.servers(fromURL: "127.0.0.1, nats://a.example:4333,tls://b")
                == ["nats://127.0.0.1:4222", "nats://a.example:4333", "tls://b:4222"])
    }

    @Test(arguments: ["", "http://x", "nats://", ",nats://a"])
    func aURLThatIsNotNATSIsRefused(text: String) {
        #expect(throws: NATSError.self) { try NATSSettings.servers(fromURL: text) }
    }

    @Test func aFixSubjectNamesItsPartitionAndDevice() {
        #expect(
            FixSubject("geofence.fix.3.jane.phone", prefix: "geofence.fix")
                == FixSubject(partition: 3, device: "jane/phone"))
        #expect(
            FixSubject("geofence.fix.3.jane.phone", prefix: "geofence.fix")?.ownTracksTopic
                == "owntracks/jane/phone")
        for subject in [
            "geofence.fix.x.a.b", "geofence.fix.3.a", "geofence.fix.3.a.b.c", "other.3.a.b",
            "geofence.fix.-1.a.b",
        ] {
            #expect(FixSubject(subject, prefix: "geofence.fix") == nil, "\(subject)")
        }
    }

    @Test func outputSubjectsCarryTheDeviceAsTokens() {
        #expect(
            NATSNames.outputSubject(prefix: "geofence.out", kind: "event", device: "jane/phone")
                == "geofence.out.event.jane.phone")
        #expect(
            NATSNames.outputSubject(prefix: "geofence.out", kind: "action", device: "tracker 7.1")
                == "geofence.out.action.tracker_7_1")
    }

    @Test func theMappingPartitionsOnUserAndDevice() {
        var settings = NATSSettings(servers: ["nats://x:4222"], engineID: "e")
        settings.partitions = 12
        #expect(
            settings.subjectMapping
                == #""owntracks.*.*": "geofence.fix.{{partition(12,1,2)}}.{{wildcard(1)}}.{{wildcard(2)}}""#)
        #expect(settings.fixFilter(partition: 5) == "geofence.fix.5.>")
    }
}

@Suite struct RepeatedWarningTests {
    private let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aSpellIsLoggedAtItsStartThenAtMostEachIntervalWithACountAndAtItsEnd() {
        var warning = RepeatedWarning(interval: 30)
        #expect(warning.occurred("no responders", now: start) == "no responders")
        // Ten times a second for 29.9 s: nothing more; the 300th after the first line is due.
        var logged: [String] = []
        for tenth in 1..<300 {
            if let line = warning.occurred("no responders", now: start + Double(tenth) / 10) {
                logged.append(line)
            }
        }
        #expect(logged.isEmpty)
        let due = warning.occurred("no responders", now: start + 30)
        #expect(due == "no responders (300 more since the last such line; failing for 30.0 s)")
        #expect(warning.occurred("no responders", now: start + 31) == nil)
        #expect(warning.ended("stored again", now: start + 40) == "stored again after 40.0 s (302 failures)")
        // Over: nothing to end, and the next failure starts a new spell, logged at once.
        #expect(warning.ended("stored again", now: start + 41) == nil)
        #expect(warning.occurred("timeout", now: start + 50) == "timeout")
        #expect(warning.ended("stored again", now: start + 50.5) == "stored again after 0.5 s (1 failure)")
    }
}
