import Foundation
import GeofenceInput
import GeofenceRules
import GeofenceRuntime

/// `geofence run RULES --input PATH|-`: the long-running job beside a tracker.
enum RunCommand {
    static let usage = """
        usage: geofence run RULES --input PATH|- [--input ...] [options]
               geofence run RULES --mqtt URL [--input ...] [options]
               geofence run RULES --http ADDRESS:PORT [--http-auth FILE] [options]
               geofence run RULES --gpsd [HOST:PORT] [options]

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
          --mqtt-waypoints       with --mqtt-publish, send each device the places as an OwnTracks
                                 setWaypoints command to owntracks/USER/DEVICE/cmd, once a run

          --http ADDRESS:PORT    receive phones' posts (OwnTracks HTTP mode, Overland, Traccar
                                 Client, OsmAnd, GPSLogger); a bare PORT listens on 127.0.0.1
          --http-auth FILE       credentials, one a line: USER:PASSWORD (basic authentication) or
                                 a TOKEN (Bearer or ?token=); needed on a non-loopback address
          --owntracks-keys FILE  secrets that open encrypted OwnTracks payloads: SECRET, or
                                 USER/DEVICE=SECRET, one a line
          --gpsd [HOST:PORT]     read fixes from gpsd (default 127.0.0.1:2947), reconnecting
          --gpsd-device NAME     the device gpsd's fixes belong to (default gpsd)

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
        var mqttWaypoints = false
        var httpAddress: String?
        var httpAuth: String?
        var ownTracksKeys: String?
        var gpsdAddress: String?
        var gpsdDevice = "gpsd"
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
            case "--mqtt-waypoints": mqttWaypoints = true
            case "--http": httpAddress = try ArgumentText.value(after: argument, in: &rest)
            case "--http-auth": httpAuth = try ArgumentText.value(after: argument, in: &rest)
            case "--owntracks-keys": ownTracksKeys = try ArgumentText.value(after: argument, in: &rest)
            case "--gpsd":
                // The address is optional: the next word is it only if it is HOST:PORT.
                if let next = rest.first, !next.hasPrefix("-"), next.contains(":") {
                    gpsdAddress = rest.removeFirst()
                } else {
                    gpsdAddress = ""
                }
            case "--gpsd-device": gpsdDevice = try ArgumentText.value(after: argument, in: &rest)
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
        guard let rulesPath, !inputPaths.isEmpty || mqttURL != nil || httpAddress != nil || gpsdAddress != nil
        else {
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
        if httpAuth != nil, httpAddress == nil {
            throw CommandError(message: "--http-auth needs --http ADDRESS:PORT", status: 2)
        }
        if mqttWaypoints, !mqttPublish {
            throw CommandError(message: "--mqtt-waypoints needs --mqtt-publish", status: 2)
        }
        configuration.httpAddress = httpAddress
        configuration.httpCredentialsPath = httpAuth
        configuration.ownTracksKeysPath = ownTracksKeys
        configuration.gpsdAddress = gpsdAddress
        configuration.gpsdDevice = gpsdDevice
        configuration.publishWaypoints = mqttWaypoints

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
