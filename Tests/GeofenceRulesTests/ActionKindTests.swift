import Foundation
import Testing

@testable import GeofenceRules

/// The action kinds are declared once each (``ActionKind``); these pin what the rest of the
/// system relies on: the names, the order that gives actions their ids, and the payload fields.
@Suite struct ActionKindTests {
    /// One action of each kind; the switch makes a new kind add itself here.
    static func sample(_ name: RuleAction.Name) -> RuleAction {
        switch name {
        case .log: .log(path: "actions.ndjson")
        case .run: .run(arguments: ["./lamp.sh", "on"], timeoutSeconds: 12)
        case .remind: .remind(message: "Buy milk", channel: .mqtt(topic: "phone/remind"))
        case .post: .post(PostAction(WebhookTarget(url: "https://example.org/hook", text: true)))
        }
    }

    /// The fields each kind writes beside the ones every action has.
    static let payloadFields: [RuleAction.Name: Set<String>] = [
        .log: ["path"], .run: ["arguments", "timeoutSeconds"], .remind: ["channel"], .post: ["target"],
    ]

    @Test func everyKindIsListedOnceInTheOrderThatGivesActionsTheirIds() {
        #expect(ActionKindList.all.map { $0.name.rawValue } == ["log", "run", "post", "remind"])
        #expect(Set(ActionKindList.all.map { $0.name }) == Set(RuleAction.Name.allCases))
    }

    @Test(arguments: RuleAction.Name.allCases)
    func everyKindSurvivesTheOutboxPayload(_ name: RuleAction.Name) throws {
        let kind = Self.sample(name)
        #expect(kind.name == name)
        let action = FiredAction(
            id: "e/0", eventId: "e", rule: "r", kind: kind, transition: .enter, place: "home",
            date: Date(timeIntervalSince1970: 1_700_000_000), latitude: 51.5, longitude: -0.12, accuracy: 10,
            device: "phone", message: "Buy milk", commute: nil)
        let data = try EngineJSON.encoder().encode(action)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let common: Set<String> = [
            "id", "eventId", "rule", "action", "transition", "place", "date", "latitude", "longitude",
            "accuracy", "device", "message",
        ]
        #expect(Set(object.keys) == common.union(Self.payloadFields[name] ?? []))
        #expect(object["action"] as? String == name.rawValue)
        #expect(try EngineJSON.decoder().decode(FiredAction.self, from: data) == action)
    }

    @Test func aRuleFiresItsActionsInReadingOrderWhateverOrderTheFileWritesThem() throws {
        let file = try rules(
            twoPlaces + """
                rules:
                  - name: all
                    on: enter work
                    remind: Buy milk
                    post: https://example.org/hook
                    run: [./lamp.sh]
                    log: out.ndjson

                """)
        var state = RuleState()
        let output = RuleEvaluator(rules: file).handle(
            Occurrence(
                kind: .enter, place: "work", date: try instant("2026-03-03T08:25:00Z"), device: "phone"),
            state: &state)
        #expect(output.actions.map(\.kind.name) == [.log, .run, .post, .remind])
        #expect(
            output.actions.map { $0.id.split(separator: "/").last.map(String.init) } == ["0", "1", "2", "3"])
        // The reminder's text is every action's message.
        #expect(output.actions.allSatisfy { $0.message == "Buy milk" })
    }

    @Test func aRepeatingReminderFiresWithoutItsRepetition() throws {
        let file = try rules(
            twoPlaces + "rules:\n  - { name: milk, on: enter work, remind: Buy milk, repeat: true }\n")
        var state = RuleState()
        let output = RuleEvaluator(rules: file).handle(
            Occurrence(
                kind: .enter, place: "work", date: try instant("2026-03-03T08:25:00Z"), device: "phone"),
            state: &state)
        #expect(file.rules[0].actions == [.remind(message: "Buy milk", repeats: true)])
        #expect(output.actions.map(\.kind) == [.remind(message: "Buy milk")])
    }
}
