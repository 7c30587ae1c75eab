import Foundation

/// Delivers `post:` actions from the outbox: each attempt is counted in the store, a failure
/// worth retrying (no answer, a timeout, 429, a 5xx) is tried again after a growing delay, and
/// the action is marked done when it succeeded or failed for good.
///
/// An action waiting for its next attempt stays unfinished in the outbox: if the run stops
/// meanwhile, the next start sends it again, with the same `Idempotency-Key`.
final class WebhookSender: Sendable {
    /// How often and how patiently a post is tried.
    struct Policy: Sendable {
        /// Attempts in one run before the action is marked failed.
        var attempts = 6
        /// The delay before the second attempt; each later one waits twice as long.
        var firstDelaySeconds: Double = 2
        /// The longest delay between attempts.
        var longestDelaySeconds: Double = 300
        /// Posts at once.
        var concurrent = 4

        /// The delay after the `attempt`th failure.
        func delay(after attempt: Int) -> Double {
            min(longestDelaySeconds, firstDelaySeconds * pow(2, Double(max(0, attempt - 1))))
        }
    }

    /// Where the sender reports; the store is where it records.
    typealias Report = @Sendable (LogEntry.Level, String) -> Void

    private let store: Store
    private let policy: Policy
    private let report: Report
    private let post: @Sendable (WebhookClient.Request) -> WebhookClient.Result
    private let slots: DispatchSemaphore
    private let state = Locked(State())

    private struct State {
        var inProgress = 0
        var waiting = 0
        var stopped = false
    }

    /// Makes a sender that records in `store`; `post` is libcurl's by default.
    init(
        store: Store, policy: Policy = Policy(), report: @escaping Report,
        post: @escaping @Sendable (WebhookClient.Request) -> WebhookClient.Result = WebhookClient.post
    ) {
        self.store = store
        self.policy = policy
        self.report = report
        self.post = post
        slots = DispatchSemaphore(value: max(1, policy.concurrent))
    }

    /// Sends the outbox action `id` as `request`, retrying as the policy says; returns at once.
    func send(id: String, request: WebhookClient.Request) {
        attempt(id: id, request: request, number: 1)
    }

    private func attempt(id: String, request: WebhookClient.Request, number: Int) {
        let accepted = state.withLock { state in
            guard !state.stopped else { return false }
            state.inProgress += 1
            return true
        }
        guard accepted else { return }
        DispatchQueue.global().async { [self] in
            slots.wait()
            defer { slots.signal() }
            do {
                try store.markRunning(id)
            } catch {
                report(.error, "cannot mark post \(id) running: \(error)")
            }
            let result = post(request)
            let target = WebhookClient.redacted(request.url)
            if result.succeeded {
                report(.info, "post \(id) to \(target): \(result.summary)")
                finish(id, ActionOutcome(succeeded: true, message: result.summary))
            } else if result.isWorthRetrying, number < policy.attempts {
                let delay = policy.delay(after: number)
                report(
                    .warning,
                    "post \(id) to \(target): \(result.summary); attempt \(number) of \(policy.attempts), trying again in \(Int(delay.rounded())) s"
                )
                schedule(id: id, request: request, number: number + 1, after: delay)
            } else {
                let why = result.isWorthRetrying ? "after \(number) attempts" : "not retried"
                report(.warning, "post \(id) to \(target): \(result.summary); failed (\(why))")
                finish(id, ActionOutcome(succeeded: false, message: "\(result.summary) (\(why))"))
            }
            state.withLock { $0.inProgress -= 1 }
        }
    }

    private func schedule(id: String, request: WebhookClient.Request, number: Int, after delay: Double) {
        state.withLock { $0.waiting += 1 }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in
            state.withLock { $0.waiting -= 1 }
            attempt(id: id, request: request, number: number)
        }
    }

    private func finish(_ id: String, _ outcome: ActionOutcome) {
        do {
            try store.markDone(id, outcome: outcome)
        } catch {
            report(.error, "cannot mark post \(id) done: \(error)")
        }
    }

    /// Refuses further attempts and waits up to `seconds` for the posts under way (each bounded
    /// by its timeout); returns how many posts were left for the next start (waiting for a retry
    /// or still under way).
    func stop(waitingSeconds seconds: Double) -> Int {
        state.withLock { $0.stopped = true }
        let deadline = Date().addingTimeInterval(seconds)
        while state.withLock({ $0.inProgress }) > 0, Date() < deadline { usleep(20_000) }
        return state.withLock { $0.inProgress + $0.waiting }
    }

    /// Waits until no post is under way or waiting for a retry, or `seconds` passed; returns
    /// whether all are finished.
    func waitUntilIdle(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while state.withLock({ $0.inProgress + $0.waiting }) > 0 {
            if Date() >= deadline { return false }
            usleep(20_000)
        }
        return true
    }
}
