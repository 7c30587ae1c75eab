import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// Issue 6, promise 4: a place name, rule name, hook argument, device id and label holding
    /// `$(...)`, backquotes, quotes, newlines, `;`, `|`, `&` and `>` reach the hook as plain data,
    /// byte for byte, in its arguments, its environment and its standard input; nothing is run.
    @Test func shellSyntaxInNamesReachesTheHookAsPlainData() throws {
        let scratch = try TemporaryDirectory("inject")
        let marker = scratch.file("pwned")
        func nasty(_ what: String) -> String {
            "\(what) $(touch \(marker)); `touch \(marker)` 'single' \"double\" \\ back\nsecond line; true | cat & > \(marker)"
        }
        /// `text` as a YAML double-quoted scalar.
        func yaml(_ text: String) -> String {
            "\""
                + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
                    of: "\"", with: "\\\""
                )
                .replacingOccurrences(of: "\n", with: "\\n") + "\""
        }
        /// `text` as a JSON string.
        func json(_ text: String) throws -> String {
            String(
                decoding: try JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed]),
                as: UTF8.self
            )
            .dropFirst().dropLast().description
        }
        let place = nasty("home"), rule = nasty("rule"), argument = nasty("argument")
        let device = nasty("device"), label = nasty("label")

        try scratch.write(
            "hook.sh",
            """
            #!/bin/sh
            d="out/${GEOFENCE_EVENT_ID%%/*}"
            mkdir -p "$d"
            printf '%s' "$1" > "$d/argument"
            printf '%s' "$GEOFENCE_PLACE" > "$d/place"
            printf '%s' "$GEOFENCE_RULE" > "$d/rule"
            printf '%s' "$GEOFENCE_DEVICE" > "$d/device"
            cat > "$d/stdin"

            """, executable: true)
        try scratch.write(
            "rules.yaml",
            """
            timezone: Europe/London
            places:
              \(yaml(place)): { center: [51.5007, -0.1246], radius: 150 }
            rules:
              - name: \(yaml(rule))
                on: \(yaml("exit " + place))
                run: [./hook.sh, \(yaml(argument))]

            """)
        let day = try DayFixtures.day(in: scratch)
        var lines: [String] = []
        for line in day {
            lines.append("{\"deviceId\":\(try json(device)),\(line.dropFirst())")
            lines.append("{\"label\":\(try json(label)),\(line.dropFirst())")
        }
        try scratch.write("fixes.ndjson", lines.joined(separator: "\n") + "\n")
        let expected = DayFixtures.hookIDs(
            try DayFixtures.replay(
                rules: scratch.file("rules.yaml"), input: scratch.file("fixes.ndjson"), in: scratch))
        try #require(expected.count == 2, "one departure from home for each device")

        let run = try GeofenceProcess(
            ["run", "rules.yaml", "--input", "fixes.ndjson", "--history", "--state", scratch.file("state")],
            in: scratch.path, name: "run")
        let ended = try run.waitForExit()
        #expect(!ended.signaled && ended.status == 0, "stderr:\n\(run.stderr)")

        var devicesSeen: Set<String> = []
        for id in expected {
            let folder = scratch.file("out/" + (id.split(separator: "/").first.map(String.init) ?? id))
            #expect(TemporaryDirectory.read(folder + "/argument") == argument)
            #expect(TemporaryDirectory.read(folder + "/place") == place)
            #expect(TemporaryDirectory.read(folder + "/rule") == rule)
            let seen = TemporaryDirectory.read(folder + "/device")
            devicesSeen.insert(seen)
            let input = try #require(
                try JSONSerialization.jsonObject(with: Data(TemporaryDirectory.read(folder + "/stdin").utf8))
                    as? [String: Any])
            #expect(input["place"] as? String == place)
            #expect(input["rule"] as? String == rule)
            #expect(input["device"] as? String == seen)
            #expect(input["event_id"] as? String == id)
        }
        #expect(devicesSeen == [device, label])
        #expect(!FileManager.default.fileExists(atPath: marker), "a command in a name was executed")
    }
}
