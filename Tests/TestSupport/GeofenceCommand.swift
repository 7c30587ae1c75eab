import Dispatch
public import Foundation

/// A failure of the test harness itself (not of the behaviour under test).
public struct HarnessError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String

    /// Makes an error with its message.
    public init(_ description: String) { self.description = description }
}

/// The built `geofence` executable, the one way every test suite runs it.
public enum GeofenceCommand {
    /// The executable that `swift build --build-tests` puts beside the test bundle
    /// (`.build/<config>/geofence`); a test that needs it fails with this message when it is not there.
    public static func executable() throws -> URL {
        let folder = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
        let candidate = folder.appendingPathComponent("geofence")
        guard FileManager.default.isExecutableFile(atPath: candidate.path) else {
            throw HarnessError(
                "the geofence executable is not beside the test bundle in \(folder.path); run swift build --build-tests"
            )
        }
        return candidate
    }

    /// What a finished run printed and how it ended.
    public struct Result: Sendable {
        /// The exit status.
        public var status: Int32
        /// Everything written to standard output.
        public var stdout: String
        /// Everything written to standard error.
        public var stderr: String
    }

    /// Runs `geofence arguments...` to its end with `input` on standard input.
    ///
    /// Standard input is fed and standard error drained on threads of their own while standard
    /// output is read, so that no pipe can fill up and stall the child (a day of fixes is larger
    /// than a pipe holds).
    public static func run(_ arguments: [String], input: String = "", in directory: String? = nil) throws
        -> Result
    {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let writer = Thread {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let errorData = HandOver()
        let reader = Thread { errorData.set(stderr.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        errorData.done.wait()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: errorData.get(), as: UTF8.self))
    }
}

/// Data handed from a reading thread to the test.
private final class HandOver: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    /// Signalled once the data is set.
    let done = DispatchSemaphore(value: 0)

    func set(_ value: Data) {
        lock.withLock { data = value }
        done.signal()
    }

    func get() -> Data { lock.withLock { data } }
}
