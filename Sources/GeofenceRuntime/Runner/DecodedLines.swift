import Foundation
import GeofenceInput

/// The records of one batch of a file's lines, decoded before the pipeline takes them, so that
/// the next batches can be decoded on the other core while this one goes through the pipeline (as
/// `replay` reads on one thread and runs the monitor on another).
///
/// Decoding touches nothing but the input's own ``StreamDecoder``; what the lines mean for the
/// run's log and counts (a line too long, a line that cannot be read) is kept here in line order
/// and said by the engine's loop when it takes the records. The records are kept apart from the
/// entries, so that the loop reads each where it lies: a record is a large value, and each copy
/// of it costs a memcpy.
struct DecodedLines {
    /// One line's outcome, in line order.
    enum Entry {
        /// A record: its index in ``records``, and what the loop asks of it without reading it
        /// (whether it is a fix, whether it is a message geofence ignores).
        case record(Int, isFix: Bool, isIgnored: Bool)
        /// The reason a line gave no record.
        case failure(RecordError)
        /// A line longer than the reader keeps, delivered without its text.
        case tooLong(number: Int64)
    }

    /// What the lines gave, in order (a line can give no record, or several).
    private(set) var entries: [Entry] = []
    /// The records the entries name.
    private(set) var records: [InputRecord] = []
    /// How many of the records are fixes.
    private(set) var fixes = 0

    /// Decodes `lines` with `decoder`: an ASCII line where it lies, any other made valid UTF-8
    /// first (bad bytes become U+FFFD), as a `String` of it would be. A line containing
    /// `crashText` (the end-to-end tests' stand-in for a line that crashes the engine; `nil`
    /// outside them) traps here, where decoding happens, under the crash note that names it.
    static func decode(_ lines: LineBlock, with decoder: inout StreamDecoder, crashText: String?)
        -> DecodedLines
    {
        var decoded = DecodedLines()
        decoded.entries.reserveCapacity(lines.count)
        decoded.records.reserveCapacity(lines.count)
        decoded.read(lines, with: &decoder, crashText: crashText)
        return decoded
    }

    // A method on `self` rather than closures capturing a local: `self` is then reached through
    // the `inout` with no dynamic exclusivity check for each record.
    private mutating func read(_ lines: LineBlock, with decoder: inout StreamDecoder, crashText: String?) {
        lines.forEachLine { bytes, number, isASCII in
            guard let bytes else {
                entries.append(.tooLong(number: number))
                return
            }
            if crashText == nil, isASCII {
                if decoder.readLine(bytes: bytes, number: Int(number), { add($0) }) { return }
                return decoder.decode(bytes: bytes, number: Int(number)) { add($0) }
            }
            var text = String(decoding: bytes, as: UTF8.self)
            if let crashText, text.contains(crashText) {
                fatalError("GEOFENCE_TEST_CRASH_ON_TEXT: this line crashes the engine, as the test asked")
            }
            text.withUTF8 { bytes in decoder.decode(bytes: bytes, number: Int(number)) { add($0) } }
        }
    }

    /// Takes a line's outcome apart by moving it, as a result is.
    private mutating func add(_ outcome: consuming LineOutcome) {
        switch consume outcome {
        case .record(let record): add(record)
        case .failure(let failure): entries.append(.failure(failure))
        case .nothing: break
        }
    }

    /// Takes the result apart by moving it: a copy of the record out of it, and the destruction
    /// of the result after, cost a retain and a release of the record's box for every line.
    private mutating func add(_ result: consuming Result<InputRecord, RecordError>) {
        switch consume result {
        case .success(let record): add(record)
        case .failure(let failure): entries.append(.failure(failure))
        }
    }

    /// Adds a record, moved into ``records``.
    private mutating func add(_ record: consuming InputRecord) {
        var isFix = false
        var isIgnored = false
        switch record {
        case .fix: isFix = true
        case .ignored: isIgnored = true
        default: break
        }
        if isFix { fixes += 1 }
        entries.append(.record(records.count, isFix: isFix, isIgnored: isIgnored))
        records.append(record)
    }
}

