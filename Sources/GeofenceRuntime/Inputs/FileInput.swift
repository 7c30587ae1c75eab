import CSpawn
import Foundation
import GeofenceInput
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A file as an input of `geofence run`: read to its end, or followed like `tail -F` (rotation,
/// truncation, a missing file), resuming at the position stored after the last committed batch.
final class FileInput: RunInput {
    let name: String
    private let path: String
    private let follow: Bool
    private let startPosition: FilePosition?
    private let history: Bool
    private let pollSeconds: Double
    private let format: InputFormat
    private let timeZone: TimeZone
    private let cancellation = InputCancellation()

    init(
        path: String, follow: Bool, startPosition: FilePosition?, history: Bool, pollSeconds: Double,
        format: InputFormat = .auto, timeZone: TimeZone = .gmt
    ) {
        self.format = format
        self.timeZone = timeZone
        self.name = path
        self.path = path
        self.follow = follow
        self.startPosition = startPosition
        self.history = history
        self.pollSeconds = pollSeconds
    }

    /// The run's format; a Recorder `.rec` file's path (or a GeoLife file's) names its device.
    func decoder(format: InputFormat, timeZone: TimeZone) -> StreamDecoder {
        StreamDecoder(
            format: format, source: name, timeZone: timeZone,
            deviceId: InputReader.recorderDevice(forPath: path) ?? GeoLifeReader.device(forPath: path))
    }

    func start(into queue: RecordQueue) {
        readOnThread { [self] in
            if !follow, format.isXMLDocument || (format == .auto && FileInput.isDocument(path)) {
                readDocument(into: queue)
            } else {
                read(into: queue)
            }
        }
    }

    /// Whether the file starts like an XML document (`<` after a byte-order mark and blanks), as
    /// ``RecordReader`` tells GPX from lines.
    static func isDocument(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 4096)) ?? Data()
        let first = head.first { ![0xEF, 0xBB, 0xBF, 0x20, 0x09, 0x0A, 0x0D].contains($0) }
        return first == UInt8(ascii: "<")
    }

    /// Reads a whole document (GPX, KML) through the one ``RecordReader``, as `replay` does: its points
    /// are recorded history, handed over oldest first in batches. It has no position to resume at:
    /// after a restart it is read again, and what was already processed is dropped as not newer.
    private func readDocument(into queue: RecordQueue) {
        let reader = RecordReader(path: path, format: format, timeZone: timeZone)
        var records: [InputRecord] = []
        struct Closed: Error {}
        do {
            try reader.read(
                record: { record in
                    records.append(record)
                    if records.count >= 1000 {
                        guard queue.put(.records(input: name, records: records)) else { throw Closed() }
                        records = []
                    }
                },
                error: { failure in queue.put(.note(input: name, message: "\(failure)", level: .warning)) },
                note: { message in queue.put(.note(input: name, message: message, level: .info)) })
            if !records.isEmpty { queue.put(.records(input: name, records: records)) }
            queue.put(.ended(input: name, failure: nil))
        } catch is Closed {
            return
        } catch {
            queue.put(.ended(input: name, failure: "\(error)"))
        }
    }

    /// How much of the file is read at a time, which bounds the lines of one batch: 256 KiB, about
    /// 2,300 of the bench's NDJSON fixes or a thousand OwnTracks lines. Each batch costs the
    /// engine's loop a hand-over to the decoding thread, a crash note and a take from the queue;
    /// with 64 KiB batches `run --history` of a million fixes took 1.12 times as long and 1.09
    /// times the CPU, for about 2 MiB less peak memory (of 52).
    static let chunkBytes = 1 << 18

    /// Asks the thread to stop; it does within a poll interval.
    func stop() { cancellation.cancel() }

    private func read(into queue: RecordQueue) {
        // Lines already in the file when the run started are history, judged as replay judges them
        // (a fix written an hour ago is not "expired" because geofence was down); lines written
        // after the start arrive live. One rule for a stop and a restart: lines waiting in the
        // file when geofence resumes after SIGSTOP (SIGCONT) are history too, exactly as after a
        // kill and restart, so a long stop loses no crossing to the expiration rule.
        var backlog = FileBacklog(path: path)
        var resumptionsSeen = Resumptions.count.load(ordering: .acquiring)
        let follower = FileFollower(
            path: path, startingAt: startPosition, follow: follow, pollInterval: pollSeconds,
            chunkBytes: Self.chunkBytes, cancellation: cancellation)
        do {
            while let update = try follower.nextBlock() {
                switch update {
                case .lines(let lines, let position):
                    let resumptions = Resumptions.count.load(ordering: .acquiring)
                    if resumptions != resumptionsSeen {
                        resumptionsSeen = resumptions
                        backlog = FileBacklog(path: path)
                    }
                    let live =
                        !history && !backlog.contains(identity: position.identity, offset: position.offset)
                    let stored = position.inputPosition(input: name)
                    guard queue.put(.fileLines(input: name, lines: lines, position: stored, live: live))
                    else { return }
                case .event(let event):
                    queue.put(
                        .note(input: name, message: FileInput.describe(event), level: FileInput.level(event)))
                }
            }
            queue.put(.ended(input: name, failure: nil))
        } catch {
            queue.put(.ended(input: name, failure: "\(error)"))
        }
    }

    static func describe(_ event: FileFollower.Event) -> String {
        switch event {
        case .opened(let identity): "opened (file \(identity))"
        case .resumed(let position): "resumed at line \(position.line + 1) (byte \(position.offset))"
        case .finishingPreviousFile(let path, let from):
            "rotated while geofence was down: finishing \(path) from line \(from.line + 1) first"
        case .previousFileNotFound(let position):
            "rotated while geofence was down and the old file is gone: lines written to it after line \(position.line) are lost"
        case .rotated(let from, let to): "rotated (file \(from) to \(to))"
        case .truncated(_, let offset): "truncated below byte \(offset): reading again from the start"
        case .missing: "missing: waiting for it to appear"
        }
    }

    static func level(_ event: FileFollower.Event) -> LogEntry.Level {
        switch event {
        case .previousFileNotFound, .truncated, .missing: .warning
        default: .info
        }
    }
}

/// The extent of a file when the run started: lines inside it are history, not live arrivals.
struct FileBacklog: Sendable {
    let identity: String?
    let size: Int64

    init(path: String) {
        var info = stat()
        if stat(path, &info) == 0 {
            identity = "\(UInt64(info.st_dev)):\(UInt64(info.st_ino))"
            size = Int64(info.st_size)
        } else {
            identity = nil
            size = 0
        }
    }

    func contains(identity other: String, offset: Int64) -> Bool {
        identity == other && offset <= size
    }
}

/// How many times the process was continued after a stop (SIGCONT), counted by a plain signal
/// handler so that the count is up to date before the input threads read the lines that waited.
enum Resumptions {
    /// The number of SIGCONTs received since the start.
    static let count = Atomic<Int>(0)

    /// Installs the SIGCONT handler (once) and unblocks SIGCONT on the calling thread: a process
    /// started by Foundation's `Process` can inherit a blocked signal mask
    /// (swift-corelibs-foundation#4772), and a blocked SIGCONT still continues the process but
    /// never runs the handler.
    static func install() {
        _ = installed
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGCONT)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    private static let installed: Void = {
        signal(SIGCONT) { _ in _ = Resumptions.count.add(1, ordering: .releasing) }
    }()
}
