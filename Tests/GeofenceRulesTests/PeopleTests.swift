import Foundation
import Testing

@testable import Geofence
@testable import GeofenceRules
import GeofenceSimulation

/// Loads rules text, which must be free of errors.
private func load(_ yaml: String) throws -> RulesFile {
    try RulesLoader.parse(yaml, file: "rules.yaml", baseDirectory: URL(fileURLWithPath: "/tmp")).get()
}

/// The errors of rules text that must not load.
private func errors(_ yaml: String) -> [String] {
    switch RulesLoader.parse(yaml, file: "rules.yaml", baseDirectory: URL(fileURLWithPath: "/tmp")) {
    case .success: return []
    case .failure(let error): return error.diagnostics.map(\.description)
    }
}

@Suite struct PeopleTests {
    @Test func devicesAndAliasesAreNamedOnceAndBelongToTheirPerson() throws {
        let rules = try load(
            """
            people:
              jane:
                jane/phone: [jp, "1234567890"]
                jane/watch: jw
              bob: [bob/phone, bob/tablet]
              ann: ann-logger
            """)
        let people = rules.people
        #expect(people.declared == ["jane", "bob", "ann"])
        #expect(people.device("jp") == "jane/phone")
        #expect(people.device("1234567890") == "jane/phone")
        #expect(people.device("jw") == "jane/watch")
        #expect(people.device("jane/phone") == "jane/phone")
        #expect(people.device("zz") == "zz")
        #expect(people.person(ofDevice: "jane/watch") == "jane")
        #expect(people.person(ofDevice: "bob/tablet") == "bob")
        #expect(people.person(ofDevice: "ann-logger") == "ann")
        // Undeclared: USER of USER/DEVICE, else the device itself.
        #expect(people.person(ofDevice: "carl/phone") == "carl")
        #expect(people.person(ofDevice: "phone") == "phone")
    }

    @Test func checksSummarySaysWhoEachPlaceAndRuleIsFor() throws {
        let rules = try load(
            """
            people: { jane: jane/phone, bob: bob/phone }
            places:
              work: { center: [51.5, -0.05], radius: 150, who: [jane] }
            rules:
              - { name: hi, on: enter work, who: [jane, bob], log: true }
            """)
        let summary = rules.summary
        #expect(summary.contains("people: jane, bob"))
        #expect(summary.contains("(who: jane)"))
        #expect(summary.contains("enter work, who: bob, jane -> "))
    }

    @Test func mistakesInPeopleAndWhoAreErrorsWithTheirPlace() {
        #expect(
            errors(
                """
                people:
                  jane: { jane/phone: [jp] }
                  bob: { bob/phone: [jp] }
                places:
                  home: { center: [51.5, -0.12], radius: 150, who: [jnae] }
                rules:
                  - name: up
                    on: engine started
                    who: jane
                    log: true
                """) == [
                    #"rules.yaml:3:22: "jp" is already a name of jane/phone (jane)"#,
                    #"rules.yaml:5:53: place "home" who: unknown person "jnae"; people: declares jane, bob (did you mean "jane"?)"#,
                    #"rules.yaml:9:10: rule "up": who: is for people's places, not engine events"#,
                ])
    }

    /// Jane's phone reports half its fixes with its topic's name and half with only its tracker
    /// id (a `mosquitto_sub` pipe); Bob makes the same day's trip. Places and rules limited with
    /// `who:` concern only their people, and Jane's phone is one device with one commute.
    @Test func oneDeviceWhicheverWayItsFixesArriveAndWhoLimitsPlacesAndRules() throws {
        let day = SyntheticDay()
        let home = day.coordinate(of: .home)
        let work = day.coordinate(of: .work)
        let rules = try load(
            """
            people:
              jane: { jane/phone: [jp] }
              bob: bob/phone
            places:
              home: { center: [\(home.latitude), \(home.longitude)], radius: 150 }
              work: { center: [\(work.latitude), \(work.longitude)], radius: 150, who: [jane] }
            rules:
              - name: arrived at work
                on: enter work
                log: true
              - name: bob left home
                on: exit home
                who: bob
                log: true
              - name: morning commute
                commute: { from: home, to: work, between: ["06:00", "11:00"] }
                log: true
            """)
        var pipeline = Pipeline(rules: rules)
        var outputs: [PipelineOutput] = []
        for (index, fix) in day.fixes().enumerated() {
            var jane = fix
            if index % 2 == 0 {
                jane.deviceId = "jane/phone"
            } else {
                jane.deviceId = nil
                jane.label = "jp"
            }
            var bob = fix
            bob.timestamp = fix.timestamp.addingTimeInterval(1)
            bob.deviceId = "bob/phone"
            outputs.append(pipeline.process(jane, arrivedAt: nil))
            outputs.append(pipeline.process(bob, arrivedAt: nil))
        }
        #expect(Set(pipeline.state.devices.keys) == ["jane/phone", "bob/phone"])
        let commutes = outputs.flatMap(\.commutes)
        #expect(commutes.map(\.device) == ["jane/phone"])
        let actions = outputs.flatMap(\.actions)
        let arrivals = actions.filter { $0.rule == "arrived at work" }
        #expect(!arrivals.isEmpty)
        #expect(arrivals.allSatisfy { $0.device == "jane/phone" })
        let bobLeft = actions.filter { $0.rule == "bob left home" }
        #expect(!bobLeft.isEmpty)
        #expect(bobLeft.allSatisfy { $0.device == "bob/phone" })
        // Work is Jane's place only: Bob's monitor has no condition for it.
        #expect(!outputs.flatMap(\.placeEvents).contains { $0.device == "bob/phone" && $0.place == "work" })
        #expect(pipeline.state.devices["bob/phone"]?.monitor.identifiers == ["home"])
    }
}
