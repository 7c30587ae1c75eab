import Foundation
import Testing

@testable import GeofenceRules

@Suite struct TransitionTests {
    /// The names stored in the event and outbox JSON, the store's kind columns and
    /// `GEOFENCE_TRANSITION`: changing one would orphan stored data.
    @Test func transitionNamesAreTheStoredOnes() {
        #expect(
            Transition.allCases.map(\.rawValue) == [
                "enter", "exit", "determined", "dwell", "conditionLimitExceeded", "visit-start", "visit-end",
                "commute", "commute-abandoned", "started", "stopped", "rules-reloaded", "input-failed",
                "input-paused", "input-resumed",
            ])
    }

    @Test func everyTransitionReadsBackFromItsName() {
        for transition in Transition.allCases {
            #expect(Transition(rawValue: transition.rawValue) == transition)
        }
        #expect(Transition(rawValue: "visit_start") == nil)
    }

    @Test func aFiredActionKeepsItsJSONShape() throws {
        let action = FiredAction(
            id: "e/0", eventId: "e", rule: "r", kind: .run(arguments: ["a"], timeoutSeconds: 5),
            transition: .engine(.inputPaused), place: nil, date: Date(timeIntervalSince1970: 0),
            latitude: nil,
            longitude: nil, accuracy: nil, device: "engine", message: nil, commute: nil)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(action), as: UTF8.self)
        #expect(json.contains(#""action":"run""#))
        #expect(json.contains(#""transition":"input-paused""#))
        #expect(try JSONDecoder().decode(FiredAction.self, from: Data(json.utf8)) == action)
    }

    @Test func anUnknownTransitionInAStoredActionIsAnError() throws {
        let json =
            #"{"id":"e/0","eventId":"e","rule":"r","action":"log","transition":"teleport","date":0,"device":"d"}"#
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(FiredAction.self, from: Data(json.utf8))
        }
    }

    /// Only actions that record hear of an abandoned commute; the compiler makes a new action
    /// kind choose.
    @Test func onlyLogActionsHearAbandonedCommutes() {
        #expect(RuleAction.log(path: nil).hearsAbandonedCommutes)
        #expect(!RuleAction.run(arguments: ["x"], timeoutSeconds: 1).hearsAbandonedCommutes)
        #expect(!RuleAction.remind(message: "m", repeats: false).hearsAbandonedCommutes)
    }
}
