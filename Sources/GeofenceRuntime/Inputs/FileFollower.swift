import Foundation
public import struct GeofenceInput.InputLine
public import struct GeofenceInput.LineSplitter

/// Reads a file line by line and, when following, goes on waiting for new lines like `tail -F`:
/// through rotation, truncation, the file going missing, and a restart.
///
/// ``next()`` blocks its thread until it has something to say: a batch of complete lines with the
/// position after them, or an ``Event``. It polls the file with `stat` every `pollInterval`
/// seconds while there is nothing new, so use it from a thread of its own (``updates(path:startingAt:follow:pollInterval:maxLineBytes:)``
/// does that and hands the results to a task), never from a task on Swift's cooperative pool.
///
/// # Lines
/// A line is delivered once its `\n` has been written; the bytes after the last newline wait,
/// because a writer may be half-way through a line. When not following, the last line is
/// delivered at the end of the file even without a newline. A `\r` before the newline is dropped,
/// bytes that are not UTF-8 become U+FFFD, and a line longer than `maxLineBytes` is delivered as a
/// line marked ``InputLine/isTooLong`` without its text.
///
/// # Rotation, truncation, a missing file
/// - Rotation (the file renamed and a new one created at the path, as logrotate does; or a
///   symbolic link at the path pointed at another file): the old file stays open and is read to
///   its end, and the follower switches to the new file, from its start, once the new file has its
///   first bytes. A writer that moves to the new file has finished with the old one, so waiting
///   for those bytes catches the lines it wrote to the old file after the rename. Reported as
///   ``Event/rotated(from:to:)``.
/// - Truncation (`copytruncate`: the same file, now shorter than the offset read): reading
///   restarts at 0, reported as ``Event/truncated(identity:atOffset:)``. Lines written between
///   logrotate's copy and its truncation are lost, and a file truncated and refilled past the
///   offset between two polls cannot be told from one that grew: both are limits of copytruncate.
/// - A missing path is reported once as ``Event/missing``, and the follower waits for it to come
///   back (meanwhile still reading the old file if one was open).
///
/// # Resuming
/// Given the position stored after the last committed line:
/// - if the file at the path is the same one and at least that long, reading continues at the
///   offset (``Event/resumed(_:)``);
/// - if it is the same file but shorter, it was truncated while geofence was down: reading starts
///   at 0 (``Event/truncated(identity:atOffset:)``);
/// - if it is another file, the old one was rotated while geofence was down. The follower looks for
///   the old file (same identity) in the path's directory, and in the directory of the file a
///   symbolic link at the path points to: `rules.rec.1`, `fixes.log-20260301`, or last month's
///   `2026-03.rec`. Found, its rest is read first (``Event/finishingPreviousFile(path:from:)``) and
///   then the new file from 0. Not found (deleted, or compressed into a new file), it says so
///   (``Event/previousFileNotFound(_:)``): lines appended to the old file after the stored offset
///   are lost, and the new file is read from 0.
///
/// If the old file was deleted while geofence was down and the file system gave its inode number
/// to the new file, the two cannot be told apart, and reading continues at the stored offset of
/// the new file; keeping rotated files for a while (logrotate's `rotate 1` or more) avoids that.
public final class FileFollower {
    /// Something that happened to the file, as opposed to lines read from it.
    public enum Event: Sendable, Equatable {
        /// Started reading the file with this identity from its beginning.
        case opened(identity: String)
        /// Continued the same file at a stored position.
        case resumed(FilePosition)
        /// On resuming, found the file the position belongs to under another name, and reading its
        /// rest before the file now at the path.
        case finishingPreviousFile(path: String, from: FilePosition)
        /// On resuming, the file the position belongs to is no longer there; whatever was appended
        /// to it after the position is lost.
        case previousFileNotFound(FilePosition)
        /// Finished the old file and switched to the new one, from its start.
        case rotated(from: String, to: String)
        /// The file became shorter than the offset read (or the stored offset): reading restarts at 0.
        case truncated(identity: String, atOffset: Int64)
        /// The path does not exist (any more); waiting for it to appear.
        case missing
    }

