import Foundation
import GeofenceRuntime
import GeofenceSimulation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The synthetic day and what `geofence replay` says it must produce.
enum DayFixtures {
    /// The four places of the synthetic day (home in Westminster, work 5 km east, lunch 300 m
    /// north of work, a gym between), as YAML lines under `places:`.
    static let places = """
        places:
          home:  { center: [51.5007, -0.1246], radius: 150 }
          work:  { center: [51.500678, -0.052595], radius: 150 }
          lunch: { center: [51.503374, -0.052591], radius: 150 }
          gym:   { center: [51.514174, -0.081384], radius: 150 }
        """

    /// The transitions that happen on the synthetic day, one rule each.
    static let triggers = [
        "enter home", "exit home", "enter work", "exit work", "enter lunch", "exit lunch", "enter gym",
        "exit gym",
    ]

    /// A rules file with one rule per trigger in ``triggers``, each running `hook` with `arguments`.
    static func hookRules(hook: String, arguments: [String] = [], extra: String = "") -> String {
        var text = "timezone: Europe/London\n" + places + "\nrules:\n"
        let argumentList = ([hook] + arguments).map { "\"\($0)\"" }.joined(separator: ", ")
        for trigger in triggers {
            text += "  - name: \(trigger) hook\n    on: \(trigger)\n    run: [\(argumentList)]\n"
        }
        return text + extra
    }

    /// The day's fixes as NDJSON lines from `geofence simulate day`.
    static func day(interval: String = "30s", seed: Int = 1, in scratch: TemporaryDirectory) throws
        -> [String]
    {
        let result = try GeofenceProcess.run(
            ["simulate", "day", "--interval", interval, "--seed", String(seed)], in: scratch.path,
            name: "simulate")
        guard result.status == 0 else { throw HarnessError("simulate day failed: \(result.stderr)") }
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// `line` with a `deviceId` field added in front.
    static func withDevice(_ line: String, _ device: String) -> String {
        "{\"deviceId\":\"\(device)\"," + line.dropFirst()
    }

    /// What `geofence replay rules input` printed, one JSON object a line.
    static func replay(rules: String, input: String, in scratch: TemporaryDirectory) throws -> [[String: Any]]
    {
        let result = try GeofenceProcess.run(["replay", rules, input], in: scratch.path, name: "replay")
        guard result.status == 0 else { throw HarnessError("replay failed: \(result.stderr)") }
        return try result.stdout.split(separator: "\n").map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            else {
                throw HarnessError("replay printed a line that is not an object: \(line)")
            }
            return object
        }
    }

    /// The ids of the hooks (`run` actions) replay says fire, in order; with `rule`, only that rule's.
    static func hookIDs(_ replayed: [[String: Any]], rulePrefix: String? = nil) -> [String] {
        replayed.compactMap { object in
            guard object["type"] as? String == "action", object["action"] as? String == "run",
                let id = object["id"] as? String
            else { return nil }
            if let rulePrefix, !((object["rule"] as? String)?.hasPrefix(rulePrefix) ?? false) { return nil }
            return id
        }
    }

    /// A rules file over the day's places with one rule, `arrived home`, that logs: what the
    /// tests of live inputs (MQTT, HTTP, Home Assistant) compare with replay.
    static let arrivedHomeRules =
        "timezone: Europe/London\n" + places + """

            rules:
              - { name: arrived home, on: enter home, log: true }

            """

    /// One fix of the day, as every protocol carries it.
    struct Fix {
        var latitude: Double
        var longitude: Double
        var seconds: Int64
        var accuracy: Double

        /// The same fix as the project's NDJSON, for the replay that says what must happen.
        func ndjson(device: String) -> String {
            #"{"deviceId":"\#(device)","latitude":\#(latitude),"longitude":\#(longitude),"timestamp":\#(seconds * 1000),"horizontalAccuracy":\#(accuracy)}"#
        }

        /// The fix as an OwnTracks `location` message: lat, lon, tst in seconds, acc.
        var ownTracks: String {
            #"{"_type":"location","lat":\#(latitude),"lon":\#(longitude),"tst":\#(seconds),"acc":\#(accuracy)}"#
        }
    }

    /// The day's NDJSON lines (from ``day(interval:seed:in:)``) as fixes.
    static func fixes(_ day: [String]) throws -> [Fix] {
        try day.map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let latitude = object["latitude"] as? Double, let longitude = object["longitude"] as? Double,
                let milliseconds = object["timestamp"] as? Int64,
                let accuracy = object["horizontalAccuracy"] as? Double
            else { throw HarnessError("not a fix of the synthetic day: \(line)") }
            return Fix(
                latitude: latitude, longitude: longitude, seconds: milliseconds / 1000, accuracy: accuracy)
        }
    }

    /// The day's NDJSON lines as OwnTracks `location` messages, as a phone publishes them.
    static func ownTracksMessages(_ day: [String]) throws -> [String] {
        try fixes(day).map(\.ownTracks)
    }

    /// What `geofence replay` of `scratch`'s `rules.yaml` prints for the day as `device`.
    static func replayed(_ day: [String], device: String, in scratch: TemporaryDirectory) throws -> [[String:
        Any]]
    {
        try scratch.write("day.ndjson", day.map { withDevice($0, device) }.joined(separator: "\n") + "\n")
        return try replay(rules: scratch.file("rules.yaml"), input: scratch.file("day.ndjson"), in: scratch)
    }

    /// `geofence run rules.yaml --mqtt ... --history` against `broker`, once it has subscribed.
    static func runOverMQTT(
        broker: Broker, client: String, in scratch: TemporaryDirectory, extra: [String] = [],
        name: String = "run"
    ) throws -> GeofenceProcess {
        let run = try GeofenceProcess(
            [
                "run", "rules.yaml", "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--mqtt-client-id", client,
                "--history", "--state", scratch.file("state"),
            ] + extra, in: scratch.path, name: name)
        try broker.waitForSubscription(of: client)
        return run
    }

    /// Stops a run with SIGTERM and expects a clean exit.
    static func stop(_ run: GeofenceProcess) throws {
        run.send(SIGTERM)
        let ended = try run.waitForExit()
        #expect(!ended.signaled && ended.status == 0, "stderr:\n\(run.stderr)")
    }

    /// The ids of the events stored in `scratch`'s `state`, in order.
    static func storedEventIDs(in scratch: TemporaryDirectory) throws -> [String] {
        let store = try Store(directory: scratch.file("state"))
        defer { store.close() }
        return try store.events().map(\.id)
    }

    /// The ids of the place events replay printed, in order.
    static func eventIDs(_ replayed: [[String: Any]]) -> [String] {
        replayed.compactMap { $0["type"] as? String == "event" ? $0["id"] as? String : nil }
    }
}

/// Counts of each line of a hook's output file.
func occurrences(_ lines: [String]) -> [String: Int] {
    lines.reduce(into: [:]) { $0[$1, default: 0] += 1 }
}

/// A hook script that appends its `GEOFENCE_EVENT_ID` to the file named by its first argument,
/// in one `write` (so concurrent hooks never interleave within a line).
let appendEventIDHook = """
    #!/bin/sh
    printf '%s\\n' "$GEOFENCE_EVENT_ID" >> "$1"
    """

/// The one suite all end-to-end tests belong to: they run one at a time, since each starts
/// `geofence` processes and some wait for hooks, on a machine that may be busy.
@Suite(.serialized)
struct EndToEnd {}
