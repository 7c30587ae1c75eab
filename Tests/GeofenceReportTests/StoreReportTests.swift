import Foundation
import Geofence
import GeofenceInput
import GeofenceReport
import GeofenceRules
import GeofenceRuntime
import Testing
import GeofenceSimulation

/// `geofence report --state DIR`: what a run stored, with each hook's outcome.
@Suite struct StoreReportTests {
    /// The synthetic day's places, with hooks on arriving at and leaving work.
    static let rulesText = """
        timezone: Europe/London
        places:
          home:  { center: [51.5007, -0.1246], radius: 150 }
          work:  { center: [51.500678, -0.052595], radius: 150 }
          lunch: { center: [51.503374, -0.052591], radius: 150 }
          gym:   { center: [51.514174, -0.081384], radius: 150 }
        rules:
          - name: at work
            on: enter work
            run: [/bin/true]
          - name: off work
            on: exit work
            run: [/bin/true]
          - name: morning commute
            commute: { from: home, to: work, between: ["06:00", "11:00"], max: 2h }
            log: true
        """

    @Test func storeReportShowsEventsCommutesAndHookOutcomes() throws {
        let scratch = try ScratchDirectory()
        let rulesPath = scratch.file("rules.yaml")
        try Self.rulesText.write(toFile: rulesPath, atomically: true, encoding: .utf8)
        let rules = try RulesLoader.load(path: rulesPath).get()
        var pipeline = Pipeline(rules: rules)
        var step = Step()
        let encoder = EngineJSON.encoder()
        for fix in SyntheticDay().fixes() {
            let output = pipeline.process(fix, arrivedAt: nil)
            for event in output.placeEvents {
                step.events.append(
                    StoredEvent(
                        id: event.id, device: event.device, kind: event.transition.rawValue,
                        place: event.place,
                        date: event.date, confirmedAt: event.confirmedAt,
                        json: try EngineJSON.line("event", event)))
            }
            for commute in output.commutes {
                step.commutes.append(
                    StoredCommute(
                        id: commute.id, device: commute.device, rule: commute.rule, fromPlace: commute.from,
                        toPlace: commute.to, start: commute.start, end: commute.end,
                        durationSeconds: commute.durationSeconds, status: commute.status.rawValue,
                        json: try EngineJSON.line("commute", commute)))
            }
            for action in output.actions {
                let kind = if case .run = action.kind { "run" } else { "log" }
                step.actions.append(
                    OutboxAction(
                        id: action.id, kind: kind,
                        payloadJSON: String(decoding: try encoder.encode(action), as: UTF8.self),
                        createdAt: action.date))
            }
        }
        let state = scratch.file("state")
        let store = try Store(directory: state)
        try store.commit(step)
        let hooks = step.actions.filter { $0.kind == "run" }
        // Enter work twice and exit work twice: one succeeds, one fails, one times out, one is left.
        #expect(hooks.count == 4)
        let outcomes = [
            HookResult(termination: .exited(0), timedOut: false, durationSeconds: 0.1),
            HookResult(termination: .exited(3), timedOut: false, durationSeconds: 0.1),
            HookResult(termination: .signaled(9), timedOut: true, durationSeconds: 30),
        ]
        for (hook, result) in zip(hooks, outcomes) {
            try store.markRunning(hook.id)
            try store.markDone(hook.id, outcome: result.outcome)
        }
        store.close()

        let report = try StoreReport.make(directory: state, rules: rules)
        #expect(report.summary.hooksRun == 3)
        #expect(report.summary.hooksFailed == 2)
        #expect(report.summary.hooksTimedOut == 1)
        #expect(report.summary.hooksNotRun == 1)
        #expect(!report.summary.hasFixes)
        #expect(report.commutes.count == 1)
        let actions = report.days.flatMap(\.actions)
        #expect(
            actions.filter { $0.kind == "run" }.map(\.outcome) == [.succeeded, .failed, .timedOut, .pending])
        #expect(report.days.flatMap(\.events).count == step.events.count)
        #expect(report.days.first?.satisfied["work"]?.count == 2)

        let page = ReportHTML.render(report)
        for event in step.events { #expect(page.contains("data-event=\"\(event.id)\"")) }
        #expect(page.contains("data-place=\"work\""))
        #expect(page.contains("<td class=timedOut>timed out</td>"))
        #expect(page.contains("the store keeps no fixes"))
    }

    @Test func aDirectoryWithoutAStoreIsAClearError() throws {
        let scratch = try ScratchDirectory()
        #expect(throws: StoreError.self) { try StoreReport.make(directory: scratch.path, rules: nil) }
    }
}
