import Foundation
import Synchronization

/// A flag that tells a reader waiting for input to stop, set from any thread.
///
/// A follower blocks its thread between polls; it checks the flag every few tens of milliseconds,
/// so a cancelled reader returns promptly without being interrupted by a signal.
public final class InputCancellation: Sendable {
    private let flag = Atomic<Bool>(false)

    /// Makes a flag that is not set.
    public init() {}

    /// Asks the reader to stop; it finishes the call it is in and returns `nil` from then on.
    public func cancel() { flag.store(true, ordering: .releasing) }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { flag.load(ordering: .acquiring) }

    /// Sleeps for `seconds`, waking early if cancelled.
    func sleep(seconds: Double) {
        var remaining = max(0, seconds)
        while remaining > 0, !isCancelled {
            let slice = min(remaining, 0.02)
            usleep(UInt32(slice * 1_000_000))
            remaining -= slice
        }
    }
}
