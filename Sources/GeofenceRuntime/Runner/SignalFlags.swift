/// What signals asked of the run (stop, reload), set from a signal handler's queue and read by the
/// engine's loop: the only state the two share.
final class SignalFlags: Sendable {
    /// A snapshot of the flags.
    struct Requests {
        var stop = false
        var reload = false
    }

    private let requests = Locked(Requests())

    /// Asks the run to stop (SIGTERM, SIGINT, or a failure that must end it).
    func stop() { requests.withLock { $0.stop = true } }

    /// Asks the run to reload its rules (SIGHUP).
    func reload() { requests.withLock { $0.reload = true } }

    /// The requests, clearing the reload request (it is handled once); a stop stays requested.
    func take() -> Requests {
        requests.withLock { requests in
            defer { requests.reload = false }
            return requests
        }
    }

    /// Whether a stop was requested.
    var stopRequested: Bool { requests.withLock { $0.stop } }
}
