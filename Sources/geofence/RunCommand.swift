import Foundation
import GeofenceInput
import GeofenceRules
import GeofenceRuntime

/// `geofence run RULES --input PATH|-`: the long-running job beside a tracker.
enum RunCommand {
    static let usage = """
        usage: geofence run RULES --input PATH|- [--input ...] [options]
               geofence run RULES --mqtt URL [--input ...] [options]
               geofence run RULES --nats URL[,URL...] [options]

          --input PATH|-         a file (or - for standard input) to read fixes from; repeatable
          --follow               follow files like tail -F: wait for new lines, survive rotation
          --format FORMAT        auto (default), ndjson, owntracks, rec, csv or gpx (a GPX
                                 document is read whole, as recorded history; not with --follow)
          --time-zone ZONE       the zone of input times written without one (default UTC)
          --state DIR            the state directory (default $XDG_STATE_HOME/geofence or
                                 ~/.local/state/geofence)
          --pause-after DURATION report an input paused when no fix came for this long
          --history              the inputs are recorded history: judge no fix by its arrival time
          --hooks N              how many hooks may run at once (default 4)
          --grace DURATION       on SIGTERM, how long running hooks get to finish (default 10s)
          --keep-log DURATION    prune log lines and hook output older than this (default 90d;
                                 0 keeps everything); events and commutes are always kept
          --verbose              log every fix the filter drops, with the reason

          --mqtt URL             read OwnTracks messages from a broker: mqtt://[USER@]HOST[:PORT]
                                 (1883) or mqtts://... (8883, TLS with the system's CA store); the
                                 password comes from $GEOFENCE_MQTT_PASSWORD (one in the URL is
                                 visible to ps)
          --mqtt-topic FILTER    the topic filter to subscribe to (default owntracks/+/+)
          --mqtt-publish         publish enter and exit events as OwnTracks transition messages to
                                 owntracks/USER/DEVICE/event
          --mqtt-client-id ID    the client id (default geofence-HOSTNAME); keep it stable: the
                                 broker queues QoS 1 messages for it while geofence is down

          --nats URL[,URL...]    one of several engines sharing the partitions of a JetStream stream
                                 (nats://HOST:PORT); see docs/scale-out.md for the server's mapping
          --nats-partitions N    the partitions the server's mapping makes (default 8)
          --nats-engine NAME     this engine's name in leases (default geofence-HOSTNAME-PID)
          --nats-replicas N      copies of the streams and bucket it creates (default 1; 3 on a
                                 three-node cluster)
          --nats-lease DURATION  how long a silent engine keeps its partitions (default 10s)
          --nats-snapshot DURATION  how often partition states are written (default 5s)

        SIGTERM and SIGINT stop it (exit 0); SIGHUP reloads the rules, keeping the old ones if the
        new file does not pass check.
        """

