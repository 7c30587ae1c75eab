import Foundation
import Geofence
import GeofenceInput
import GeofenceReport
import GeofenceRules
import Testing

/// The repository's example files and the synthetic day's report built from them.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func rules(_ name: String = "Rules/commute.yaml") throws -> RulesFile {
        try RulesLoader.load(path: root.appendingPathComponent(name).path).get()
    }

    /// `Examples/synthetic-day.ndjson` through `Rules/commute.yaml`, as `make demo` reports it.
    static func syntheticDayReport() throws -> Report {
        let batch = InputReader.readAll(
            contentsOf: root.appendingPathComponent("Examples/synthetic-day.ndjson"))
        #expect(batch.errors.isEmpty)
        var builder = ReportBuilder(rules: try rules())
        for record in batch.records { builder.add(record) }
        return builder.finish(source: "the synthetic day")
    }
}

/// A fresh directory under the system's temporary directory, removed when released.
final class ScratchDirectory: Sendable {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.path + "/geofence-report-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }
}

/// What a test failed on when a tool it needs is missing or misbehaves.
struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs blocking or long CPU-bound work on a thread of its own and awaits it.
///
/// Swift Testing runs tests on the cooperative pool, which has one thread per core: a test that
/// keeps one busy for a minute (a million fixes, a browser starting) starves the async tests of
/// other suites, whose hooks then hit their timeouts on a two-core machine.
func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try work() }) }
        thread.stackSize = 8 << 20
        thread.start()
    }
}
