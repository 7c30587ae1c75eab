import Foundation
import Geofence
import Testing

@testable import GeofenceRules

/// Parses rules text that is known to be valid, failing the test otherwise.
func rules(_ yaml: String) throws -> RulesFile {
    switch RulesLoader.parse(yaml, file: "test.yaml", baseDirectory: URL(fileURLWithPath: "/")) {
    case .success(let file): return file
    case .failure(let error): throw error
    }
}

/// A UTC instant from an ISO 8601 string with a zone.
func instant(_ text: String) throws -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else { throw CocoaError(.formatting) }
    return date
}

let twoPlaces = """
    timezone: Europe/London
    places:
      home: { center: [51.5007, -0.1246], radius: 150 }
      work: { center: [51.500678, -0.052595], radius: 150 }

    """

@Suite struct RuleEvaluatorTests {
    func occurrence(_ kind: Occurrence.Kind, _ place: String?, _ date: String) throws -> Occurrence {
        Occurrence(kind: kind, place: place, date: try instant(date), device: "phone")
    }

    @Test func aReminderFiresOnceAndThenIsDone() throws {
        let evaluator = RuleEvaluator(
            rules: try rules(twoPlaces + "rules:\n  - { name: milk, on: enter work, remind: Buy milk }\n"))
        var state = RuleState()
        let first = evaluator.handle(try occurrence(.enter, "work", "2026-03-03T08:25:00Z"), state: &state)
        #expect(first.actions.map(\.kind) == [.remind(message: "Buy milk")])
        #expect(state.reminderDelivered("milk"))
        let second = evaluator.handle(try occurrence(.enter, "work", "2026-03-04T08:25:00Z"), state: &state)
        #expect(second.actions.isEmpty)
    }

    @Test func aRepeatingReminderFiresEveryTime() throws {
        let evaluator = RuleEvaluator(
            rules: try rules(
                twoPlaces + "rules:\n  - { name: towel, on: enter work, remind: Towel, repeat: true }\n"))
        var state = RuleState()
        for day in ["03", "04", "05"] {
            let output = evaluator.handle(
                try occurrence(.enter, "work", "2026-03-\(day)T08:25:00Z"), state: &state)
            #expect(output.actions.count == 1)
        }
    }

    @Test func aCooldownHolds() throws {
        let evaluator = RuleEvaluator(
            rules: try rules(
                twoPlaces + "rules:\n  - { name: lights, on: enter home, cooldown: 30m, log: true }\n"))
        var state = RuleState()
        let fired = try [
            "2026-03-03T19:00:00Z", "2026-03-03T19:10:00Z", "2026-03-03T19:29:59Z", "2026-03-03T19:30:00Z",
        ]
        .map { evaluator.handle(try occurrence(.enter, "home", $0), state: &state).actions.count }
        #expect(fired == [1, 0, 0, 1])
    }

    /// Europe/London goes from GMT to BST at 01:00 UTC on Sunday 29 March 2026. The window is
    /// local time and crosses midnight; the day guard is the local day.
    @Test(arguments: [
        ("2026-03-28T23:30:00Z", false),  // Saturday 23:30 GMT: in the window, wrong day
        ("2026-03-29T00:30:00Z", true),  // Sunday 00:30 GMT
        ("2026-03-29T05:30:00Z", false),  // Sunday 06:30 BST: past the window (05:30 UTC is not)
        ("2026-03-29T20:30:00Z", false),  // Sunday 21:30 BST
        ("2026-03-29T21:30:00Z", true),  // Sunday 22:30 BST (21:30 UTC would be outside)
        ("2026-03-30T00:30:00Z", false),  // Monday 01:30 BST
    ])
    func aWeekdayGuardAndAWindowAcrossMidnightAreLocalTimeAcrossADSTChange(date: String, fires: Bool) throws {
        let evaluator = RuleEvaluator(
            rules: try rules(
                twoPlaces
                    + "rules:\n  - { name: night, on: enter home, when: { days: [sun], between: [\"22:00\", \"06:00\"] }, log: true }\n"
            ))
        var state = RuleState()
        let output = evaluator.handle(try occurrence(.enter, "home", date), state: &state)
        #expect(output.actions.isEmpty == !fires)
    }

