import Foundation
import GeofenceInput
import GeofenceRules
import GeofenceRuntime

/// `geofence run RULES --input PATH|-`: the long-running job beside a tracker.
enum RunCommand {
    static let usage = """
        usage: geofence run RULES --input PATH|- [--input ...] [options]
               geofence run RULES --mqtt URL [--input ...] [options]

          --input PATH|-         a file (or - for standard input) to read fixes from; repeatable
          --follow               follow files like tail -F: wait for new lines, survive rotation
          --format FORMAT        auto (default), ndjson, owntracks, rec, csv, json, takeout,
                                 geojson, nmea or geolife (a GPX or KML document is not a
                                 stream of lines: replay reads it)
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
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--input", "-i": inputPaths.append(try ArgumentText.value(after: argument, in: &rest))
            case "--follow", "-f": follow = true
            case "--format":
                format = try ArgumentText.format(after: argument, in: &rest)
                // A GPX document is read whole and sorted by time; run follows lines as they come.
                guard !format.isXMLDocument else {
                    throw CommandError(
                        message:
                            "run reads formats that grow a line at a time; a \(format.rawValue.uppercased()) document is read by replay",
                        status: 2)
                }
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
}
