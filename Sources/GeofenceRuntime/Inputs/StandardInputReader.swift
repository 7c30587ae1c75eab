public import Foundation
public import struct GeofenceInput.InputLine
public import struct GeofenceInput.LineSplitter

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads lines from standard input (or any descriptor that is not a seekable file, such as a
/// pipe), the way ``FileFollower`` reads a file: complete lines as they arrive, the last one at
/// the end of the input even without a newline.
///
/// There is no position to resume: what a pipe delivered is gone once read. ``next()`` waits in
/// `poll` in slices of `pollInterval`, so cancelling it from another thread takes effect promptly;
/// use it from a thread of its own, or through ``lines(descriptor:maxLineBytes:)``.
public final class StandardInputReader {
    /// The descriptor read; it is not closed by the reader.
    public let descriptor: Int32
    /// Stops a reader blocked in ``next()`` from another thread.
    public let cancellation: InputCancellation
    private let pollInterval: Double
    private var splitter: LineSplitter
    private var chunk: [UInt8]
    private var ended = false

    /// Makes a reader of `descriptor` (standard input by default).
    ///
    /// - Parameter maxLineBytes: the longest line kept; longer ones are delivered as too long.
    public init(
        descriptor: Int32 = STDIN_FILENO, maxLineBytes: Int = 1 << 20, pollInterval: Double = 0.2,
        cancellation: InputCancellation = InputCancellation()
    ) {
        self.descriptor = descriptor
        self.cancellation = cancellation
        self.pollInterval = pollInterval.isFinite ? max(0.001, pollInterval) : 0.2
        splitter = LineSplitter(maxLineBytes: maxLineBytes)
        chunk = [UInt8](repeating: 0, count: 1 << 16)
    }

    /// Waits for and returns the next complete lines; `nil` at the end of the input or once cancelled.
    ///
    /// - Throws: ``InputFileError`` if reading fails.
    public func next() throws(InputFileError) -> [InputLine]? {
        while !ended, !cancellation.isCancelled {
            guard try waitForInput() else { continue }
            let count = chunk.withUnsafeMutableBytes { buffer in
                read(descriptor, buffer.baseAddress, buffer.count)
            }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw InputFileError(path: "stdin", operation: "read", code: errno)
            }
            if count == 0 {
                ended = true
                return splitter.finish().map { [$0] }
            }
            let lines = splitter.append(chunk[0..<count])
            if !lines.isEmpty { return lines }
        }
        return nil
    }

    /// Whether the descriptor has something to read (or has ended), after waiting up to one poll
    /// interval.
    private func waitForInput() throws(InputFileError) -> Bool {
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let result = poll(&request, 1, Int32(pollInterval * 1000))
        if result < 0 {
            if errno == EINTR { return false }
            throw InputFileError(path: "stdin", operation: "poll", code: errno)
        }
        // POLLHUP without POLLIN is the end of a pipe: the read then returns 0.
        return result > 0
    }

    /// The lines of `descriptor` as an asynchronous sequence of batches, read on a thread of its own.
    public static func lines(descriptor: Int32 = STDIN_FILENO, maxLineBytes: Int = 1 << 20)
        -> some AsyncSequence<[InputLine], any Error> & Sendable
    {
        ThreadedReader { cancellation in
            let reader = StandardInputReader(
                descriptor: descriptor, maxLineBytes: maxLineBytes, cancellation: cancellation)
            return { () throws(InputFileError) -> [InputLine]? in try reader.next() }
        }
    }
}
