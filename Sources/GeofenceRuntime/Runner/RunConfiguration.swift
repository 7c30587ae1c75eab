public import Foundation
public import GeofenceInput
public import GeofenceRules

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
    /// The rules as the caller already loaded them from ``rulesPath`` (the command line, for the
    /// display zone and the warnings), which the runner starts with instead of reading the file
    /// again (its polygons cost milliseconds); `nil`: the runner loads them, and reports their
    /// errors.
    public var loadedRules: RulesFile?
    /// Where to read fixes from.
    public var inputs: [Input]
    /// An MQTT broker to read OwnTracks messages from (and publish transitions to), beside the
    /// inputs; `nil`: none.
    public var mqtt: MQTTSettings?
    /// The HTTP receiver phones post to (`--http ADDRESS:PORT`), beside the other inputs; `nil`: none.
    public var httpAddress: String?
    /// The credentials file of the HTTP receiver (`--http-auth`); `nil`: none (loopback only).
    public var httpCredentialsPath: String?
    /// gpsd to read fixes from (`--gpsd [HOST:PORT]`): `""` for 127.0.0.1:2947; `nil`: none.
    public var gpsdAddress: String?
    /// The device gpsd's fixes belong to (`--gpsd-device`).
    public var gpsdDevice = "gpsd"
    /// The OwnTracks secrets that open encrypted payloads (`--owntracks-keys`); `nil`: none.
    public var ownTracksKeysPath: String?
    /// With MQTT publishing, also send each device seen the places as an OwnTracks
    /// `setWaypoints` command (`--mqtt-waypoints`).
    public var publishWaypoints = false
    /// The format of every input, or `.auto` to tell per line.
    public var format: InputFormat = .auto
    /// The zone for input times written without one.
    public var inputTimeZone: TimeZone = .gmt
    /// The state directory.
    public var stateDirectory: String
    /// Where relative `log:` paths point and hooks run (their working directory); `nil`: the
    /// rules file's directory. A service whose rules are read-only (`/etc/geofence`) gives a
    /// writable one here (`LogsDirectory=`). Relative hook programs are still found beside the rules.
    public var logDirectory: String?
    /// The zone action lines and the log's times are shown in; `nil`: the rules file's zone.
    public var displayTimeZone: TimeZone?
    /// Print every fix the filter drops, with its reason.
    public var verbose = false
    /// After this long without a fix from an input (wall clock), report it paused; `nil`: never.
    public var pauseAfterSeconds: Double?
    /// Treat the inputs as recorded history: no fix is judged by its arrival time (no expiry and no
    /// future check), exactly as `replay` does.
    public var history = false
    /// Fire actions however old their evidence (imports); by default actions older than their
    /// rule's `max_delay:` are recorded as skipped (see ``HistoryPolicy``).
    public var fireHistory = false
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