/// A thread of its own that decodes a file's next batches of lines while the engine's loop runs
/// the batches before them through the pipeline: the loop hands it a run of batches with the
/// input's decoder (``start(_:decoder:crashText:)``), takes each batch decoded in order with
/// ``next()`` as soon as it is ready, and takes the decoder back, having read them all, with
/// ``finish()``.
///
/// The thread is started with the first batches and waits for more between runs; ``stop()`` ends
/// it. Everything is handed over under one condition lock, which orders the two threads' use of
/// the decoder and the lines.
///
/// When the loop would wait in ``next()`` (decoding is the longer half of `run --history` on two
/// cores: the loop waited for a third of the run), it decodes the next batch the thread has not
/// begun itself, if that batch is JSON object lines of an input whose JSON lines are read each on
/// its own (NDJSON, OwnTracks): with a copy of the decoder, as `replay`'s decoding threads do, so
/// the records are the same. Any other batch is left to the thread and its decoder.
///
/// The loop hands each batch back once the pipeline has taken it (``recycle(_:)``), and the thread
/// destroys it: its records were allocated here, and freeing them on the loop's thread cost that
/// thread the C library's frees of memory from another thread's arena, under a lock the two then
/// contended for (6% of the loop's time in `run --history`, and futex waits on both sides).
final class LineDecodingThread: @unchecked Sendable {
    /// The most lines decoded ahead of the loop (it stops once the batches not yet taken hold as
    /// many; one batch is always decoded): enough that the loop seldom waits, few enough that the
    /// decoded records held in memory stay small whatever the batches' size. About four of a
    /// file's 256 KiB batches of fixes.
    static let maxAheadLines = 8_192

    private let condition = NSCondition()
    /// The batches of the run, in order; a batch's lines are dropped once it is begun.
    private var jobs: [LineBlock] = []
    /// The first batch not begun yet (by the thread or the loop).
    private var nextJob = 0
    /// The batch ``next()`` returns next.
    private var nextTaken = 0
    /// Whether a run of batches was started and not yet finished.
    private var running = false
    /// The decoder, while the thread is not decoding with it.
    private var decoder: StreamDecoder?
    /// What the loop decodes a batch with when it would wait (see the type's note): a copy made
    /// from the run's decoder at its start, `nil` when its lines cannot be read apart.
    private var loopDecoder: StreamDecoder?
    /// The batch the loop last found it could not decode apart, not to be looked at again.
    private var refusedJob: Int?
    private var crashText: String?
    /// Batches decoded and not yet taken, by their index in ``jobs``, and the lines they hold.
    private var done: [Int: DecodedLines] = [:]
    private var doneLines = 0
    /// Batches the loop is done with, to destroy on this thread.
    private var recycled: [DecodedLines] = []
    private var started = false
    private var stopped = false
    /// While set, the thread begins no batch (for tests: the loop then decodes what it can).
    private var paused: Bool
    /// How many batches the loop decoded itself (for tests).
    private(set) var decodedByLoop = 0

    /// A thread that begins batches as soon as it has them, unless `paused` (for tests: see
    /// ``resume()``).
    init(paused: Bool = false) {
        self.paused = paused
    }

    /// Lets a thread made paused begin batches.
    func resume() {
        condition.lock()
        paused = false
        condition.broadcast()
        condition.unlock()
    }

    /// Starts decoding `batches`, in order, with `decoder`, which the thread holds until ``finish()``.
    func start(_ batches: [LineBlock], decoder: StreamDecoder, crashText: String?) {
        condition.lock()
        defer { condition.unlock() }
        precondition(!running && self.decoder == nil && done.isEmpty, "one run of batches at a time")
        jobs = batches
        nextJob = 0
        nextTaken = 0
        running = true
        self.decoder = decoder
        // A line that must crash the engine (the end-to-end tests' stand-in) is left to the thread.
        loopDecoder = crashText == nil ? decoder.copyForJSONLines : nil
        refusedJob = nil
        self.crashText = crashText
        if !started {
            started = true
            let thread = Thread { [self] in work() }
            thread.name = "geofence-decode"
            thread.start()
        }
        condition.broadcast()
    }

