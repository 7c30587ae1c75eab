import Foundation

/// The promise a run gives a waiting HTTP request: resolved once the lines it carried are
/// committed to the store, or cannot be.
///
/// The request's thread waits on it; the run resolves it after the transaction that holds the
/// lines' effects (or when it stops before that). Resolving twice keeps the first answer.
final class CommitTicket: Sendable {
    private let answer = Locked<HTTPReceiver.Delivery?>(nil)
    private let signal = DispatchSemaphore(value: 0)

    /// Makes an unresolved ticket.
    init() {}

    /// Gives the answer and wakes the waiting request.
    func resolve(_ delivery: HTTPReceiver.Delivery) {
        let first = answer.withLock { current in
            guard current == nil else { return false }
            current = delivery
            return true
        }
        if first { signal.signal() }
    }

    /// Waits up to `seconds` for the answer; without one, the post counts as not committed (the
    /// phone keeps it and posts it again).
    func wait(seconds: Double) -> HTTPReceiver.Delivery {
        if signal.wait(timeout: .now() + seconds) == .timedOut {
            resolve(.notCommitted("not committed within \(Int(seconds)) s; post again later"))
        }
        return answer.withLock { $0 } ?? .notCommitted("not committed")
    }
}
