import Foundation
import TestSupport
import Testing

@testable import GeofenceRuntime

/// Collects `count` completions from `runner`.
func collect(_ count: Int, from runner: HookRunner) async -> [HookCompletion] {
    var completions: [HookCompletion] = []
    for await completion in runner.completions {
        completions.append(completion)
        if completions.count == count { break }
    }
    return completions
}

/// Waits, up to a hang guard, until `condition` holds; returns whether it did.
func eventually(guardSeconds: Double = 20, _ condition: () -> Bool) async -> Bool {
    let giveUp = Date() + guardSeconds
    while Date() < giveUp {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}

@Suite struct HookRunnerTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    private func entries(_ name: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory.file(name))) ?? []
    }

    @Test func abandonStopsRunningHooksAndDropsWaitingOnes() async throws {
        let script = try directory.script(
            "slow.sh",
            """
            echo started >> "$1/started"
            sleep 600
            echo finished >> "$1/finished"
            """)
        let runner = HookRunner(configuration: HookRunner.Configuration(maxConcurrent: 1, graceSeconds: 1))
        for index in 0..<3 {
            #expect(
                runner.submit(
                    Hook(id: "h\(index)", arguments: [script, directory.path], timeoutSeconds: 600)))
        }
        #expect(await eventually { FileManager.default.fileExists(atPath: directory.file("started")) })
        let dropped = runner.abandon()
        #expect(dropped.map(\.id) == ["h1", "h2"])
        #expect(!runner.submit(Hook(id: "late", arguments: [script, directory.path])))
        let completions = await collect(1, from: runner)
        #expect(completions.map(\.hook.id) == ["h0"])
        #expect(completions.first?.result.abandoned == true)
        #expect(completions.first?.result.succeeded == false)
        #expect(completions.first?.result.timedOut == false)
        #expect(!FileManager.default.fileExists(atPath: directory.file("finished")))
    }

    @Test func noMoreThanTheSlotsRunAtOnce() async throws {
        try FileManager.default.createDirectory(
            atPath: directory.file("running"), withIntermediateDirectories: true)
        // A hook's marker exists from its start until just before it exits, so at any moment the
        // number of markers is at most the number of live hooks.
        let script = try directory.script(
            "slot.sh",
            """
            touch "$1/running/$2"
            ls "$1/running" | wc -l >> "$1/counts"
            sleep 0.3
            rm "$1/running/$2"
            """)
        let runner = HookRunner(configuration: HookRunner.Configuration(maxConcurrent: 2))
        for index in 0..<10 {
            #expect(runner.submit(Hook(id: "h\(index)", arguments: [script, directory.path, "h\(index)"])))
        }
        let completions = await collect(10, from: runner)
        #expect(completions.allSatisfy { $0.result.succeeded })
        #expect(Set(completions.map(\.hook.id)) == Set((0..<10).map { "h\($0)" }))
        let counts = try String(contentsOfFile: directory.file("counts"), encoding: .utf8)
            .split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        #expect(counts.count == 10)
        #expect(counts.allSatisfy { (1...2).contains($0) }, "counts: \(counts)")
    }

    @Test func aBurstQueuesBehindHangingHooksAndSubmitNeverWaits() async throws {
        for name in ["started"] {
            try FileManager.default.createDirectory(
                atPath: directory.file(name), withIntermediateDirectories: true)
        }
        let script = try directory.script(
            "gate.sh",
            """
            touch "$1/started/$2"
            while [ ! -e "$1/gate" ]; do sleep 0.05; done
            """)
        let runner = HookRunner(configuration: HookRunner.Configuration(maxConcurrent: 2))
        for index in 0..<6 {
            // Returns at once although both slots will be taken by hooks that wait for the gate.
            runner.submit(
                // A timeout far beyond the test's own time, even under a sanitizer on a busy machine:
                // the gate, not the timeout, ends these hooks.
                Hook(id: "h\(index)", arguments: [script, directory.path, "h\(index)"], timeoutSeconds: 600))
        }
        #expect(await eventually { entries("started").count >= 2 })
        #expect(runner.runningCount == 2)
        #expect(runner.queuedCount == 4)
        #expect(Set(entries("started")) == ["h0", "h1"], "the first two submitted start first")

        #expect(FileManager.default.createFile(atPath: directory.file("gate"), contents: nil))
        let completions = await collect(6, from: runner)
        #expect(completions.allSatisfy { $0.result.succeeded }, "\(completions.map(\.result.summary))")
        #expect(Set(entries("started")) == Set((0..<6).map { "h\($0)" }))
        #expect(runner.queuedCount == 0)
    }

    @Test func withOneSlotHooksRunInTheOrderSubmitted() async throws {
        let script = try directory.script("order.sh", #"echo "$1" >> "$2""#)
        let runner = HookRunner(configuration: HookRunner.Configuration(maxConcurrent: 1))
        let ids = (0..<8).map { "h\($0)" }
        for id in ids { runner.submit(Hook(id: id, arguments: [script, id, directory.file("order")])) }
        let completions = await collect(8, from: runner)
        #expect(completions.map(\.hook.id) == ids)
        let order = try String(contentsOfFile: directory.file("order"), encoding: .utf8).split(
            separator: "\n")
        #expect(order.map(String.init) == ids)
    }

    @Test func aHangingHookDoesNotHoldUpTheOthers() async throws {
        let runner = HookRunner(configuration: HookRunner.Configuration(maxConcurrent: 2, graceSeconds: 0.2))
        // Its timeout is far beyond the test's own time even under a sanitizer; abandon() ends it.
        runner.submit(Hook(id: "hang", arguments: ["sleep", "1000"], timeoutSeconds: 600))
        for index in 0..<3 { runner.submit(Hook(id: "quick\(index)", arguments: ["true"])) }
        // The three quick ones finish through the one free slot while the other hangs.
        let completions = await collect(3, from: runner)
        #expect(completions.map(\.hook.id) == ["quick0", "quick1", "quick2"])
        #expect(runner.runningCount == 1)
        // Stop the hanging one with its group and wait for it, so no `sleep 1000` outlives the test.
        runner.abandon()
        let stopped = await collect(1, from: runner)
        #expect(stopped.map(\.hook.id) == ["hang"])
    }

    @Test func finishEndsTheCompletionsOnceTheQueueIsEmptyAndRefusesMore() async throws {
        let runner = HookRunner(configuration: HookRunner.Configuration(maxConcurrent: 2))
        for index in 0..<3 { runner.submit(Hook(id: "h\(index)", arguments: ["true"])) }
        runner.finish()
        #expect(!runner.submit(Hook(id: "late", arguments: ["true"])))
        var ids: [String] = []
        for await completion in runner.completions { ids.append(completion.hook.id) }
        #expect(Set(ids) == ["h0", "h1", "h2"])
    }

    @Test func anOutboxActionRunsAndIsMarkedDoneWithItsResult() async throws {
        let store = try Store(directory: directory.file("state"))
        let fields: [HookEnvironment.Field: String] = [.eventID: "ev-1", .place: "home"]
        try store.commit(
            Step(actions: [OutboxAction(id: "ev-1", kind: "hook", payloadJSON: "{}", createdAt: Date())]))
        let runner = HookRunner()
        for action in try store.pendingActions() {
            try store.markRunning(action.id)
            runner.submit(
                Hook(
                    id: action.id, arguments: ["sh", "-c", #"echo "ran $GEOFENCE_EVENT_ID""#],
                    environment: HookEnvironment.variables(fields)))
        }
        for completion in await collect(1, from: runner) {
            try store.markDone(completion.hook.id, outcome: completion.result.outcome)
        }
        #expect(try store.pendingActions().isEmpty)
        let stored = try #require(try store.action(id: "ev-1"))
        #expect(stored.status == .done)
        let details =
            try JSONSerialization.jsonObject(with: Data((stored.resultJSON ?? "").utf8)) as? [String: Any]
        #expect(details?["stdout"] as? String == "ran ev-1\n")
        #expect(try store.log().last?.actionID == "ev-1")
    }
}