    /// Adds `batches` to those the thread is decoding, after them.
    func extend(_ batches: [LineBlock]) {
        condition.lock()
        defer { condition.unlock() }
        precondition(running, "a run of batches is being decoded")
        jobs += batches
        condition.broadcast()
    }

    /// Waits for the next batch given to ``start(_:decoder:crashText:)`` and returns it decoded,
    /// decoding a later one meanwhile if it can (see the type's note).
    func next() -> DecodedLines {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let first = done.removeValue(forKey: nextTaken) {
                nextTaken += 1
                doneLines -= first.entries.count
                condition.broadcast()
                return first
            }
            if !decodeNextHere() { condition.wait() }
        }
    }

    /// Decodes the next batch not begun on the calling thread (the lock held, and released while
    /// decoding) when the loop's decoder reads its lines as the thread's would; whether it did.
    private func decodeNextHere() -> Bool {
        guard var copy = loopDecoder, nextJob < jobs.count, refusedJob != nextJob,
            doneLines < Self.maxAheadLines
        else { return false }
        let index = nextJob
        let lines = jobs[index]
        var apart = true
        lines.forEachLine { bytes, _, isASCII in
            // A line too long (no bytes) leaves the batch to the thread too.
            if apart { apart = bytes.map { StreamDecoder.isJSONObjectLine($0, isASCII: isASCII) } ?? false }
        }
        guard apart else {
            refusedJob = index
            return false
        }
        jobs[index] = LineBlock()
        nextJob += 1
        condition.unlock()
        let decoded = DecodedLines.decode(lines, with: &copy, crashText: nil)
        condition.lock()
        doneLines += decoded.entries.count
        done[index] = decoded
        decodedByLoop += 1
        condition.broadcast()
        return true
    }

    /// Waits until every batch is decoded and returns the decoder; each batch must have been
    /// taken with ``next()``.
    func finish() -> StreamDecoder {
        condition.lock()
        defer { condition.unlock() }
        while nextJob < jobs.count || decoder == nil { condition.wait() }
        precondition(
            done.isEmpty && nextTaken == jobs.count, "every decoded batch is taken before the decoder")
        guard let finished = decoder else { preconditionFailure("waited for the decoder") }
        decoder = nil
        loopDecoder = nil
        jobs = []
        nextJob = 0
        nextTaken = 0
        running = false
        return finished
    }

    /// Hands back a batch ``next()`` gave once the pipeline has taken its records: the thread
    /// destroys it, soon (it is woken when it has nothing else to do).
    func recycle(_ decoded: consuming DecodedLines) {
        condition.lock()
        defer { condition.unlock() }
        recycled.append(decoded)
        condition.broadcast()
    }

    /// Ends the thread once it is idle.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func work() {
        condition.lock()
        while true {
            while nextJob >= jobs.count || doneLines >= Self.maxAheadLines || paused, recycled.isEmpty,
                !stopped
            {
                condition.wait()
            }
            if !recycled.isEmpty {
                // Destroyed outside the lock: the loop may hand over more meanwhile.
                var garbage: [DecodedLines] = []
                swap(&garbage, &recycled)
                condition.unlock()
                garbage = []
                condition.lock()
                continue
            }
            guard nextJob < jobs.count, !paused, var taken = decoder else { break }
            // The thread keeps the lines only while it decodes them.
            let index = nextJob
            let lines = jobs[index]
            jobs[index] = LineBlock()
            nextJob += 1
            let crashText = crashText
            decoder = nil
            condition.unlock()
            let decoded = DecodedLines.decode(lines, with: &taken, crashText: crashText)
            condition.lock()
            decoder = taken
            doneLines += decoded.entries.count
            done[index] = decoded
            condition.broadcast()
        }
        condition.unlock()
    }
}
