import Foundation
import GeofenceInput
import GeofenceRules
import GeofenceRuntime

/// `geofence run RULES --input PATH|-`: the long-running job beside a tracker.
enum RunCommand: Command {
    static let input = Option(
        "--input", "-i", value: "PATH|-", help: "a file (or - for standard input) to read fixes from",
        repeatable: true, parse: ValueParser.text)
    static let follow = Option.flag(
        "--follow", "-f", help: "follow files like tail -F: wait for new lines, survive rotation")
    /// `--format` as ``SharedOptions/format`` reads it, with run's own help about GPX.
    static let lineFormat = Option(
        SharedOptions.format.spec.name, value: "FORMAT",
        help: "auto (default), "
            + SharedOptions.formatList(
                InputFormat.allCases.filter { $0 != .auto && !$0.isXMLDocument }
                    + InputFormat.allCases.filter(\.isXMLDocument))
            + " (a GPX or KML document is read whole, as recorded history; not with --follow)",
        parse: SharedOptions.format.parse)
    static let pauseAfter = Option(
        "--pause-after", value: "DURATION", help: "report an input paused when no fix came for this long",
        parse: ValueParser.duration)
    static let history = Option.flag(
        "--history", help: "the inputs are recorded history: judge no fix by its arrival time")
    static let fireHistory = Option.flag(
        "--fire-history",
        help: "fire actions for past events too (imports); by default an action whose evidence is older "
            + "than its rule's max_delay: (default: the filter's expiration, 5m) is recorded as skipped")
    static let hooks = Option(
        "--hooks", value: "N", help: "how many hooks may run at once (default 4)", parse: ValueParser.count)
    static let grace = Option(
        "--grace", value: "DURATION", help: "on SIGTERM, how long running hooks get to finish (default 10s)",
        parse: ValueParser.duration)
    static let keepLog = Option(
        "--keep-log", value: "DURATION",
        help: "prune log lines and hook output older than this (default 90d; 0 keeps everything); "
            + "events and commutes are always kept", parse: ValueParser.duration)
    static let verbose = Option.flag(
        "--verbose", "-v", help: "log every fix the filter drops, with the reason")
    static let mqtt = Option(
        "--mqtt", value: "URL",
        help: "read OwnTracks messages from a broker: mqtt://[USER@]HOST[:PORT] (1883) or mqtts://... "
            + "(8883, TLS with the system's CA store); the password comes from $GEOFENCE_MQTT_PASSWORD "
            + "(one in the URL is visible to ps)", parse: ValueParser.text)
    static let mqttTopic = Option(
        "--mqtt-topic", value: "FILTER", help: "the topic filter to subscribe to (default owntracks/+/+)",
        parse: ValueParser.text)
    static let mqttPublish = Option.flag(
        "--mqtt-publish",
        help: "publish enter and exit events as OwnTracks transition messages to "
            + "owntracks/USER/DEVICE/event")
    static let mqttClientID = Option(
        "--mqtt-client-id", value: "ID",
        help: "the client id (default geofence-HOSTNAME); keep it stable: the broker queues QoS 1 "
            + "messages for it while geofence is down", parse: ValueParser.text)

    static let nats = Option(
        "--nats", value: "URL[,URL...]",
        help: "one of several engines sharing the partitions of a JetStream stream (nats://HOST:PORT); "
            + "see docs/scale-out.md for the server's mapping", parse: ValueParser.text)
    static let natsPartitions = Option(
        "--nats-partitions", value: "N", help: "the partitions the server's mapping makes (default 8)",
        parse: ValueParser.count)
    static let natsEngine = Option(
        "--nats-engine", value: "NAME", help: "this engine's name in leases (default geofence-HOSTNAME-PID)",
        parse: ValueParser.text)
    static let natsReplicas = Option(
        "--nats-replicas", value: "N",
        help: "copies of the streams and bucket it creates (default 1; 3 on a three-node cluster)",
        parse: ValueParser.count)
    static let natsLease = Option(
        "--nats-lease", value: "DURATION",
        help: "how long a silent engine keeps its partitions (default 10s)",
        parse: ValueParser.duration)
    static let natsSnapshot = Option(
        "--nats-snapshot", value: "DURATION", help: "how often partition states are written (default 5s)",
        parse: ValueParser.duration)

    static let mqttWaypoints = Option.flag(
        "--mqtt-waypoints",
        help: "with --mqtt-publish, send each device the places as an OwnTracks setWaypoints command to "
            + "owntracks/USER/DEVICE/cmd, once a run")
    static let http = Option(
        "--http", value: "ADDRESS:PORT",
        help: "receive phones' posts (OwnTracks HTTP mode, Overland, Traccar Client, OsmAnd, GPSLogger); "
            + "a bare PORT listens on 127.0.0.1", parse: ValueParser.text)
    static let httpAuth = Option(
        "--http-auth", value: "FILE",
        help: "credentials, one a line: USER:PASSWORD (basic authentication) or a TOKEN (Bearer or "
            + "?token=); needed on a non-loopback address", parse: ValueParser.text)
    static let ownTracksKeys = Option(
        "--owntracks-keys", value: "FILE",
        help: "secrets that open encrypted OwnTracks payloads: SECRET, or USER/DEVICE=SECRET, one a line",
        parse: ValueParser.text)
    static let gpsd = Option(
        "--gpsd", value: "HOST:PORT", help: "read fixes from gpsd (its port is 2947), reconnecting",
        parse: ValueParser.text)
    static let gpsdDevice = Option(
        "--gpsd-device", value: "NAME", help: "the device gpsd's fixes belong to (default gpsd)",
        parse: ValueParser.text)

