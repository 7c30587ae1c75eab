import Foundation

/// An input that could not be opened or read, with the path and the system's reason.
public struct InputFileError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The path as given, or `stdin`.
    public var path: String
    /// What was being done: `open`, `read` or `stat`.
    public var operation: String
    /// The `errno` value the call failed with.
    public var code: Int32

    /// Makes an error from its parts.
    public init(path: String, operation: String, code: Int32) {
        self.path = path
        self.operation = operation
        self.code = code
    }

    /// For example `cannot open /var/log/fixes.ndjson: No such file or directory`.
    public var description: String {
        "cannot \(operation) \(path): \(String(cString: strerror(code)))"
    }
}
