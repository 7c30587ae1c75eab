import Foundation

/// A value shared between threads, reached only while holding its lock.
///
/// The runtime's shared state uses this rather than the standard library's
/// `Synchronization.Mutex`. On Linux that mutex takes a contended lock in the kernel (a
/// priority-inheritance futex) from inside the standard library, which is not built with
/// ThreadSanitizer's instrumentation: TSan never sees the lock handed from one thread to the
/// next, and reports every contended critical section as a data race (it did so four times on
/// ``HookRunner``'s queue, both sides inside the same `withLock`; a twenty-line program of four
/// threads appending to one `Locked<[Int]>` gets five reports). `NSLock` is a pthread mutex, whose
/// lock and unlock TSan intercepts, so CI's ThreadSanitizer pass reports only races that are real.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// Guards `value`.
    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` on the value while holding the lock, and returns what it returns.
    func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