    static func run(_ arguments: [String]) throws {
        if arguments.contains("-h") || arguments.contains("--help") {
            print(usage)
            return
        }
        var rulesPath: String?
        var inputPaths: [String] = []
        var follow = false
        var format = InputFormat.auto
        var timeZone = TimeZone.gmt
        var state: String?
        var pause: Double?
        var history = false
        var hookSlots = 4
        var grace = 10.0
        var verbose = false
        var keepLog: Double? = 90 * 86400
        var mqttURL: String?
        var mqttTopic = MQTTSettings.defaultTopic
        var mqttPublish = false
        var mqttClientID: String?
        var nats: [String: String] = [:]
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--input", "-i": inputPaths.append(try ArgumentText.value(after: argument, in: &rest))
            case "--follow", "-f": follow = true
            case "--format":
                format = try ArgumentText.format(after: argument, in: &rest)
            case "--time-zone": timeZone = try ArgumentText.timeZone(after: argument, in: &rest)
            case "--state": state = try ArgumentText.value(after: argument, in: &rest)
            case "--pause-after":
                pause = try ArgumentText.seconds(
                    try ArgumentText.value(after: argument, in: &rest), for: argument)
            case "--history": history = true
            case "--hooks":
                let value = try ArgumentText.number(
                    try ArgumentText.value(after: argument, in: &rest), for: argument)
                guard value >= 1, value == value.rounded() else {
                    throw CommandError(message: "--hooks wants a whole number of at least 1", status: 2)
                }
                hookSlots = Int(value)
            case "--grace":
                grace = try ArgumentText.seconds(
                    try ArgumentText.value(after: argument, in: &rest), for: argument)
            case "--keep-log":
                let seconds = try ArgumentText.seconds(
                    try ArgumentText.value(after: argument, in: &rest), for: argument)
                keepLog = seconds > 0 ? seconds : nil
            case "--verbose", "-v": verbose = true
            case "--mqtt": mqttURL = try ArgumentText.value(after: argument, in: &rest)
            case "--mqtt-topic": mqttTopic = try ArgumentText.value(after: argument, in: &rest)
            case "--mqtt-publish": mqttPublish = true
            case "--mqtt-client-id": mqttClientID = try ArgumentText.value(after: argument, in: &rest)
            case "--nats", "--nats-partitions", "--nats-engine", "--nats-replicas", "--nats-lease",
                "--nats-snapshot":
                nats[argument] = try ArgumentText.value(after: argument, in: &rest)
            default:
                if argument.hasPrefix("-") {
                    throw CommandError(message: "unknown option '\(argument)'\n\n\(usage)", status: 2)
                }
                guard rulesPath == nil else {
                    throw CommandError(
                        message: "one rules file; give inputs with --input\n\n\(usage)", status: 2)
                }
                rulesPath = argument
            }
        }
        if let rulesPath, !nats.isEmpty {
            guard inputPaths.isEmpty, mqttURL == nil else {
                throw CommandError(message: "--nats runs alone: no --input or --mqtt beside it", status: 2)
            }
            var configuration = RunConfiguration(
                rulesPath: rulesPath, inputs: [], stateDirectory: state ?? Store.defaultDirectory())
            configuration.inputTimeZone = timeZone
            configuration.history = history
            configuration.hookSlots = hookSlots
            configuration.graceSeconds = grace
            configuration.verbose = verbose
            try runNATS(configuration, options: nats)
            return
        }
        guard let rulesPath, !inputPaths.isEmpty || mqttURL != nil else {
            throw CommandError(message: usage, status: 2)
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
        // A GPX document is read whole and its points sorted; it cannot be followed line by line.
        if format == .gpx, follow {
            throw CommandError(
                message: "a GPX document is read whole, not followed: give --format gpx without --follow",
                status: 2)
        }
        if inputPaths.filter({ $0 == "-" }).count > 1 {
            throw CommandError(message: "standard input can be read only once", status: 2)
        }
        var configuration = RunConfiguration(
            rulesPath: rulesPath,
            inputs: inputPaths.map { RunConfiguration.Input(path: $0, follow: follow && $0 != "-") },
            stateDirectory: state ?? Store.defaultDirectory())
        configuration.format = format
        configuration.inputTimeZone = timeZone
        configuration.pauseAfterSeconds = pause
        configuration.history = history
        configuration.hookSlots = hookSlots
        configuration.graceSeconds = grace
        configuration.verbose = verbose
        configuration.keepLogSeconds = keepLog
        configuration.mqtt = mqtt

        let runner: Runner
        do {
            let zone = (try? RulesLoader.load(path: rulesPath).get())?.timeZone ?? .gmt
            let printer = ReplayPrinter(table: true, timeZone: zone, includeActions: false)
            runner = try Runner(configuration: configuration) { output in printer.print(output) }
        } catch let error as RunError {
            throw CommandError(message: error.message, status: 1, prefixed: false)
        }
        let status = runner.run()
        if status != 0 { throw CommandError(message: "stopped with errors", status: status) }
    }

    /// `run --nats`: the partitioned engine, with its own loop (see docs/scale-out.md).
    private static func runNATS(_ configuration: RunConfiguration, options: [String: String]) throws {
        guard let url = options["--nats"] else {
            throw CommandError(message: "--nats-* options need --nats URL", status: 2)
        }
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "host"
        var settings: NATSSettings
        do {
            settings = NATSSettings(
                servers: try NATSSettings.servers(fromURL: url),
                engineID: options["--nats-engine"] ?? "geofence-\(host)-\(getpid())")
        } catch {
            throw CommandError(message: "\(error)", status: 2)
        }
        for (option, minimum) in [("--nats-partitions", 1.0), ("--nats-replicas", 1.0)] {
            guard let text = options[option] else { continue }
            let value = try ArgumentText.number(text, for: option)
            guard value >= minimum, value <= 1024, value == value.rounded() else {
                throw CommandError(message: "\(option) wants a whole number from 1 to 1024", status: 2)
            }
            if option == "--nats-partitions" {
                settings.partitions = Int(value)
            } else {
                settings.replicas = Int(value)
            }
        }
        if let text = options["--nats-lease"] {
            settings.leaseSeconds = try ArgumentText.seconds(text, for: "--nats-lease")
            guard settings.leaseSeconds >= 1 else {
                throw CommandError(message: "--nats-lease wants at least 1s", status: 2)
            }
        }
        if let text = options["--nats-snapshot"] {
            settings.snapshotSeconds = try ArgumentText.seconds(text, for: "--nats-snapshot")
        }
        let runner: NATSRunner
        do {
            let zone = (try? RulesLoader.load(path: configuration.rulesPath).get())?.timeZone ?? .gmt
            let printer = ReplayPrinter(table: true, timeZone: zone, includeActions: false)
            runner = try NATSRunner(configuration: configuration, settings: settings) { printer.print($0) }
        } catch let error as RunError {
            throw CommandError(message: error.message, status: 1, prefixed: false)
        }
        let status = runner.run()
        if status != 0 { throw CommandError(message: "stopped with errors", status: status) }
    }
}
