public import Foundation
import Dispatch
import Geofence

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The C library's `read(2)`, under a name the reader's own methods do not hide.
private func readBytes(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

/// Reads fixes and visits from a file or standard input in any supported format: the one entry
/// point for every input that is read from start to end (`replay`, `stays`).
///
/// - **One content sniffing**: with `.auto`, a document whose first character (after a byte-order
///   mark and blanks) is `<` is GPX or KML, by its root element; a JSON document (a top-level
///   array, a pretty-printed object, an object wrapping `locations`, `features` or `data`) is read
///   by ``JSONDocumentReader``; anything else is lines, told apart by ``StreamDecoder`` (NMEA,
///   GeoLife, and the line formats of ``LineDecoder``).
/// - **JSON documents stream**: their bytes go to ``JSONDocumentReader`` as they are read, not
///   through the line splitter, so a Takeout `Records.json` of hundreds of megabytes, or a
///   one-line document of any size, is read in the memory of one record.
/// - **Bounded lines**: lines go through the same ``LineSplitter`` the runtime's file follower
///   uses, so a line longer than `maxLineBytes` (1 MiB) is skipped with an error while its bytes
///   are counted and dropped, in constant memory. A file of NUL bytes without a newline costs one
///   read buffer, not the file.
/// - **Whole XML documents** (GPX, KML) are read whole, up to `maxDocumentBytes` (1 GiB), because their
///   points are not in time order; a bigger one is refused with an error instead of exhausting
///   memory.
/// - **Newest first**: exports such as Google's and some CSVs list the newest fix first, and a
///   filter that keeps only newer fixes would drop all but one of them. When the first fixes read
///   go back in time, the reader holds every record to the end and hands them out oldest first,
///   with a note saying so.
///
/// A line that cannot be read is passed to `error` with its source and line number and skipped; it
/// never stops the read.
public struct RecordReader: Sendable {
    /// A path, or `-` for standard input.
    public let path: String
    /// The format, or `.auto` to tell per line.
    public var format: InputFormat
    /// The zone for times written without one.
    public var timeZone: TimeZone
    /// The longest line kept, in bytes.
    public var maxLineBytes: Int
    /// The largest whole document (GPX) read, in bytes.
    public var maxDocumentBytes: Int
    /// How many fixes the newest-first check looks at before deciding.
    static let orderSample = 8
    /// How many threads decode a file's JSON lines (see ``ParallelLines``); 1 decodes on the reading
    /// thread. Standard input is always decoded on the reading thread: it may be live, and a line
    /// waiting for a block of others to fill would not be answered as it came.
    public var decodingThreads = 1
    /// Asked before each round of blocks is decoded: whether to decode it on the threads (`true`)
    /// or on the reading thread alone (`false`). For a caller that can tell whether what is read
    /// is waiting to be used: while it is, other threads decoding only take processor time from
    /// the thread that uses it. `nil` always uses the threads.
    public var decodesOnThreadsNow: (@Sendable () -> Bool)?

    /// Makes a reader; nothing is opened until ``read(record:error:note:)``.
    public init(
        path: String, format: InputFormat = .auto, timeZone: TimeZone = .gmt, maxLineBytes: Int = 1 << 20,
        maxDocumentBytes: Int = 1 << 30
    ) {
        self.path = path
        self.format = format
        self.timeZone = timeZone
        self.maxLineBytes = maxLineBytes
        self.maxDocumentBytes = maxDocumentBytes
    }

    /// The name errors use for the input.
    public var source: String { path == "-" ? "stdin" : path }

    /// Reads the whole input, handing each record to `record` in order (oldest first), each
    /// unreadable line to `error`, and remarks about the input as a whole (its order) to `note`.
    /// Returns what was read (``InputTally``), for a summary and to say why no fix came.
    /// Throws an `.unreadable` ``RecordError`` when the input cannot be opened or read, and
    /// whatever `record` throws.
    @discardableResult
    public func read(
        record: (consuming InputRecord) throws -> Void, error: (RecordError) -> Void,
        note: (String) -> Void = { _ in }
    ) throws -> InputTally {
        let descriptor = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw unreadable("cannot be opened: \(String(cString: strerror(errno)))")
        }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }

        let device = InputReader.recorderDevice(forPath: path) ?? GeoLifeReader.device(forPath: path)
        var intake = Intake(
            decoder: StreamDecoder(format: format, source: source, timeZone: timeZone, deviceId: device),
            source: source, maxLineBytes: maxLineBytes,
            parallel: decodingThreads > 1 && path != "-"
                ? ParallelLines(threads: decodingThreads, onThreadsNow: decodesOnThreadsNow) : nil)
        var documentReader: JSONDocumentReader?
        var splitter = LineSplitter(maxLineBytes: maxLineBytes)
        var document: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        // What the input is: decided from its first bytes unless the format says.
        enum Kind { case undecided, lines, xml, json }
        var kind: Kind =
            switch format {
            case .auto: .undecided
            case _ where format.isXMLDocument: .xml
            case .json, .takeout, .geojson: .json
            default: .lines
            }
        if kind == .json {
            documentReader = JSONDocumentReader(
                source: source, timeZone: timeZone, deviceId: device, expected: format.documentShape ?? .any)
        }

        func take(_ result: Result<InputRecord, RecordError>) throws {
            try intake.take(result, record: record, error: error, note: note)
        }
        func feedDocument(_ bytes: some Collection<UInt8>) throws {
            var results: [Result<InputRecord, RecordError>] = []
            intake.tally.lines += bytes.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
            Array(bytes).withUnsafeBufferPointer { buffer in
                documentReader?.feed(buffer) { results.append($0) }
            }
            for result in results { try take(result) }
        }
        // The intake and the splitter are handed in, not captured: every line's use of a variable
        // the nested function captured was checked for exclusive access at run time.
        func splitLines(
            _ bytes: some Collection<UInt8>, into splitter: inout LineSplitter, intake: inout Intake
        ) throws {
            try splitter.appendRaw(bytes) { try intake.handle($0, record: record, error: error, note: note) }
        }
        while true {
            // A plain read returns what a pipe holds now, so output keeps up with a live stdin.
            let count = chunk.withUnsafeMutableBytes { readBytes(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw unreadable("cannot be read: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            let bytes = chunk[0..<count]
            if kind == .undecided {
                document.append(contentsOf: bytes)
                let decided = InputReader.documentFormat(prefix: document, complete: false)
                guard let decided else {
                    // Blanks only, or a first line still being read: a line-format input of blank
                    // lines, or a first line longer than a line may be, is decided anyway.
                    if document.count > maxLineBytes {
                        kind = .json
                        documentReader = JSONDocumentReader(
                            source: source, timeZone: timeZone, deviceId: device)
                        try feedDocument(document)
                        document = []
                    }
                    continue
                }
                switch decided {
                case let decided where decided.isXMLDocument:
                    kind = .xml
                case .json:
                    kind = .json
                    documentReader = JSONDocumentReader(source: source, timeZone: timeZone, deviceId: device)
                    try feedDocument(document)
                    document = []
                default:
                    kind = .lines
                    try splitLines(document, into: &splitter, intake: &intake)
                    document = []
                }
                continue
            }
            switch kind {
            case .xml:
                guard document.count + count <= maxDocumentBytes else {
                    throw unreadable("is a document larger than \(maxDocumentBytes) bytes; not read")
                }
                document.append(contentsOf: bytes)
            case .json:
                try feedDocument(bytes)
            case .lines, .undecided:
                try splitLines(bytes, into: &splitter, intake: &intake)
            }
        }
        switch kind {
        case .xml:
            let data = Data(document)
            intake.tally.lines = document.reduce(1) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
            let batch = InputReader.readXML(data, format: format, source: source, deviceId: device)
            for failure in batch.errors { try take(.failure(failure)) }
            for value in batch.records { try take(.success(value)) }
        case .json:
            var results: [Result<InputRecord, RecordError>] = []
            documentReader?.finish { results.append($0) }
            for result in results { try take(result) }
        case .lines, .undecided:
            if kind == .undecided, !document.isEmpty {
                // A short input whose first line never ended: decide on what there is.
                if InputReader.documentFormat(prefix: document, complete: true) == .json {
                    documentReader = JSONDocumentReader(source: source, timeZone: timeZone, deviceId: device)
                    try feedDocument(document)
                    var results: [Result<InputRecord, RecordError>] = []
                    documentReader?.finish { results.append($0) }
                    for result in results { try take(result) }
                    try intake.order.finish(emit: record, note: note)
                    return intake.tally
                }
                try splitLines(document, into: &splitter, intake: &intake)
            }
            try splitter.finishRaw { try intake.handle($0, record: record, error: error, note: note) }
            try intake.flushParallel(record: record, error: error, note: note)
            for result in intake.decoder.finish() { try take(result) }
        }
        try intake.order.finish(emit: record, note: note)
        return intake.tally
    }

    /// What a read keeps from line to line: the decoder, the tally, the order check and the
    /// lines waiting for the decoding threads. Its methods change it in place, so a line costs no
    /// copy of it and no dynamic exclusivity check (the checks that variables captured by the
    /// read's nested functions took cost several hundred instructions a line).
    private struct Intake {
        var decoder: StreamDecoder
        let source: String
        let maxLineBytes: Int
        var parallel: ParallelLines?
        /// Whether lines go to `parallel`: a constant, so the per-line test reads no state.
        let decodesInParallel: Bool
        /// How many lines `parallel` holds, and whether it has its decoder: kept here, because
        /// asking the optional `parallel` copies it.
        private var waitingLines = 0
        private var parallelHasDecoder = false
        /// The lines `parallel` takes before they are decoded: a block for each thread.
        private let parallelCapacity: Int
        var order = OrderCheck(sample: RecordReader.orderSample)
        var tally: InputTally

        init(decoder: StreamDecoder, source: String, maxLineBytes: Int, parallel: ParallelLines?) {
            self.decoder = decoder
            self.source = source
            self.maxLineBytes = maxLineBytes
            self.parallel = parallel
            self.decodesInParallel = parallel != nil
            self.parallelCapacity = (parallel?.threads ?? 1) * ParallelLines.blockLines
            self.tally = InputTally(source: source)
        }

        mutating func take(
            _ result: consuming Result<InputRecord, RecordError>,
            record: (consuming InputRecord) throws -> Void,
            error: (RecordError) -> Void, note: (String) -> Void
        ) throws {
            try Self.take(result, tally: &tally, order: &order, record: record, error: error, note: note)
        }

        /// ``take(_:record:error:note:)`` on the two parts it changes, for the decoder's callback,
        /// which runs while the decoder (another part) is being changed.
        private static func take(
            _ result: consuming Result<InputRecord, RecordError>, tally: inout InputTally,
            order: inout OrderCheck,
            record: (consuming InputRecord) throws -> Void, error: (RecordError) -> Void,
            note: (String) -> Void
        ) throws {
            switch consume result {
            case .success(let value):
                try take(value, tally: &tally, order: &order, record: record, note: note)
            case .failure(let failure): take(failure, tally: &tally, error: error)
            }
        }

        /// Counts a record and hands it on through the order check, moved, not copied.
        private static func take(
            _ value: consuming InputRecord, tally: inout InputTally, order: inout OrderCheck,
            record: (consuming InputRecord) throws -> Void, note: (String) -> Void
        ) throws {
            tally.count(value)
            try order.take(value, emit: record, note: note)
        }

        /// Counts an unreadable line and reports it.
        private static func take(
            _ failure: RecordError, tally: inout InputTally, error: (RecordError) -> Void
        ) {
            tally.count(failure)
            error(failure)
        }

        /// Decodes the lines waiting for the threads and takes their results in input order.
        mutating func flushParallel(
            record: (consuming InputRecord) throws -> Void, error: (RecordError) -> Void,
            note: (String) -> Void
        ) throws {
            guard decodesInParallel, waitingLines > 0, var waiting = parallel else { return }
            // Taken out while it hands its results to `take`, which changes the rest of `self`.
            parallel = nil
            waitingLines = 0
            defer { parallel = waiting }
            try waiting.decode { number, line in
                tally.lines = number
                // Taken apart and handed on by moving, not copying, the record: a copy, and the
                // destruction of the value left behind, cost more than the rest of handing it on.
                switch consume line {
                case .record(let value):
                    try Self.take(value, tally: &tally, order: &order, record: record, note: note)
                case .failure(let failure):
                    Self.take(failure, tally: &tally, error: error)
                case .nothing:
                    break
                }
            }
        }

        mutating func handle(
            _ line: RawLine, record: (consuming InputRecord) throws -> Void, error: (RecordError) -> Void,
            note: (String) -> Void
        ) throws {
            if decodesInParallel {
                // A JSON line of an input already known to be such lines waits to be decoded with
                // others on several threads; any other line is read here, after those waiting.
                if let bytes = line.bytes, StreamDecoder.isJSONObjectLine(bytes, isASCII: line.isASCII),
                    decoder.readsIndependentJSONLines
                {
                    if !parallelHasDecoder {
                        parallel?.decoder = decoder.independentJSONLineDecoder
                        parallelHasDecoder = true
                    }
                    parallel?.append(bytes, number: Int(line.number))
                    waitingLines += 1
                    if waitingLines >= parallelCapacity {
                        try flushParallel(record: record, error: error, note: note)
                    }
                    return
                }
                try flushParallel(record: record, error: error, note: note)
            }
            tally.lines = Int(line.number)
            guard let bytes = line.bytes else {
                return try take(
                    .failure(
                        RecordError(
                            source: source, line: Int(line.number),
                            message:
                                "line of \(line.byteCount) bytes is longer than \(maxLineBytes) bytes; skipped",
                            kind: .malformed)),
                    record: record, error: error, note: note)
            }
            // An ASCII line is read where it lies; any other is made valid UTF-8 first (bad bytes
            // become U+FFFD), as every line once was.
            if line.isASCII {
                return try decoder.decode(bytes: bytes, number: Int(line.number)) {
                    try Self.take($0, tally: &tally, order: &order, record: record, error: error, note: note)
                }
            }
            var text = line.line.text
            try text.withUTF8 { utf8 in
                try decoder.decode(bytes: utf8, number: Int(line.number)) {
                    try Self.take($0, tally: &tally, order: &order, record: record, error: error, note: note)
                }
            }
        }
    }

    private func unreadable(_ message: String) -> RecordError {
        RecordError(source: source, line: 0, message: message, kind: .unreadable)
    }
}

/// JSON lines gathered in blocks and decoded on several threads at once, their results handed
/// out in input order: decoding is most of the cost of reading, and a line of NDJSON or OwnTracks
/// is read on its own (see ``StreamDecoder/independentJSONLineDecoder``), so each thread decodes
/// its block with its own copy of the decoder and the results are what one decoder gives.
struct ParallelLines {
    /// Lines per block: enough that handing a block to a thread costs little per line.
    static let blockLines = 2048

    private struct Block {
        var bytes: [UInt8] = []
        /// Each line's end in `bytes` and its number; a line starts where the one before ended.
        var ends: [(end: Int, number: Int)] = []
    }

    let threads: Int
    private var blocks: [Block]
    private var current = 0
    /// The decoder each thread copies, set before the first line is appended.
    var decoder: LineDecoder?
    /// See ``RecordReader/decodesOnThreadsNow``.
    private let onThreadsNow: (@Sendable () -> Bool)?

    init(threads: Int, onThreadsNow: (@Sendable () -> Bool)? = nil) {
        self.threads = threads
        self.onThreadsNow = onThreadsNow
        blocks = Array(repeating: Block(), count: threads)
        for index in blocks.indices {
            blocks[index].bytes.reserveCapacity(Self.blockLines * 160)
            blocks[index].ends.reserveCapacity(Self.blockLines)
        }
    }

    /// Whether a trimmed line is a JSON object (its first byte a brace), the lines this decodes.
    static func isJSONObject(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let (start, end) = LineBytes.trim(bytes)
        return start < end && bytes[start] == UInt8(ascii: "{")
    }

    /// Keeps a line (copied) until ``decode(_:)``.
    mutating func append(_ line: UnsafeBufferPointer<UInt8>, number: Int) {
        if blocks[current].ends.count >= Self.blockLines { current += 1 }
        blocks[current].bytes.append(contentsOf: line)
        blocks[current].ends.append((blocks[current].bytes.count, number))
    }

    /// Decodes the blocks, one thread each, then hands `take` each line's number and result in
    /// order, and empties the blocks.
    mutating func decode(_ take: (Int, consuming LineOutcome) throws -> Void) rethrows {
        guard let template = decoder else { return }
        let used = current + 1
        let results =
            onThreadsNow?() ?? true
            ? Self.decoded(blocks, count: used, template: template)
            : Self.decodedHere(blocks, count: used, template: template)
        for index in 0..<used {
            let decoded = results[index]
            try blocks[index].ends.withUnsafeBufferPointer { ends in
                for line in 0..<decoded.count { try take(ends[line].number, decoded.takeNext()) }
            }
            blocks[index].bytes.removeAll(keepingCapacity: true)
            blocks[index].ends.removeAll(keepingCapacity: true)
        }
        current = 0
    }

    /// The first `count` blocks decoded, each on a thread with its own copy of `template`.
    private static func decoded(_ blocks: [Block], count: Int, template: LineDecoder) -> [DecodedBlock] {
        let results = blocks.prefix(count).map { DecodedBlock(capacity: $0.ends.count) }
        DispatchQueue.concurrentPerform(iterations: count) { index in
            var decoder = template.copyForThread()
            decode(blocks[index], with: &decoder, into: results[index])
        }
        return results
    }

    /// The first `count` blocks decoded one after the other on this thread, with one copy of
    /// `template`: the same results, in the same blocks.
    private static func decodedHere(_ blocks: [Block], count: Int, template: LineDecoder) -> [DecodedBlock] {
        var decoder = template.copyForThread()
        return blocks.prefix(count).map { block in
            let decoded = DecodedBlock(capacity: block.ends.count)
            decode(block, with: &decoder, into: decoded)
            return decoded
        }
    }

    private static func decode(_ block: Block, with decoder: inout LineDecoder, into decoded: DecodedBlock) {
        block.bytes.withUnsafeBufferPointer { buffer in
            var start = 0
            for (end, number) in block.ends {
                decoded.append(
                    decoder.outcome(bytes: UnsafeBufferPointer(rebasing: buffer[start..<end]), number: number)
                )
                start = end
            }
        }
    }
}

/// One block's results: filled by one decoding thread, then moved out one by one, in order, on
/// the reading thread (`concurrentPerform` returns only when every thread is done, so the two
/// never touch a block at once).
///
/// The results are kept in memory of their own rather than in an array: an array of them, even
/// emptied by moving each out, was destroyed element by element through the runtime's generic
/// witnesses, which cost several hundred instructions a line. Here only the results not handed
/// out (when `take` throws) are destroyed.
private final class DecodedBlock: @unchecked Sendable {
    private let base: UnsafeMutablePointer<LineOutcome>
    private let capacity: Int
    /// How many results the block holds.
    private(set) var count = 0
    /// How many of them have been moved out.
    private var taken = 0

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(capacity: max(1, capacity))
    }

    /// Adds the next line's result; a block holds one for each of its lines, no more.
    func append(_ result: consuming LineOutcome) {
        precondition(count < capacity, "a block holds one result for each of its lines")
        (base + count).initialize(to: result)
        count += 1
    }

    /// Moves the next result out; called once for each result, in order.
    func takeNext() -> LineOutcome {
        precondition(taken < count, "every result of a block is taken once")
        defer { taken += 1 }
        return (base + taken).move()
    }

    deinit {
        (base + taken).deinitialize(count: count - taken)
        base.deallocate()
    }
}

/// Tells an input sorted newest first from one sorted oldest first, from its first fixes, and
/// reverses the first kind.
///
/// The first `sample` fixes (and the records between them) are held. If every step between
/// consecutive fix times goes back or stays, and at least two go back, the input is newest first:
/// every record is then held to the end and handed out in reverse. Otherwise the held records are
/// handed out as they came and the rest streams through; a few fixes out of order are the filter's
/// business, not a reason to reorder a file.
struct OrderCheck {
    let sample: Int
    private var held: [InputRecord] = []
    private var fixTimes: [Date] = []
    private var decision: Bool?  // true: newest first

    init(sample: Int) {
        self.sample = sample
    }

    mutating func take(
        _ record: consuming InputRecord, emit: (consuming InputRecord) throws -> Void, note: (String) -> Void
    ) throws {
        switch decision {
        case false?: return try emit(record)
        case true?: return held.append(record)
        case nil: break
        }
        if let fix = record.fix { fixTimes.append(fix.timestamp) }
        held.append(record)
        if fixTimes.count >= sample { try decide(emit: emit, note: note) }
    }

    mutating func finish(emit: (consuming InputRecord) throws -> Void, note: (String) -> Void) throws {
        if decision == nil { try decide(emit: emit, note: note) }
        if decision == true {
            for record in held.reversed() { try emit(record) }
            held = []
        }
    }

    private mutating func decide(emit: (consuming InputRecord) throws -> Void, note: (String) -> Void) throws
    {
        let steps = zip(fixTimes, fixTimes.dropFirst())
        let backwards = steps.filter { $1 < $0 }.count
        let newestFirst = backwards >= 2 && steps.allSatisfy { $1 <= $0 }
        decision = newestFirst
        if newestFirst {
            note("the input lists its newest fix first; it is read to its end and replayed oldest first")
        } else {
            for record in held { try emit(record) }
            held = []
        }
    }
}
