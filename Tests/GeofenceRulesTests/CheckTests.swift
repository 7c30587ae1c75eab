import Geofence
import Foundation
import Testing

@testable import GeofenceRules

/// A broken rules file and the exact errors `check` must give for it.
struct BrokenRules: Sendable, CustomTestStringConvertible {
    let name: String
    let yaml: String
    let errors: [String]
    var testDescription: String { name }
}

let places = """
    places:
      home: { center: [51.5, -0.12], radius: 150 }
      work: { center: [51.5, -0.05], radius: 150 }

    """

let brokenRules: [BrokenRules] = [
    BrokenRules(
        name: "YAML syntax error", yaml: "places:\n  home: { center: [51.5, -0.12, radius: 150 }\n",
        errors: ["rules.yaml:2:45: did not find expected ',' or ']' while parsing a flow sequence"]),
    BrokenRules(
        name: "unknown top-level key", yaml: "timezon: Europe/London\n",
        errors: [#"rules.yaml:1:1: unknown key "timezon" in the rules file (did you mean "timezone"?)"#]),
    BrokenRules(
        name: "unknown time zone", yaml: "timezone: Europe/Londn\n",
        errors: [#"rules.yaml:1:11: unknown time zone "Europe/Londn" (did you mean "Europe/London"?)"#]),
    BrokenRules(
        name: "unknown profile", yaml: "profile: fitnes\n",
        errors: [
            #"rules.yaml:1:10: unknown profile "fitnes": use one of default, automotiveNavigation, otherNavigation, fitness, airborne (did you mean "fitness"?)"#
        ]),
    BrokenRules(
        name: "unknown place key",
        yaml: "places:\n  home: { center: [51.5, -0.12], radius: 150, radios: 3 }\n",
        errors: [#"rules.yaml:2:47: unknown key "radios" in place "home" (did you mean "radius"?)"#]),
    BrokenRules(
        name: "circle without radius", yaml: "places:\n  home: { center: [51.5, -0.12] }\n",
        errors: [#"rules.yaml:2:9: place "home" has a center but no radius (metres)"#]),
    BrokenRules(
        name: "negative radius", yaml: "places:\n  home: { center: [51.5, -0.12], radius: -5 }\n",
        errors: [#"rules.yaml:2:42: place "home" radius must be more than 0, not -5"#]),
    BrokenRules(
        name: "latitude out of range", yaml: "places:\n  home: { center: [95.5, -0.12], radius: 50 }\n",
        errors: [#"rules.yaml:2:20: place "home" center: latitude 95.5 is outside -90.0...90.0"#]),
    BrokenRules(
        name: "two shapes",
        yaml: "places:\n  home: { center: [51.5, -0.12], radius: 50, wkt: \"POINT (0 0)\" }\n",
        errors: [#"rules.yaml:2:9: place "home" has more than one shape (center, wkt): give exactly one"#]),
    BrokenRules(
        name: "self-intersecting polygon",
        yaml: "places:\n  yard: { wkt: \"POLYGON ((0 0, 1 1, 1 0, 0 1, 0 0))\" }\n",
        errors: [
            #"rules.yaml:2:16: place "yard": invalid polygon: Self-intersection at latitude 0.500057, longitude 0.500000"#
        ]),
    BrokenRules(
        name: "missing polygon file", yaml: "places:\n  office: { geojson: places/nowhere.geojson }\n",
        errors: [
            #"rules.yaml:2:22: place "office": cannot read polygon file places/nowhere.geojson (/nonexistent/places/nowhere.geojson): no such file"#
        ]),
    BrokenRules(
        name: "more than twenty places",
        yaml: "places:\n" + (1...21).map { "  p\($0): { center: [51.5, -0.12], radius: 50 }\n" }.joined(),
        errors: [
            "rules.yaml:22:3: more than 20 places (21): a monitor evaluates at most 20 conditions; split them across rules files"
        ]),
    BrokenRules(
        name: "unknown place in a trigger",
        yaml: places + "rules:\n  - { name: a, on: enter hom, log: true }\n",
        errors: [#"rules.yaml:5:20: rule "a": unknown place "hom" (did you mean "home"?)"#]),
    BrokenRules(
        name: "unknown trigger", yaml: places + "rules:\n  - { name: a, on: arrive home, log: true }\n",
        errors: [
            #"rules.yaml:5:20: rule "a": unknown trigger "arrive home": use enter PLACE, exit PLACE, dwell PLACE (with after:), visit start PLACE, visit end PLACE, or an engine event"#
        ]),
    BrokenRules(
        name: "dwell without after", yaml: places + "rules:\n  - { name: a, on: dwell home, log: true }\n",
        errors: [#"rules.yaml:5:20: rule "a": on: dwell needs after: (how long inside, like 10m)"#]),
    BrokenRules(
        name: "bad duration",
        yaml: places + "rules:\n  - { name: a, on: enter home, cooldown: 20 minutes, log: true }\n",
        errors: [
            #"rules.yaml:5:42: cooldown: bad duration "20 minutes": use a number with s, m, h or d, like 90s, 20m or 1h30m"#
        ]),
    BrokenRules(
        name: "bad time of day",
        yaml: places
            + "rules:\n  - { name: a, on: enter home, when: { between: [\"9am\", \"17:00\"] }, log: true }\n",
        errors: [#"rules.yaml:5:50: between: bad time "9am": use 24-hour HH:MM, like "07:30""#]),
    BrokenRules(
        name: "unknown day",
        yaml: places + "rules:\n  - { name: a, on: enter home, when: { days: [mon, tuseday] }, log: true }\n",
        errors: [#"rules.yaml:5:52: unknown day "tuseday" (did you mean "tuesday"?)"#]),
    BrokenRules(
        name: "run as a shell string",
        yaml: places + "rules:\n  - { name: a, on: enter home, run: \"lights.sh --on; rm -rf /\" }\n",
        errors: [
            #"rules.yaml:5:37: rule "a": run: must be a list of arguments like [program, arg], never a shell command line"#
        ]),
    BrokenRules(
        name: "no action", yaml: places + "rules:\n  - { name: a, on: enter home }\n",
        errors: [#"rules.yaml:5:5: rule "a" has no action: add log:, run: or remind:"#]),
    BrokenRules(
        name: "no trigger", yaml: places + "rules:\n  - { name: a, log: true }\n",
        errors: [
            #"rules.yaml:5:5: rule "a" needs a trigger: on: (enter, exit, dwell, visit start, visit end, engine ...) or commute:"#
        ]),
    BrokenRules(
        name: "commute to an unknown place",
        yaml: places + "rules:\n  - { name: c, commute: { from: home, to: wrok } }\n",
        errors: [#"rules.yaml:5:43: rule "c": unknown place "wrok" (did you mean "work"?)"#]),
    BrokenRules(
        name: "duplicate rule names",
        yaml: places
            + "rules:\n  - { name: a, on: enter home, log: true }\n  - { name: a, on: exit home, log: true }\n",
        errors: [#"rules.yaml:6:5: duplicate rule name "a""#]),
    BrokenRules(
        name: "timeout without run",
        yaml: places + "rules:\n  - { name: a, on: enter home, timeout: 5s, log: true }\n",
        errors: [#"rules.yaml:5:41: rule "a": timeout: only goes with run:"#]),
    BrokenRules(
        name: "duplicate key",
        yaml:
            "places:\n  home: { center: [51.5, -0.12], radius: 150 }\n  home: { center: [51.6, -0.12], radius: 150 }\n",
        errors: [#"rules.yaml:3:3: duplicate key "home""#]),
    BrokenRules(
        name: "several errors are all reported",
        yaml: "timezone: Mars/Base\n" + places
            + "rules:\n  - { name: a, on: enter gym, log: true }\n  - { name: b, on: exit home, cooldown: soon, log: true }\n",
        errors: [
            #"rules.yaml:1:11: unknown time zone "Mars/Base""#,
            #"rules.yaml:6:20: rule "a": unknown place "gym""#,
            #"rules.yaml:7:41: cooldown: bad duration "soon": use a number with s, m, h or d, like 90s, 20m or 1h30m"#,
        ]),
]

@Suite struct CheckTests {
    @Test(arguments: brokenRules)
    func aBrokenRulesFileGivesItsExactErrors(_ broken: BrokenRules) {
        let result = RulesLoader.parse(
            broken.yaml, file: "rules.yaml", baseDirectory: URL(fileURLWithPath: "/nonexistent"))
        guard case .failure(let error) = result else {
            Issue.record("accepted a broken file")
            return
        }
        #expect(error.diagnostics.map(\.description) == broken.errors)
    }

    @Test func theExampleRulesFilesPass() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Rules").standardized
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasSuffix(".yaml")
        }
        #expect(files.count >= 3)
        for file in files {
            let result = RulesLoader.load(path: directory.appendingPathComponent(file).path)
            if case .failure(let error) = result { Issue.record("\(file): \(error)") }
        }
    }
}

@Suite struct JSONRulesTests {
    @Test func aJSONRulesFileIsReadLikeYAMLWithPositions() throws {
        let json = """
            {
              "timezone": "Europe/Berlin",
              "places": { "home": { "center": [52.52, 13.405], "radius": 120 } },
              "rules": [ { "name": "hi", "on": "enter home", "log": true } ]
            }
            """
        let file = try RulesLoader.parse(json, file: "rules.json", baseDirectory: URL(fileURLWithPath: "/"))
            .get()
        #expect(file.timeZone.identifier == "Europe/Berlin")
        #expect(file.places.map(\.name) == ["home"])
        #expect(file.rules.map(\.trigger) == [.enter(place: "home")])

        let broken = json.replacingOccurrences(of: "\"enter home\"", with: "\"enter hoem\"")
        guard
            case .failure(let error) = RulesLoader.parse(
                broken, file: "rules.json", baseDirectory: URL(fileURLWithPath: "/"))
        else {
            Issue.record("accepted a broken file")
            return
        }
        #expect(
            error.diagnostics.map(\.description) == [
                #"rules.json:4:36: rule "hi": unknown place "hoem" (did you mean "home"?)"#
            ])
    }
}

@Suite struct HysteresisLayeringTests {
    /// A place's hysteresis is the profile's, then the file's settings, then the place's own.
    @Test func placeSettingsOverrideFileSettingsWhichOverrideTheProfile() throws {
        let yaml = """
            profile: fitness
            hysteresis: { exit_margin: 20, confirm_fixes: 4 }
            places:
              home: { center: [51.5, -0.12], radius: 150, hysteresis: { confirm: 2m } }
              gym: { center: [51.6, -0.12], radius: 150, hysteresis: { exit_margin: 40 } }
            """
        let file = try RulesLoader.parse(yaml, file: "rules.yaml", baseDirectory: URL(fileURLWithPath: "/"))
            .get()
        let home = try #require(file.place(named: "home"))
        let gym = try #require(file.place(named: "gym"))
        let homeHysteresis = file.hysteresis(for: home)
        #expect(homeHysteresis.enterMarginMeters == 5)  // fitness
        #expect(homeHysteresis.exitMarginMeters == 20)  // file
        #expect(homeHysteresis.confirmationFixes == 4)  // file
        #expect(homeHysteresis.confirmationSeconds == 120)  // place
        let gymHysteresis = file.hysteresis(for: gym)
        #expect(gymHysteresis.exitMarginMeters == 40)  // place over file
        #expect(gymHysteresis.confirmationSeconds == Profile.fitness.hysteresis.confirmationSeconds)
    }
}
