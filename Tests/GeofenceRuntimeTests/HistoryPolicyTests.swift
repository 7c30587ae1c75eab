import Foundation
import TestSupport
import Testing

@testable import GeofenceRules
@testable import GeofenceRuntime

/// Which actions fire and which are history, and how skipped ones are stored.
@Suite struct HistoryPolicyTests {
    let now = Date(timeIntervalSince1970: 1_780_000_000)

    @Test func evidenceOlderThanTheLimitIsHistory() {
        let policy = HistoryPolicy(defaultMaxDelaySeconds: 300)
        #expect(policy.skipReason(evidence: now - 30, now: now, maxDelay: nil) == nil)
        #expect(policy.skipReason(evidence: now - 300, now: now, maxDelay: nil) == nil)
        let reason = policy.skipReason(evidence: now - 86_400 * 2, now: now, maxDelay: nil)
        #expect(
            reason?.hasPrefix("history: its evidence is 2d00h old, more than the default max_delay of 5m00s")
                == true)
        // A rule's max_delay wins both ways.
        #expect(policy.skipReason(evidence: now - 900, now: now, maxDelay: 3600) == nil)
        #expect(
            policy.skipReason(evidence: now - 120, now: now, maxDelay: 60)?.contains(
                "the rule's max_delay of 1m00s") == true)
        #expect(policy.skipReason(evidence: now - 86_400 * 365, now: now, maxDelay: .infinity) == nil)
        // Evidence from the future (clock skew) is not history.
        #expect(policy.skipReason(evidence: now + 30, now: now, maxDelay: nil) == nil)
    }

    @Test func fireHistoryFiresEverything() {
        let policy = HistoryPolicy(fireHistory: true, defaultMaxDelaySeconds: 300)
        #expect(policy.skipReason(evidence: now - 86_400 * 30, now: now, maxDelay: 60) == nil)
    }

    @Test func theDefaultLimitIsTheRulesFilesExpiration() throws {
        let text =
            "timezone: UTC\nfilter: { expiration: 15m }\nplaces:\n  home: { center: [51.5, -0.12], radius: 100 }\nrules: []\n"
        let rules = try RulesLoader.parse(text, file: "rules.yaml", baseDirectory: URL(fileURLWithPath: "/"))
            .get()
        #expect(HistoryPolicy.for(rules, fireHistory: false).defaultMaxDelaySeconds == 900)
    }

    @Test(arguments: [("10m", 600.0), ("1h30m", 5400), ("none", Double.infinity)])
    func maxDelayIsReadFromARule(text: String, seconds: Double) throws {
        let yaml = """
            timezone: UTC
            places:
              home: { center: [51.5, -0.12], radius: 100 }
            rules:
              - { name: milk, on: enter home, remind: Buy milk, max_delay: \(text) }

            """
        let rules = try RulesLoader.parse(yaml, file: "rules.yaml", baseDirectory: URL(fileURLWithPath: "/"))
            .get()
        #expect(rules.rules.first?.maxDelaySeconds == seconds)
    }

    @Test func aBadMaxDelayIsAnErrorWithItsPlace() {
        let yaml = """
            timezone: UTC
            places:
              home: { center: [51.5, -0.12], radius: 100 }
            rules:
              - { name: milk, on: enter home, remind: Buy milk, max_delay: soon }

            """
        guard
            case .failure(let error) = RulesLoader.parse(
                yaml, file: "rules.yaml", baseDirectory: URL(fileURLWithPath: "/"))
        else {
            Issue.record("max_delay: soon was accepted")
            return
        }
        #expect("\(error)".contains("rules.yaml:5:"))
        #expect("\(error)".contains("max_delay: bad duration \"soon\""))
    }

    @Test func aSkippedActionIsStoredFinishedWithItsReasonAndNeverPending() throws {
        let directory = try TemporaryDirectory()
        let store = try Store(directory: directory.file("state"))
        defer { store.close() }
        var skipped = OutboxAction(id: "old", kind: "run", payloadJSON: "{}", createdAt: now)
        skipped.status = .skipped
        skipped.lastError = "history: old"
        skipped.finishedAt = now
        let fresh = OutboxAction(id: "new", kind: "run", payloadJSON: "{}", createdAt: now)
        try store.commit(Step(actions: [skipped, fresh]))
        #expect(try store.pendingActions().map(\.id) == ["new"])
        let stored = try #require(try store.action(id: "old"))
        #expect(stored.status == .skipped && stored.lastError == "history: old" && stored.isFinished)
        #expect(throws: StoreError.actionFinished("old")) { try store.markRunning("old") }
    }

    @Test func aVersionOneStoreIsMigratedKeepingItsActionsInOrder() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("state")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let database = try SQLiteDatabase(path: path + "/" + Store.fileName)
        try database.execute("CREATE TABLE schema_version(version INTEGER NOT NULL)")
        try database.execute(StoreSchema.migrations[0])
        try database.execute("INSERT INTO schema_version(version) VALUES (1)")
        for id in ["b", "a", "c"] {
            try database.run(
                "INSERT INTO outbox(id, kind, created_at, action_json, status) VALUES (?, 'run', 1, '{}', 'pending')",
                [.text(id)])
        }
        database.close()
        let store = try Store(directory: path)
        defer { store.close() }
        #expect(try store.schemaVersion() == StoreSchema.migrations.count)
        #expect(try store.pendingActions().map(\.id) == ["b", "a", "c"])
        var skipped = OutboxAction(id: "d", kind: "log", payloadJSON: "{}", createdAt: now)
        skipped.status = .skipped
        try store.commit(Step(actions: [skipped]))
        #expect(try store.action(id: "d")?.status == .skipped)
    }
}
