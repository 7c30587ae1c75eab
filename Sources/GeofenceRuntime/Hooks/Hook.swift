public import Foundation

/// A program to run for an action: an argument array (never a shell command), extra environment
/// variables, the bytes for its standard input and a timeout.
public struct Hook: Sendable, Equatable {
    /// The action id, also given to the program as `GEOFENCE_EVENT_ID` by ``HookEnvironment``.
    public var id: String
    /// The program and its arguments. The program is found on `PATH` if it has no slash, and
    /// resolved against the runner's working directory if it is a relative path.
    public var arguments: [String]
    /// Variables added to (and overriding) the small inherited environment.
    public var environment: [String: String]
    /// Written to the program's standard input, which is then closed.
    public var stdin: Data
    /// How long the program may run before its process group gets SIGTERM.
    public var timeoutSeconds: Double

    /// Makes a hook from its parts.
    public init(
        id: String, arguments: [String], environment: [String: String] = [:], stdin: Data = Data(),
        timeoutSeconds: Double = 30
    ) {
        self.id = id
        self.arguments = arguments
        self.environment = environment
        self.stdin = stdin
        self.timeoutSeconds = timeoutSeconds
    }
}