    static let definition = CommandDefinition(
        name: "run", summary: "the long-running job beside a tracker: follow inputs, fire the rules",
        arguments: [Positional(name: "RULES", help: "the rules file")],
        options: [
            input.erased, follow.erased, lineFormat.erased, SharedOptions.inputTimeZone.erased,
            SharedOptions.timeZone.erased, SharedOptions.state.erased, SharedOptions.logDirectory.erased,
            pauseAfter.erased, history.erased,
            fireHistory.erased, hooks.erased, grace.erased, keepLog.erased, verbose.erased, mqtt.erased,
            mqttTopic.erased,
            mqttPublish.erased, mqttClientID.erased, nats.erased, natsPartitions.erased, natsEngine.erased,
            natsReplicas.erased, natsLease.erased, natsSnapshot.erased, mqttWaypoints.erased, http.erased,
            httpAuth.erased, ownTracksKeys.erased, gpsd.erased, gpsdDevice.erased,
        ],
        discussion: """
            At least one input: --input PATH|- (repeatable), --mqtt URL, --http ADDRESS:PORT or --gpsd \\
            HOST:PORT; or --nats URL alone.

            SIGTERM and SIGINT stop it (exit 0); SIGHUP reloads the rules, keeping the old ones if the \
            new file does not pass check.
            """)

    static func run(_ arguments: ParsedArguments) throws {
        guard let rulesPath = arguments.positional("RULES") else { return }
        let inputPaths = arguments.values(Self.input)
        let mqttURL = arguments.value(Self.mqtt)
        if let natsURL = arguments.value(Self.nats) {
            guard inputPaths.isEmpty, mqttURL == nil else {
                throw CommandError(message: "--nats runs alone: no --input or --mqtt beside it", status: 2)
            }
            try runNATS(configuration(rulesPath, inputs: [], arguments), url: natsURL, arguments: arguments)
            return
        }
        let httpAddress = arguments.value(Self.http)
        let gpsdAddress = arguments.value(Self.gpsd)
        guard !inputPaths.isEmpty || mqttURL != nil || httpAddress != nil || gpsdAddress != nil else {
            throw CommandError.usage(
                "run needs an input: --input PATH (a file, or - for standard input), --mqtt URL, "
                    + "--http ADDRESS:PORT or --gpsd HOST:PORT",
                command: "run")
        }
        let mqttTopic = arguments.value(Self.mqttTopic) ?? MQTTSettings.defaultTopic
        let mqttPublish = arguments.flag(Self.mqttPublish)
        let mqttClientID = arguments.value(Self.mqttClientID)
        let follow = arguments.flag(Self.follow)
        // A GPX or KML document is read whole and its points sorted; it cannot be followed line by line.
        if let format = arguments.value(Self.lineFormat), format.isXMLDocument, follow {
            throw CommandError.usage(
                "a \(format.rawValue.uppercased()) document is read whole, not followed: give --format "
                    + "\(format.rawValue) without --follow",
                command: "run")
        }
        var mqtt: MQTTSettings?
        if let mqttURL {
            do {
                mqtt = try MQTTSettings(
                    url: mqttURL, topic: mqttTopic, publishTransitions: mqttPublish, clientID: mqttClientID)
            } catch {
                throw CommandError(message: error.message, status: 2)
            }
            if inputPaths.contains(MQTTSettings.inputName) {
                throw CommandError(
                    message:
                        "an input file named '\(MQTTSettings.inputName)' would share the MQTT input's name; give it as ./mqtt",
                    status: 2)
            }
        } else if mqttPublish || mqttClientID != nil || mqttTopic != MQTTSettings.defaultTopic {
            throw CommandError(
                message: "--mqtt-topic, --mqtt-publish and --mqtt-client-id need --mqtt URL", status: 2)
        }
        if inputPaths.filter({ $0 == "-" }).count > 1 {
            throw CommandError(message: "standard input can be read only once", status: 2)
        }
        var configuration = configuration(
            rulesPath,
            inputs: inputPaths.map { RunConfiguration.Input(path: $0, follow: follow && $0 != "-") },
            arguments)
        configuration.format = arguments.value(Self.lineFormat) ?? .auto
        configuration.pauseAfterSeconds = arguments.value(Self.pauseAfter)
        let keepLog = arguments.value(Self.keepLog) ?? 90 * 86400
        configuration.keepLogSeconds = keepLog > 0 ? keepLog : nil
        configuration.mqtt = mqtt
        configuration.logDirectory = arguments.value(SharedOptions.logDirectory)
        let httpAuth = arguments.value(Self.httpAuth)
        let mqttWaypoints = arguments.flag(Self.mqttWaypoints)
        if httpAuth != nil, httpAddress == nil {
            throw CommandError(message: "--http-auth needs --http ADDRESS:PORT", status: 2)
        }
        if mqttWaypoints, !mqttPublish {
            throw CommandError(message: "--mqtt-waypoints needs --mqtt-publish", status: 2)
        }
        configuration.httpAddress = httpAddress
        configuration.httpCredentialsPath = httpAuth
        configuration.ownTracksKeysPath = arguments.value(Self.ownTracksKeys)
        configuration.gpsdAddress = gpsdAddress
        configuration.gpsdDevice = arguments.value(Self.gpsdDevice) ?? "gpsd"
        configuration.publishWaypoints = mqttWaypoints

        try start {
            // Here the rules give the display zone and the warnings check would print; the Runner
            // starts with them, or, when they have errors, loads them again and reports those.
            let rules = try? RulesLoader.load(path: rulesPath).get()
            let zone = DisplayZone.resolve(arguments, rules: rules)
            configuration.displayTimeZone = zone
            configuration.loadedRules = rules
            if let rules {
                for warning in ActionPreflight.warnings(
                    for: rules, logDirectory: configuration.logDirectory)
                {
                    FileHandle.standardError.write(Data("geofence: \(warning)\n".utf8))
                }
            }
            let printer = ReplayPrinter(table: true, timeZone: zone, includeActions: false)
            printer.header()
            return try Runner(configuration: configuration) { output in printer.print(output) }.run()
        }
    }

