import Foundation

/// An asynchronous sequence of what a blocking reader produces, read on a thread of its own.
///
/// Followers wait with short sleeps and standard input waits in `poll`; either would hold a thread
/// of Swift's cooperative pool, so each sequence gets a dedicated thread, started by the first
/// call to `next()`. The thread reads one element per request, which gives a slow consumer
/// back-pressure for free. The reader itself is made on that thread and never leaves it.
struct ThreadedReader<Element: Sendable>: AsyncSequence, Sendable {
    /// Makes the reader on the reading thread; the reader returns `nil` at its end.
    let makeReader: @Sendable (InputCancellation) -> () throws(InputFileError) -> Element?

    init(_ makeReader: @escaping @Sendable (InputCancellation) -> () throws(InputFileError) -> Element?) {
        self.makeReader = makeReader
    }

    /// Starts nothing yet; the thread starts with the iterator's first `next()`.
    func makeAsyncIterator() -> Iterator { Iterator(channel: Channel(makeReader: makeReader)) }

    /// Hands each request to the reading thread and waits, without blocking, for its answer.
    final class Iterator: AsyncIteratorProtocol {
        let channel: Channel

        init(channel: Channel) { self.channel = channel }

        // Dropping the iterator stops the thread, which would otherwise wait for requests forever.
        deinit { channel.stop() }

        /// The next element, or `nil` at the end, once cancelled, or after an error was thrown.
        func next() async throws -> Element? {
            let channel = self.channel
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    channel.request(continuation)
                }
            } onCancel: {
                channel.cancellation.cancel()
            }
        }
    }

    /// The meeting point of the consumer's requests and the reading thread.
    final class Channel: Sendable {
        private struct State {
            var waiting: CheckedContinuation<Element?, any Error>?
            var started = false
            var finished = false
        }

        let cancellation = InputCancellation()
        private let makeReader: @Sendable (InputCancellation) -> () throws(InputFileError) -> Element?
        private let state = Locked(State())
        private let requests = DispatchSemaphore(value: 0)

        init(makeReader: @escaping @Sendable (InputCancellation) -> () throws(InputFileError) -> Element?) {
            self.makeReader = makeReader
        }

        func request(_ continuation: CheckedContinuation<Element?, any Error>) {
            let start: Bool? = state.withLock { state in
                if state.finished { return nil }
                state.waiting = continuation
                defer { state.started = true }
                return !state.started
            }
            guard let start else {
                continuation.resume(returning: nil)
                return
            }
            if start {
                let thread = Thread { [self] in run() }
                thread.name = "geofence-input"
                thread.start()
            }
            requests.signal()
        }

        func stop() {
            cancellation.cancel()
            requests.signal()
        }

        private func run() {
            let reader = makeReader(cancellation)
            while true {
                requests.wait()
                guard
                    let continuation = state.withLock({ state in
                        defer { state.waiting = nil }; return state.waiting
                    })
                else {
                    if cancellation.isCancelled { break }
                    continue
                }
                do {
                    let element = try reader()
                    if element == nil { state.withLock { $0.finished = true } }
                    continuation.resume(returning: element)
                    if element == nil { break }
                } catch {
                    state.withLock { $0.finished = true }
                    continuation.resume(throwing: error)
                    break
                }
            }
            // A request that raced with the end is answered rather than left waiting forever.
            let late = state.withLock { state in
                state.finished = true
                defer { state.waiting = nil }
                return state.waiting
            }
            late?.resume(returning: nil)
        }
    }
}