    /// What ``next()`` returns: lines, or an event.
    public enum Update: Sendable, Equatable {
        /// Complete lines in file order, and the position after the last of them: store it with
        /// whatever the lines produced, to resume after them.
        case lines([InputLine], FilePosition)
        /// Something that happened to the file.
        case event(Event)
    }

    /// The path followed, as given.
    public let path: String
    /// Whether the follower waits for new lines at the end of the file; if not, it delivers the last
    /// line even without a newline and then ends.
    public let follows: Bool
    /// How long to wait, in seconds, before looking at the file again when nothing is new.
    public let pollInterval: Double
    /// Stops a follower blocked in ``next()`` from another thread.
    public let cancellation: InputCancellation

    /// An open file: the path it was opened at (for messages) and its identity.
    private struct OpenFile {
        var descriptor: Int32
        var identity: String
        var path: String
    }

    private var file: OpenFile?
    private var splitter: LineSplitter
    private var startPosition: FilePosition?
    private var queued: [Event] = []
    /// Whether the current file is the old file found on resuming, to be finished before the path's.
    private var readingPreviousFile = false
    private var reportedMissing = false
    private var ended = false
    private var chunk: [UInt8]

    /// Makes a follower of `path`; nothing is opened until the first ``next()``.
    ///
    /// - Parameters:
    ///   - startingAt: the position stored by an earlier run, or `nil` to read from the beginning.
    ///   - follow: whether to wait for new lines (`tail -F`) or stop at the end of the file.
    ///   - pollInterval: seconds between looks at an unchanged file.
    ///   - maxLineBytes: the longest line kept; longer ones are delivered as too long (1 MiB).
    ///   - chunkBytes: how much is read at a time, which bounds the lines in one batch (64 KiB).
    public init(
        path: String, startingAt: FilePosition? = nil, follow: Bool = true, pollInterval: Double = 0.2,
        maxLineBytes: Int = 1 << 20, chunkBytes: Int = 1 << 16,
        cancellation: InputCancellation = InputCancellation()
    ) {
        self.path = path
        startPosition = startingAt
        follows = follow
        self.pollInterval = pollInterval.isFinite ? max(0.001, pollInterval) : 0.2
        self.cancellation = cancellation
        splitter = LineSplitter(maxLineBytes: maxLineBytes)
        chunk = [UInt8](repeating: 0, count: max(1, chunkBytes))
    }

    deinit {
        if let file { FileCalls.closeFile(file.descriptor) }
    }

    /// The position after the last line delivered, or `nil` before a file was opened.
    public var position: FilePosition? {
        file.map { FilePosition(identity: $0.identity, offset: splitter.consumedOffset, line: splitter.line) }
    }

    /// Waits for and returns the next lines or event; `nil` once a file that is not followed has
    /// been read to its end, or once cancelled.
    ///
    /// - Throws: ``InputFileError`` if the file cannot be opened for a reason other than not existing
    ///   (or at all, when not following), or cannot be read.
    public func next() throws(InputFileError) -> Update? {
        switch try nextBlock() {
        case .lines(let block, let position)?: .lines(block.inputLines, position)
        case .event(let event)?: .event(event)
        case nil: nil
        }
    }

    /// What ``nextBlock()`` returns: lines with their bytes in one buffer, or an event.
    enum BlockUpdate: Sendable {
        /// Complete lines in file order, and the position after the last of them.
        case lines(LineBlock, FilePosition)
        /// Something that happened to the file.
        case event(Event)
    }