    /// What every run reads the same way, partitioned (`--nats`) or not: the rules, the state
    /// directory, the input time zone, history, hooks and logging.
    private static func configuration(
        _ rulesPath: String, inputs: [RunConfiguration.Input], _ arguments: ParsedArguments
    ) -> RunConfiguration {
        var configuration = RunConfiguration(
            rulesPath: rulesPath, inputs: inputs,
            stateDirectory: arguments.value(SharedOptions.state) ?? Store.defaultDirectory())
        configuration.inputTimeZone = arguments.value(SharedOptions.inputTimeZone) ?? .gmt
        configuration.history = arguments.flag(Self.history)
        configuration.fireHistory = arguments.flag(Self.fireHistory)
        configuration.hookSlots = arguments.value(Self.hooks) ?? 4
        configuration.graceSeconds = arguments.value(Self.grace) ?? 10
        configuration.verbose = arguments.flag(Self.verbose)
        return configuration
    }

    /// Builds an engine and runs it to the end: an engine that cannot start reports its own error
    /// (it names the rules file or the store), and one that stopped with errors exits with its status.
    private static func start(_ runEngine: () throws -> Int32) throws {
        let status: Int32
        do {
            status = try runEngine()
        } catch let error as RunError {
            throw CommandError(message: error.message, status: 1, prefixed: false)
        }
        if status != 0 { throw CommandError(message: "stopped with errors", status: status) }
    }

    /// `run --nats`: the partitioned engine, with its own loop (see docs/scale-out.md).
    private static func runNATS(_ configuration: RunConfiguration, url: String, arguments: ParsedArguments)
        throws
    {
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "host"
        var settings: NATSSettings
        do {
            settings = NATSSettings(
                servers: try NATSSettings.servers(fromURL: url),
                engineID: arguments.value(Self.natsEngine) ?? "geofence-\(host)-\(getpid())")
        } catch {
            throw CommandError(message: "\(error)", status: 2)
        }
        if let partitions = arguments.value(Self.natsPartitions) {
            guard partitions <= 1024 else {
                throw CommandError(
                    message: "--nats-partitions wants a whole number from 1 to 1024", status: 2)
            }
            settings.partitions = partitions
        }
        if let replicas = arguments.value(Self.natsReplicas) {
            guard replicas <= 1024 else {
                throw CommandError(message: "--nats-replicas wants a whole number from 1 to 1024", status: 2)
            }
            settings.replicas = replicas
        }
        if let lease = arguments.value(Self.natsLease) {
            guard lease >= 1 else { throw CommandError(message: "--nats-lease wants at least 1s", status: 2) }
            settings.leaseSeconds = lease
        }
        if let snapshot = arguments.value(Self.natsSnapshot) { settings.snapshotSeconds = snapshot }
        try start {
            let rules = try? RulesLoader.load(path: configuration.rulesPath).get()
            let zone = DisplayZone.resolve(arguments, rules: rules)
            let printer = ReplayPrinter(table: true, timeZone: zone, includeActions: false)
            return try NATSRunner(configuration: configuration, settings: settings) { printer.print($0) }
                .run()
        }
    }
}
