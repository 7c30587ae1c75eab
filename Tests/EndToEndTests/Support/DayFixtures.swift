import Foundation
import TestSupport
import Testing
import GeofenceSimulation

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

    /// The ids of the place events replay printed, in order.
    static func eventIDs(_ replayed: [[String: Any]]) -> [String] {
        replayed.compactMap { $0["type"] as? String == "event" ? $0["id"] as? String : nil }
    }
}

/// A small seeded generator (SplitMix64), so that random kill points are the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
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
