import Foundation
import TestSupport
import Testing

@testable import GeofenceRuntime

/// `geofence events` and `geofence commutes`, run as the built executable against a store that a
/// run still has open.
@Suite struct ListingCommandTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    private var state: String { directory.file("state") }
    private let epoch = Date(timeIntervalSince1970: 1_772_521_200)  // 2026-03-03T07:00:00Z

    private func geofence(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let result = try GeofenceCommand.run(arguments)
        return (result.status, result.stdout, result.stderr)
    }

    private func fill() throws -> Store {
        let store = try Store(directory: state)
        let events = (0..<3).map { index in
            StoredEvent(
                id: "e\(index)", device: "phone", kind: index == 1 ? "exit" : "enter", place: "home",
                date: epoch + Double(index) * 3600, confirmedAt: epoch + Double(index) * 3600 + 30,
                json: #"{"id":"e\#(index)"}"#)
        }
        let commute = StoredCommute(
            id: "c1", device: "phone", rule: "work", fromPlace: "home", toPlace: "office",
            start: epoch + 3600,
            end: epoch + 3600 + 2520, durationSeconds: 2520, status: "completed", json: #"{"id":"c1"}"#)
        try store.commit(Step(events: events, commutes: [commute]))
        return store
    }

    @Test func eventsPrintsEachStoredEventsJSONWhileARunHoldsTheStore() throws {
        let store = try fill()
        defer { store.close() }
        let all = try geofence(["events", "--state", state])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(all.stdout == #"{"id":"e0"}"# + "\n" + #"{"id":"e1"}"# + "\n" + #"{"id":"e2"}"# + "\n")
        let recent = try geofence([
            "events", "--state", state, "--since", "2026-03-03T08:00:00Z", "--limit", "1",
        ])
        #expect(recent.stdout == #"{"id":"e2"}"# + "\n")
    }

    @Test func tablesAreForPeople() throws {
        let store = try fill()
        defer { store.close() }
        let events = try geofence(["events", "--state", state, "--table", "--time-zone", "Europe/Berlin"])
        let lines = events.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines.first?.hasPrefix("date") == true)
        #expect(lines.dropFirst().first?.hasPrefix("2026-03-03 08:00:00  enter") == true)
        #expect(lines.dropFirst().first?.hasSuffix("+0:30") == true)
        let commutes = try geofence(["commutes", "--state", state, "--table", "--time-zone", "UTC"])
        let rows = commutes.stdout.split(separator: "\n").map(String.init)
        #expect(rows.count == 2)
        #expect(rows.last?.hasPrefix("2026-03-03 08:00:00  2026-03-03 08:42:00  42:00") == true)
        #expect(try geofence(["commutes", "--state", state]).stdout == #"{"id":"c1"}"# + "\n")
    }

    @Test func aStateDirectoryWithoutAStoreIsAnErrorAndIsNotCreated() throws {
        let result = try geofence(["events", "--state", state])
        #expect(result.status == 1)
        #expect(result.stderr.contains("no geofence store in \(state)"))
        #expect(!FileManager.default.fileExists(atPath: state))
        #expect(try geofence(["events", "--limit", "0"]).status == 2)
        #expect(try geofence(["events", "--since", "yesterday"]).status == 2)
    }
}
