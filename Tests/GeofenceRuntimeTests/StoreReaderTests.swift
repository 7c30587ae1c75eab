import Foundation
import TestSupport
import Testing

@testable import GeofenceRuntime

@Suite struct StoreReaderTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    private var state: String { directory.file("state") }
    private let epoch = Date(timeIntervalSince1970: 1_700_000_000)

    private func event(_ id: String, at offset: Double) -> StoredEvent {
        StoredEvent(
            id: id, device: "phone", kind: "enter", place: "home", date: epoch + offset, confirmedAt: nil,
            json: #"{"id":"\#(id)"}"#)
    }

    private func commute(_ id: String, start offset: Double?) -> StoredCommute {
        StoredCommute(
            id: id, device: "phone", rule: "work", fromPlace: "home", toPlace: "office",
            start: offset.map { epoch + $0 }, end: offset.map { epoch + $0 + 1800 },
            durationSeconds: offset == nil ? nil : 1800, status: "completed", json: #"{"id":"\#(id)"}"#)
    }

    @Test func readsWhatARunningStoreCommittedWhileItIsStillOpen() throws {
        let store = try Store(directory: state)
        try store.commit(
            Step(
                events: [event("e2", at: 60), event("e1", at: 0), event("e3", at: 120)],
                commutes: [commute("c1", start: 0), commute("c2", start: 3600)]))
        // The running store holds the directory's lock; the reader needs none.
        let reader = try StoreReader(directory: state)
        #expect(try reader.events().map(\.id) == ["e1", "e2", "e3"])
        #expect(try reader.events().map(\.json) == (try store.events().map(\.json)))
        #expect(try reader.events(since: epoch + 60).map(\.id) == ["e2", "e3"])
        #expect(try reader.events(limit: 2).map(\.id) == ["e2", "e3"])
        #expect(try reader.commutes() == (try store.commutes()))
        #expect(try reader.commutes(limit: 1).map(\.id) == ["c2"])

        // A step committed after the reader opened is seen by its next query.
        try store.commit(Step(events: [event("e4", at: 180)]))
        #expect(try reader.events(limit: 1).map(\.id) == ["e4"])
        store.close()
        #expect(try reader.events().count == 4)
    }

    @Test func readsAStoreNoRunHasOpen() throws {
        let store = try Store(directory: state)
        try store.commit(Step(events: [event("e1", at: 0)]))
        store.close()
        let reader = try StoreReader(directory: state)
        #expect(try reader.events().map(\.id) == ["e1"])
        // Reading did not take the lock: a run can start meanwhile.
        let again = try Store(directory: state)
        try again.commit(Step(events: [event("e2", at: 1)]))
        #expect(try reader.events().map(\.id) == ["e1", "e2"])
    }

    @Test func aDirectoryWithoutAStoreIsReportedAndNotCreated() throws {
        #expect(throws: StoreError.noDatabase(state)) { _ = try StoreReader(directory: state) }
        #expect(!FileManager.default.fileExists(atPath: state))
    }

    @Test func theReaderCannotWrite() throws {
        _ = try Store(directory: state)
        let raw = try SQLiteDatabase(path: state + "/" + Store.fileName, readOnly: true)
        #expect(throws: SQLiteError.self) { try raw.run("DELETE FROM events") }
    }
}