    @Test func onceADayIsOncePerLocalDay() throws {
        let evaluator = RuleEvaluator(
            rules: try rules(
                twoPlaces
                    + "rules:\n  - { name: hello, on: enter home, when: { once_a_day: true }, log: true }\n"))
        var state = RuleState()
        let fired = try ["2026-06-01T08:00:00Z", "2026-06-01T22:30:00Z", "2026-06-01T23:30:00Z"]
            .map { evaluator.handle(try occurrence(.enter, "home", $0), state: &state).actions.count }
        // 23:30 UTC is 00:30 BST on 2 June: a new local day.
        #expect(fired == [1, 0, 1])
    }

    static let commuteRules =
        twoPlaces + """
            rules:
              - name: to work
                commute: { from: home, to: work, between: ["06:00", "11:00"], max: 2h }
                log: commutes.ndjson
                run: [notify, commute]

            """

    @Test func aCommuteRunsFromLeavingToArriving() throws {
        let evaluator = RuleEvaluator(rules: try rules(Self.commuteRules))
        var state = RuleState()
        #expect(
            evaluator.handle(try occurrence(.exit, "home", "2026-03-03T08:00:40Z"), state: &state).commutes
                .isEmpty)
        let output = evaluator.handle(try occurrence(.enter, "work", "2026-03-03T08:24:10Z"), state: &state)
        let commute = try #require(output.commutes.first)
        #expect(commute.status == .completed)
        #expect(commute.start == (try instant("2026-03-03T08:00:40Z")))
        #expect(abs((commute.durationSeconds ?? 0) - 1410) < 0.001)
        #expect(output.actions.map(\.transition) == [.commute, .commute])
        #expect(output.actions.allSatisfy { $0.commute == commute })
    }

    @Test func aTripOutAndBackIsAnAbandonedCommuteNotACommute() throws {
        let evaluator = RuleEvaluator(rules: try rules(Self.commuteRules))
        var state = RuleState()
        _ = evaluator.handle(try occurrence(.exit, "home", "2026-03-03T08:00:00Z"), state: &state)
        let back = evaluator.handle(try occurrence(.enter, "home", "2026-03-03T08:20:00Z"), state: &state)
        let commute = try #require(back.commutes.first)
        #expect(commute.status == .abandoned)
        #expect(commute.end == nil)
        #expect(commute.reason == "came back to home first")
        // Only the log action hears of an abandoned commute; the hook does not run.
        #expect(back.actions.map(\.kind) == [.log(path: "commutes.ndjson")])
        // Arriving at work later is not the end of a commute that was abandoned.
        #expect(
            evaluator.handle(try occurrence(.enter, "work", "2026-03-03T09:00:00Z"), state: &state).commutes
                .isEmpty)
    }

    @Test func aCommuteLongerThanItsMaximumIsAbandoned() throws {
        let evaluator = RuleEvaluator(rules: try rules(Self.commuteRules))
        var state = RuleState()
        _ = evaluator.handle(try occurrence(.exit, "home", "2026-03-03T08:00:00Z"), state: &state)
        let later = evaluator.handle(try occurrence(.tick, nil, "2026-03-03T10:00:01Z"), state: &state)
        #expect(later.commutes.map(\.status) == [.abandoned])
        #expect(later.commutes.first?.reason == "took longer than 2h")
    }

    /// Several commutes under way at once each end at their own limit, in the rules' order, and
    /// a rule that is not a commute is passed over.
    @Test func commutesUnderWayTogetherAreAbandonedAtTheirOwnLimitsInRuleOrder() throws {
        let evaluator = RuleEvaluator(
            rules: try rules(
                twoPlaces + """
                    rules:
                      - { name: long way, commute: { from: home, to: work, max: 3h }, log: commutes.ndjson }
                      - { name: left home, on: exit home, log: true }
                      - { name: short way, commute: { from: home, to: work, max: 1h }, log: commutes.ndjson }
                      - { name: quick way, commute: { from: home, to: work, max: 2h }, log: commutes.ndjson }

                    """))
        var state = RuleState()
        _ = evaluator.handle(try occurrence(.exit, "home", "2026-03-03T08:00:00Z"), state: &state)
        #expect(state.openCommutes.count == 3)
        let first = evaluator.handle(try occurrence(.tick, nil, "2026-03-03T09:00:01Z"), state: &state)
        #expect(first.commutes.map(\.rule) == ["short way"])
        #expect(first.commutes.first?.reason == "took longer than 1h")
        #expect(Set(state.openCommutes.keys) == ["long way", "quick way"])
        let both = evaluator.handle(try occurrence(.tick, nil, "2026-03-03T11:00:01Z"), state: &state)
        #expect(both.commutes.map(\.rule) == ["long way", "quick way"])
        #expect(both.commutes.map(\.reason) == ["took longer than 3h", "took longer than 2h"])
        #expect(state.openCommutes.isEmpty)
    }

    @Test func aCommuteStartingOutsideItsWindowIsNotCounted() throws {
        let evaluator = RuleEvaluator(rules: try rules(Self.commuteRules))
        var state = RuleState()
        _ = evaluator.handle(try occurrence(.exit, "home", "2026-03-03T12:00:00Z"), state: &state)
        #expect(
            evaluator.handle(try occurrence(.enter, "work", "2026-03-03T12:30:00Z"), state: &state).commutes
                .isEmpty)
    }

    @Test func dwellFiresOncePerStayAtEntryPlusTheDuration() throws {
        let evaluator = RuleEvaluator(
            rules: try rules(
                twoPlaces + "rules:\n  - { name: settled, on: dwell home, after: 30m, log: true }\n"))
        var state = RuleState()
        _ = evaluator.handle(try occurrence(.enter, "home", "2026-03-03T19:10:00Z"), state: &state)
        #expect(
            evaluator.handle(try occurrence(.tick, nil, "2026-03-03T19:39:00Z"), state: &state).actions
                .isEmpty)
        let due = evaluator.handle(try occurrence(.tick, nil, "2026-03-03T19:41:00Z"), state: &state)
        #expect(due.actions.map(\.date) == [try instant("2026-03-03T19:40:00Z")])
        #expect(
            evaluator.handle(try occurrence(.tick, nil, "2026-03-03T21:00:00Z"), state: &state).actions
                .isEmpty)
        // Leaving and coming back starts a new stay.
        _ = evaluator.handle(try occurrence(.exit, "home", "2026-03-03T21:05:00Z"), state: &state)
        _ = evaluator.handle(try occurrence(.enter, "home", "2026-03-03T21:30:00Z"), state: &state)
        #expect(
            evaluator.handle(try occurrence(.tick, nil, "2026-03-03T22:01:00Z"), state: &state).actions.count
                == 1)
    }

    @Test func eventIdsAreStableAcrossRuns() throws {
        let evaluator = RuleEvaluator(
            rules: try rules(twoPlaces + "rules:\n  - { name: a, on: exit work, log: true, run: [x] }\n"))
        var first = RuleState(), second = RuleState()
        let a = evaluator.handle(try occurrence(.exit, "work", "2026-03-03T17:30:00Z"), state: &first)
        let b = evaluator.handle(try occurrence(.exit, "work", "2026-03-03T17:30:00Z"), state: &second)
        #expect(a.actions.map(\.id) == b.actions.map(\.id))
        #expect(Set(a.actions.map(\.eventId)).count == 1)
        #expect(Set(a.actions.map(\.id)).count == 2)
    }
}
