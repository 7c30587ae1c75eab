import Foundation
import TestSupport
import Testing

@testable import GeofenceRuntime

@Suite struct StoreTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    private var stateDirectory: String { directory.file("state/nested") }
    private let epoch = Date(timeIntervalSince1970: 1_700_000_000)

    private func action(_ id: String, kind: String = "hook") -> OutboxAction {
        OutboxAction(id: id, kind: kind, payloadJSON: #"{"arguments":["echo","\#(id)"]}"#, createdAt: epoch)
    }

    private func event(_ id: String, at offset: Double, place: String = "home") -> StoredEvent {
        StoredEvent(
            id: id, device: "phone", kind: "enter", place: place, date: epoch + offset,
            confirmedAt: epoch + offset + 30,
            json: #"{"id":"\#(id)"}"#)
    }

    @Test func theStateDirectoryIsOwnerOnlyAndSoAreTheDatabaseFiles() throws {
        let store = try Store(directory: stateDirectory)
        try store.commit(Step(actions: [action("a")]))
        #expect(TemporaryDirectory.mode(directory.file("state")) == 0o700)
        #expect(TemporaryDirectory.mode(stateDirectory) == 0o700)
        for suffix in ["", "-wal", "-shm"] {
            let path = store.databasePath + suffix
            #expect(
                FileManager.default.fileExists(atPath: path), "\(path) should exist while the store is open")
            #expect(TemporaryDirectory.mode(path) == 0o600, "\(path)")
        }
    }

    @Test func aSecondStoreOnTheSameDirectoryIsRefusedUntilTheFirstCloses() throws {
        let first = try Store(directory: stateDirectory)
        #expect(throws: StoreError.locked(stateDirectory)) { _ = try Store(directory: stateDirectory) }
        #expect(TemporaryDirectory.mode(stateDirectory + "/lock") == 0o600)
        first.close()
        let second = try Store(directory: stateDirectory)
        #expect(try second.schemaVersion() == StoreSchema.migrations.count)
    }

    @Test func anExistingDatabaseFileIsMadeOwnerOnly() throws {
        try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
        let path = stateDirectory + "/" + Store.fileName
        #expect(
            FileManager.default.createFile(
                atPath: path, contents: nil, attributes: [.posixPermissions: 0o644]))
        _ = try Store(directory: stateDirectory)
        #expect(TemporaryDirectory.mode(path) == 0o600)
    }

    @Test func theDatabaseIsInWriteAheadLogMode() throws {
        let store = try Store(directory: stateDirectory)
        store.close()
        let raw = try SQLiteDatabase(path: store.databasePath)
        #expect(try raw.query("PRAGMA journal_mode").first?.values.first == .text("wal"))
        #expect(try raw.query("SELECT version FROM schema_version").first?["version"] == .integer(1))
    }

    @Test func aCrashBetweenOutboxAndDoneLeavesExactlyTheUnfinishedActions() throws {
        let first = try Store(directory: stateDirectory)
        try first.commit(
            Step(
                states: [
                    DeviceState(device: "phone", state: Data(#"{"home":"inside"}"#.utf8), updatedAt: epoch)
                ],
                events: [event("e1", at: 0)], actions: [action("a1"), action("a2"), action("a3")]))
        try first.markRunning("a1")
        try first.markDone("a1", outcome: ActionOutcome(succeeded: true, message: "exited with status 0"))
        try first.markRunning("a2")
        // The crash: the store goes away with a2 running and a3 never started.
        first.close()

        let second = try Store(directory: stateDirectory)
        let pending = try second.pendingActions()
        #expect(pending.map(\.id) == ["a2", "a3"])
        #expect(pending.map(\.status) == [.running, .pending])
        #expect(pending.map(\.attempts) == [1, 0])
        #expect(pending.map(\.payloadJSON) == [action("a2").payloadJSON, action("a3").payloadJSON])
        #expect(try second.action(id: "a1")?.status == .done)
        #expect(try second.deviceState("phone")?.state == Data(#"{"home":"inside"}"#.utf8))
    }

    @Test func pruningForgetsOldLogLinesAndHookOutputButKeepsRecords() throws {
        let store = try Store(directory: stateDirectory)
        try store.commit(
            Step(
                events: [event("e1", at: 0)], actions: [action("old"), action("new"), action("pending")],
                log: [
                    LogEntry(at: epoch, level: .info, kind: "started", message: "old line"),
                    LogEntry(
                        at: epoch.addingTimeInterval(200 * 86400), level: .info, kind: "started",
                        message: "new line"),
                ]))
        let outcome = ActionOutcome(
            succeeded: true, message: "exited with status 0", json: #"{"stdout":"lots"}"#)
        try store.markDone("old", outcome: outcome, at: epoch)
        try store.markDone("new", outcome: outcome, at: epoch.addingTimeInterval(200 * 86400))
        let logBefore = try store.log().count

        let pruned = try store.prune(before: epoch.addingTimeInterval(100 * 86400))

        // The old log line and the log line markDone wrote for "old" go; the old result is cleared.
        #expect(pruned.results == 1)
        #expect(try store.log().count == logBefore - pruned.logLines)
        #expect(try store.log().allSatisfy { $0.at >= epoch.addingTimeInterval(100 * 86400) })
        #expect(try store.action(id: "old")?.resultJSON == nil)
        #expect(try store.action(id: "old")?.status == .done)
        #expect(try store.action(id: "new")?.resultJSON != nil)
        // Records stay: the event, and the unfinished action still runs after a restart.
        #expect(try store.events().map(\.id) == ["e1"])
        #expect(try store.pendingActions().map(\.id) == ["pending"])
    }

    @Test func aFinishedActionIsNeverQueuedOrStartedAgain() throws {
        let store = try Store(directory: stateDirectory)
        try store.commit(Step(actions: [action("a1")]))
        try store.markRunning("a1")
        try store.markDone("a1", outcome: ActionOutcome(succeeded: false, message: "exited with status 1"))
        // The same step derived again (say, after replaying input) must not bring it back.
        try store.commit(Step(actions: [action("a1")]))
        #expect(try store.pendingActions().isEmpty)
        #expect(throws: StoreError.actionFinished("a1")) { try store.markRunning("a1") }
        #expect(throws: StoreError.actionFinished("a1")) {
            try store.markDone("a1", outcome: ActionOutcome(succeeded: true, message: "again"))
        }
        let stored = try store.action(id: "a1")
        #expect(stored?.status == .failed)
        #expect(stored?.lastError == "exited with status 1")
        #expect(stored?.attempts == 1)
    }

    @Test func markingAnUnknownActionIsAnError() throws {
        let store = try Store(directory: stateDirectory)
        #expect(throws: StoreError.unknownAction("ghost")) { try store.markRunning("ghost") }
    }

    @Test func markDoneLogsTheOutcomeWithItsDetails() throws {
        let store = try Store(directory: stateDirectory)
        try store.commit(Step(actions: [action("a1")]))
        try store.markDone(
            "a1", outcome: ActionOutcome(succeeded: false, message: "timed out", json: #"{"signal":9}"#),
            at: epoch)
        let log = try store.log()
        #expect(log.count == 1)
        #expect(log.first?.kind == "action")
        #expect(log.first?.level == .error)
        #expect(log.first?.actionID == "a1")
        #expect(log.first?.json == #"{"signal":9}"#)
        #expect(log.first?.at == epoch)
        #expect(try store.action(id: "a1")?.resultJSON == #"{"signal":9}"#)
    }

    @Test func aStepIsStoredWhole() throws {
        let store = try Store(directory: stateDirectory)
        let commute = StoredCommute(
            id: "c1", device: "phone", rule: "to-work", fromPlace: "home", toPlace: "work", start: epoch,
            end: nil,
            durationSeconds: nil, status: "open", json: #"{"id":"c1"}"#)
        try store.commit(
            Step(
                states: [DeviceState(device: "phone", state: Data([1, 2, 3]), updatedAt: epoch)],
                events: [event("e1", at: 0)], commutes: [commute],
                remindersDelivered: [
                    ReminderDelivery(rule: "milk", device: "phone", key: "2023-11-14", at: epoch)
                ],
                inputPositions: [
                    InputPosition(input: "/var/log/fixes.ndjson", identity: "42:7", offset: 1234, line: 10)
                ],
                actions: [action("a1")],
                log: [LogEntry(at: epoch, level: .info, kind: "start", message: "started")]))
        #expect(
            try store.deviceStates() == [
                DeviceState(device: "phone", state: Data([1, 2, 3]), updatedAt: epoch)
            ])
        #expect(try store.events() == [event("e1", at: 0)])
        #expect(try store.commutes() == [commute])
        #expect(try store.reminderDelivered(rule: "milk", device: "phone", key: "2023-11-14"))
        #expect(try !store.reminderDelivered(rule: "milk", device: "phone", key: "2023-11-15"))
        #expect(
            try store.inputPosition("/var/log/fixes.ndjson")
                == InputPosition(input: "/var/log/fixes.ndjson", identity: "42:7", offset: 1234, line: 10))
        #expect(try store.pendingActions().map(\.id) == ["a1"])
        #expect(try store.log().map(\.message) == ["started"])
    }

    @Test func laterStepsReplaceStatesCommutesAndPositionsButNotEvents() throws {
        let store = try Store(directory: stateDirectory)
        var commute = StoredCommute(
            id: "c1", device: "phone", rule: "to-work", fromPlace: "home", toPlace: "work", start: epoch,
            end: nil,
            durationSeconds: nil, status: "open", json: "{}")
        try store.commit(
            Step(
                states: [DeviceState(device: "phone", state: Data([1]), updatedAt: epoch)],
                events: [event("e1", at: 0, place: "home")], commutes: [commute],
                inputPositions: [InputPosition(input: "in", identity: nil, offset: 10, line: 1)]))
        commute.end = epoch + 1800
        commute.durationSeconds = 1800
        commute.status = "completed"
        try store.commit(
            Step(
                states: [DeviceState(device: "phone", state: Data([2]), updatedAt: epoch + 1)],
                events: [event("e1", at: 5, place: "elsewhere")], commutes: [commute],
                inputPositions: [InputPosition(input: "in", identity: nil, offset: 20, line: 2)]))
        #expect(try store.deviceState("phone")?.state == Data([2]))
        #expect(try store.commutes() == [commute])
        #expect(try store.inputPosition("in")?.offset == 20)
        // An event id is stored once: a re-derived event does not rewrite history.
        #expect(try store.events().map(\.place) == ["home"])
    }

    @Test func eventsAreInTimeOrderFilteredBySinceAndLimitedToTheNewest() throws {
        let store = try Store(directory: stateDirectory)
        try store.commit(
            Step(events: [event("c", at: 30), event("a", at: 10), event("d", at: 40), event("b", at: 20)]))
        #expect(try store.events().map(\.id) == ["a", "b", "c", "d"])
        #expect(try store.events(since: epoch + 20).map(\.id) == ["b", "c", "d"])
        #expect(try store.events(limit: 2).map(\.id) == ["c", "d"])
        #expect(try store.events(since: epoch + 15, limit: 1).map(\.id) == ["d"])
    }

    @Test func actionPayloadsRoundTripAsCodable() throws {
        struct Payload: Codable, Equatable {
            var arguments: [String]
            var place: String
        }
        let payload = Payload(arguments: ["notify", "$(touch /tmp/x)"], place: "Home; \"quoted\"\n")
        let store = try Store(directory: stateDirectory)
        try store.commit(
            Step(actions: [try OutboxAction(id: "a1", kind: "hook", payload: payload, createdAt: epoch)]))
        let pending = try store.pendingActions()
        #expect(try pending.first?.payload(as: Payload.self) == payload)
        #expect(pending.first?.kind == "hook")
        #expect(pending.first?.createdAt == epoch)
    }

    @Test func reopeningKeepsTheSchemaAndData() throws {
        do {
            let store = try Store(directory: stateDirectory)
            try store.commit(Step(events: [event("e1", at: 0)]))
        }
        let store = try Store(directory: stateDirectory)
        #expect(try store.schemaVersion() == StoreSchema.migrations.count)
        #expect(try store.events().map(\.id) == ["e1"])
    }

    @Test func aStoreFromANewerGeofenceIsRefused() throws {
        let store = try Store(directory: stateDirectory)
        store.close()
        let raw = try SQLiteDatabase(path: store.databasePath)
        try raw.run("UPDATE schema_version SET version = 99")
        raw.close()
        #expect(throws: StoreError.newerSchema(found: 99, known: StoreSchema.migrations.count)) {
            _ = try Store(directory: stateDirectory)
        }
    }

    @Test func aFileWhereTheDirectoryShouldBeIsReported() throws {
        let path = directory.file("plain-file")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect(throws: StoreError.self) { _ = try Store(directory: path) }
    }

    @Test func theDefaultDirectoryFollowsXDGThenHome() {
        #expect(Store.defaultDirectory(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]) == "/s/geofence")
        #expect(
            Store.defaultDirectory(environment: ["XDG_STATE_HOME": "relative", "HOME": "/h"])
                == "/h/.local/state/geofence")
        #expect(Store.defaultDirectory(environment: [:]) == ".geofence-state")
    }

    @Test func concurrentCommitsFromManyTasksAllLand() async throws {
        let store = try Store(directory: stateDirectory, durability: .normal)
        let steps = (0..<20).map { index in
            Step(events: [event("e\(index)", at: Double(index))], actions: [action("a\(index)")])
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for step in steps { group.addTask { try store.commit(step) } }
            try await group.waitForAll()
        }
        #expect(try store.events().count == 20)
        #expect(try store.pendingActions().count == 20)
    }
}