    /// ``next()`` with the lines' bytes kept as read, no `String` made of them (see ``LineBlock``).
    func nextBlock() throws(InputFileError) -> BlockUpdate? {
        while true {
            if !queued.isEmpty { return .event(queued.removeFirst()) }
            if ended || cancellation.isCancelled { return nil }
            guard let current = file else {
                if try openPath() { continue }
                if !reportedMissing {
                    reportedMissing = true
                    return .event(.missing)
                }
                cancellation.sleep(seconds: pollInterval)
                continue
            }
            let offset = splitter.readOffset
            let count = try chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(InputFileError) in
                    try FileCalls.read(current.descriptor, into: buffer, at: offset, path: current.path)
                }
            }.get()
            if count > 0 {
                var block = LineBlock(reservingFor: count)
                splitter.appendRaw(chunk[0..<count]) { block.append($0) }
                if !block.isEmpty, let position { return .lines(block, position) }
                continue
            }
            if let update = try atEndOfFile(current) { return update }
        }
    }

    // MARK: - Opening

    /// The status of a file just opened; the descriptor is closed when it cannot be had.
    private func status(ofOpened descriptor: Int32) throws(InputFileError) -> FileStatus {
        switch FileStatus.of(descriptor: descriptor, path: path) {
        case .success(let found): return found
        case .failure(let error):
            FileCalls.closeFile(descriptor)
            throw error
        }
    }

    /// Opens the file at the path the first time (or after it went missing), applying the stored
    /// position; `false` if the path does not exist yet.
    private func openPath() throws(InputFileError) -> Bool {
        let descriptor: Int32
        switch FileCalls.openForReading(path) {
        case .success(let opened): descriptor = opened
        case .failure(let error):
            if error.code == ENOENT && follows { return false }
            throw error
        }
        let status = try status(ofOpened: descriptor)
        reportedMissing = false
        guard let start = startPosition else {
            use(descriptor, identity: status.identity, at: 0, line: 0)
            queued.append(.opened(identity: status.identity))
            return true
        }
        startPosition = nil
        if start.identity == status.identity {
            if status.size >= start.offset {
                use(descriptor, identity: status.identity, at: start.offset, line: start.line)
                queued.append(.resumed(start))
            } else {
                use(descriptor, identity: status.identity, at: 0, line: 0)
                queued.append(.truncated(identity: status.identity, atOffset: start.offset))
            }
            return true
        }
        if let previous = findPreviousFile(start) {
            FileCalls.closeFile(descriptor)
            file = OpenFile(descriptor: previous.descriptor, identity: start.identity, path: previous.path)
            splitter.reset(offset: start.offset, line: start.line)
            readingPreviousFile = true
            queued.append(.finishingPreviousFile(path: previous.path, from: start))
            return true
        }
        use(descriptor, identity: status.identity, at: 0, line: 0)
        queued.append(.previousFileNotFound(start))
        queued.append(.rotated(from: start.identity, to: status.identity))
        return true
    }

    private func use(_ descriptor: Int32, identity: String, at offset: Int64, line: Int64) {
        if let file { FileCalls.closeFile(file.descriptor) }
        file = OpenFile(descriptor: descriptor, identity: identity, path: path)
        splitter.reset(offset: offset, line: line)
        readingPreviousFile = false
    }

    /// The file `position` belongs to, under another name in the path's directory (or the directory
    /// of a symbolic link's target), opened, if it is still there and long enough.
    private func findPreviousFile(_ position: FilePosition) -> (descriptor: Int32, path: String)? {
        let url = URL(fileURLWithPath: path)
        var directories = [url.deletingLastPathComponent().path]
        let target = url.resolvingSymlinksInPath().deletingLastPathComponent().path
        if !directories.contains(target) { directories.append(target) }
        for directory in directories {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
                continue
            }
            for name in names.sorted() {
                let candidate = directory + "/" + name
                guard case .success(let status) = FileStatus.of(path: candidate),
                    status.identity == position.identity, status.size >= position.offset,
                    case .success(let descriptor) = FileCalls.openForReading(candidate)
                else { continue }
                // It may have been replaced between the stat and the open.
                if case .success(let opened) = FileStatus.of(descriptor: descriptor, path: candidate),
                    opened.identity == position.identity
                {
                    return (descriptor, candidate)
                }
                FileCalls.closeFile(descriptor)
            }
        }
        return nil
    }

    // MARK: - At the end of the file

    /// Decides what the end of the current file means: the end of a replay, a switch to a rotated
    /// file, a truncation, or nothing new yet (after waiting). `nil` means read again.
    private func atEndOfFile(_ current: OpenFile) throws(InputFileError) -> BlockUpdate? {
        if !follows {
            if readingPreviousFile { return try switchToPath(from: current) }
            ended = true
            var last = LineBlock()
            splitter.finishRaw { last.append($0) }
            if !last.isEmpty, let position { return .lines(last, position) }
            return nil
        }
        // The path first, then the open file: a writer that has moved to a new file has finished
        // writing the old one, so the old file's size is read after seeing the new file's bytes.
        let atPath = FileStatus.of(path: path)
        let own: FileStatus
        switch FileStatus.of(descriptor: current.descriptor, path: current.path) {
        case .success(let status): own = status
        case .failure(let error): throw error
        }
        switch atPath {
        case .success(let status) where status.identity != current.identity:
            reportedMissing = false
            // The old file's last bytes come first.
            if own.size > splitter.readOffset { return nil }
            // Until the new file has its first bytes the writer may still be appending to the old one.
            if status.size == 0 {
                cancellation.sleep(seconds: pollInterval)
                return nil
            }
            return try switchToPath(from: current)
        case .success:
            reportedMissing = false
        case .failure(let error):
            guard error.code == ENOENT else { throw error }
            if own.size > splitter.readOffset { return nil }
            if !reportedMissing {
                reportedMissing = true
                return .event(.missing)
            }
            cancellation.sleep(seconds: pollInterval)
            return nil
        }
        if own.size < splitter.readOffset {
            let reached = splitter.readOffset
            splitter.reset(offset: 0, line: 0)
            return .event(.truncated(identity: current.identity, atOffset: reached))
        }
        if own.size > splitter.readOffset { return nil }
        cancellation.sleep(seconds: pollInterval)
        return nil
    }

    /// Leaves the finished old file for the file now at the path: delivers the old file's last
    /// unterminated line, if any, then reports the rotation.
    private func switchToPath(from old: OpenFile) throws(InputFileError) -> BlockUpdate? {
        var finished = LineBlock()
        splitter.finishRaw { finished.append($0) }
        let last = finished.isEmpty ? nil : finished
        let oldPosition = position
        let descriptor: Int32
        switch FileCalls.openForReading(path) {
        case .success(let opened): descriptor = opened
        case .failure(let error):
            // Gone again between the stat and the open: keep the old file and look again later.
            guard error.code == ENOENT, follows else { throw error }
            if let last, let oldPosition { return .lines(last, oldPosition) }
            return nil
        }
        let status = try status(ofOpened: descriptor)
        use(descriptor, identity: status.identity, at: 0, line: 0)
        queued.append(.rotated(from: old.identity, to: status.identity))
        if let last, let oldPosition { return .lines(last, oldPosition) }
        return nil
    }
}

extension FileFollower {
    /// The updates of a follower of `path` as an asynchronous sequence, read on a thread of its own
    /// so that waiting for lines never holds a thread of Swift's cooperative pool.
    ///
    /// The thread reads only when the sequence is asked for the next element, so a slow consumer
    /// holds the reader back rather than lines piling up in memory. Cancelling the task, or
    /// dropping the iterator, stops the thread within a poll interval.
    public static func updates(
        path: String, startingAt: FilePosition? = nil, follow: Bool = true, pollInterval: Double = 0.2,
        maxLineBytes: Int = 1 << 20
    ) -> some AsyncSequence<Update, any Error> & Sendable {
        ThreadedReader { cancellation in
            let follower = FileFollower(
                path: path, startingAt: startingAt, follow: follow, pollInterval: pollInterval,
                maxLineBytes: maxLineBytes, cancellation: cancellation)
            return { () throws(InputFileError) -> Update? in try follower.next() }
        }
    }
}
