public import Foundation
public import GeofenceInput

/// How `geofence run` is set up: the rules, the inputs, the state directory and the limits.
public struct RunConfiguration: Sendable {
    /// One input: a file path or `-` for standard input.
    public struct Input: Sendable, Hashable {
        /// The path, or `-`.
        public var path: String
        /// Whether to follow the file like `tail -F` (wait for new lines) or stop at its end.
        public var follow: Bool

        /// Makes an input.
        public init(path: String, follow: Bool) {
            self.path = path
            self.follow = follow
        }

        /// The name it has in the store and in messages.
        public var name: String { path == "-" ? "stdin" : path }
    }

    /// The rules file.
    public var rulesPath: String
    /// Where to read fixes from.
    public var inputs: [Input]
    /// An MQTT broker to read OwnTracks messages from (and publish transitions to), beside the
    /// inputs; `nil`: none.
    public var mqtt: MQTTSettings?
    /// The format of every input, or `.auto` to tell per line.
    public var format: InputFormat = .auto
    /// The zone for input times written without one.
    public var inputTimeZone: TimeZone = .gmt
    /// The state directory.
    public var stateDirectory: String
    /// Print every fix the filter drops, with its reason.
    public var verbose = false
    /// After this long without a fix from an input (wall clock), report it paused; `nil`: never.
    public var pauseAfterSeconds: Double?
    /// Treat the inputs as recorded history: no fix is judged by its arrival time (no expiry and no
    /// future check), exactly as `replay` does.
    public var history = false
    /// How many hooks may run at once.
    public var hookSlots = 4
    /// How long, on SIGTERM, running hooks get to finish before they are handed back.
    public var graceSeconds: Double = 10
    /// Log lines and captured hook output older than this are pruned (at start, then daily), so
    /// that a run of months does not fill the disk; `nil` keeps everything. Events and commutes
    /// are always kept.
    public var keepLogSeconds: Double? = 90 * 86400
    /// How often followed files are looked at when nothing is new.
    public var pollSeconds: Double = 0.2

    /// Makes a configuration with the defaults.
    public init(rulesPath: String, inputs: [Input], stateDirectory: String) {
        self.rulesPath = rulesPath
        self.inputs = inputs
        self.stateDirectory = stateDirectory
    }
}
