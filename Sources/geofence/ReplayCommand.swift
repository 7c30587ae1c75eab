import Foundation
import Geofence
import GeofenceInput
import GeofenceRules

/// `geofence replay RULES INPUT`: runs recorded fixes and visits through the filter, visit
/// detection, the monitor and the rules, and prints every event and every action that would fire.
/// Nothing is executed: no hook runs, no log file is written.
enum ReplayCommand: Command {
    static let verbose = Option.flag(
        "--verbose", "-v", help: "also print each fix the filter drops, with the reason")
    static let threads = Option(
        "--threads", value: "N",
        help: "JSON lines decoded on N threads (on the reading one alone while the devices' are behind) "
            + "and devices processed on half as many, at least one "
            + "(with N of 2 or 3, the output written on one more; default: the processors, at most 8); "
            + "the output is the same for every N",
        parse: ValueParser.count)

    /// Records per batch: large enough that handing a batch to the threads costs little per record,
    /// small enough that output follows input closely.
    static let batchSize = 4096
    /// Records whose outputs are made and printed together: a batch's outputs wait until the last
    /// is made, and a record can make an event for every place (ten thousand devices starting
    /// together make twenty each, about 6 KiB a record), so an eighth of a batch at a time keeps
    /// that memory an eighth (3 MB, a third of a KiB per device of that fleet), while still
    /// handing the threads enough records that the hand-over costs little.
    static let outputChunk = 512

    static let definition = CommandDefinition(
        name: "replay", summary: "run recorded fixes through the rules; print events and actions",
        arguments: [
            Positional(name: "RULES", help: "the rules file"),
            Positional(name: "INPUT", help: "a file of fixes or visits, or - for standard input"),
        ],
        options: [SharedOptions.table.erased, SharedOptions.timeZone.erased] + SharedOptions.reading + [
            verbose.erased, threads.erased,
        ],
        discussion: """
            Nothing is executed: no hook runs, no log file is written. Every event and every action \
            that would fire is printed, as NDJSON or, with --table, for a person in the display zone.
            """)

    static func run(_ arguments: ParsedArguments) throws {
        guard let rulesPath = arguments.positional("RULES"), let inputPath = arguments.positional("INPUT")
        else { return }
        let format = arguments.value(SharedOptions.format) ?? .auto
        let inputTimeZone = arguments.value(SharedOptions.inputTimeZone) ?? .gmt
        let verbose = arguments.flag(Self.verbose)
        let threadCount =
            arguments.value(Self.threads) ?? min(8, max(1, ProcessInfo.processInfo.activeProcessorCount))
        guard threadCount <= 64 else {
            throw CommandError(message: "--threads wants a number from 1 to 64", status: 2)
        }
        var reader = RecordReader(path: inputPath, format: format, timeZone: inputTimeZone)
        // A file's JSON lines are decoded on every thread.
        reader.decodingThreads = threadCount
        // A file is read and decoded on a thread of its own, from here on: its first batches are
        // ready while the rules load (which takes a few milliseconds a copy, most of them in
        // the polygons), rather than after. Should the rules fail, the reading is stopped.
        let batches =
            inputPath == "-" ? nil : RecordBatches(reader: reader, batchSize: ReplayCommand.batchSize)
        // Devices are processed on half the threads (shards), at least one: decoding a line costs
        // about what processing it does, and the decoding goes on beside the processing. On two
        // cores, one shard with two decoding threads took 0.93 of the time and 0.91 of the
        // processor time of two shards for 1,000 devices, and 0.96 and 0.86 for 10,000 (paired
        // runs), where threads handing every batch over to each other cost more than they gave.
        let shardCount = max(1, threadCount / 2)
        // One copy of the rules per shard: each owns its polygons' GEOS contexts. The copies are
        // loaded at once, each on a thread.
        let loads = RulesLoads(count: shardCount)
        DispatchQueue.concurrentPerform(iterations: shardCount) { copy in
            loads.set(copy, RulesLoader.load(path: rulesPath))
        }
        var copies: [RulesFile] = []
        for result in loads.results {
            switch result {
            case .success(let loaded)?: copies.append(loaded)
            case .failure(let error)?:
                batches?.stop()
                throw CommandError(
                    message: "\(error)\nthe rules have errors; nothing was replayed", status: 1,
                    prefixed: false)
            case nil: preconditionFailure("every copy of the rules was loaded")
            }
        }
        let rules = copies[0]
        var pipeline = ShardedPipeline(rules: copies)
        // Standard input may be live: its output is written as each record is answered. A file's
        // is written a buffer at a time.
        let printer = ReplayPrinter(
            table: arguments.flag(SharedOptions.table),
            timeZone: DisplayZone.resolve(arguments, rules: rules),
            buffered: inputPath != "-")
        // Whatever ends the replay, an error reading the input included, what was printed is written.
        defer { printer.flush() }
        var summary = ReplaySummary()
        printer.header()
        // Records are processed in batches, the devices of a batch in parallel; the outputs come
        // back in input order.
        //
        // Each output is rendered, its lines and what it adds to the counts, on the thread of its
        // device's shard; only the writing, in order, is left to this one.
        //
        // With one shard and another thread allowed, an output that prints something is rendered,
        // printed and counted on a thread of its own instead (see ``BackgroundPrinter``), but for
        // a file only: standard input may be live, and its output is written as each record is
        // answered.
        let background =
            batches != nil && shardCount == 1 && threadCount > 1 ? BackgroundPrinter(printer: printer) : nil
        // Whatever ends the replay, what was handed over is printed before the flush above.
        defer { _ = background?.finish() }
        @Sendable func render(
            _ position: Int, _ output: consuming PipelineOutput?, of batch: [InputRecord]
        ) -> RenderedRecord {
            // Moved out of the optional, not copied: a copy of an output, and the destruction of
            // the original after, went through its type's runtime witnesses for every record.
            guard let output = consume output else {
                return RenderedRecord(lines: nil, counts: RecordCounts(ignored: true))
            }
            var lines = printer.lines(of: output)
            if let reason = output.dropped, verbose, let fix = batch[position].fix {
                var dropped = Array(printer.droppedText(fix, reason: reason).utf8)
                if let lines {
                    dropped.append(UInt8(ascii: "\n"))
                    dropped.append(contentsOf: lines)
                }
                lines = dropped
            }
            return RenderedRecord(lines: lines, counts: RecordCounts(output))
        }
        func process(_ batch: [InputRecord]) {
            // The batch is counted apart and added to `summary` at its end: `summary` is shared with
            // the reader's escaping closures, so every access to it would be checked at run time.
            var counts = ReplaySummary()
            defer { summary.add(counts) }
            var start = batch.startIndex
            while start < batch.endIndex {
                let end = min(start + ReplayCommand.outputChunk, batch.endIndex)
                if let background {
                    // One shard: each output comes here as it is made, in order.
                    pipeline.process(batch, in: start..<end, arrivedAt: nil) { position, output in
                        guard let output = consume output else {
                            counts.ignored += 1
                            return
                        }
                        // What prints nothing is counted here, with no rendering; a dropped
                        // fix's line, with `--verbose`, needs the record, and is rendered here.
                        let droppedLine = verbose && output.dropped != nil
                        if output.isBare, !droppedLine {
                            return counts.count(dropped: output.dropped)
                        }
                        if !droppedLine { return background.add(output: output) }
                        let rendered = render(position, output, of: batch)
                        counts.add(rendered.counts)
                        if let lines = rendered.lines { background.add(lines: lines) }
                    }
                    background.send()
                } else {
                    pipeline.process(
                        batch, in: start..<end, arrivedAt: nil,
                        render: { position, output in render(position, output, of: batch) },
                        each: { _, rendered in
                            counts.add(rendered.counts)
                            if let lines = rendered.lines { printer.write(lines) }
                        })
                }
                start = end
            }
        }
        // What stdout holds is written before anything goes to stderr, so that the two streams
        // interleave on a terminal as they did unbuffered.
        func report(_ failure: RecordError) {
            summary.errors += 1
            background?.drain()
            printer.flush()
            FileHandle.standardError.write(Data("geofence: \(failure)\n".utf8))
        }
        func remark(_ note: String) {
            background?.drain()
            printer.flush()
            FileHandle.standardError.write(Data("geofence: \(reader.source): \(note)\n".utf8))
        }
        let tally: InputTally
        if let batches {
            // The file's batches, read while the last one is processed. Unreadable lines and
            // remarks are reported as their batch is processed.
            tally = try batches.take(report: report, remark: remark, each: process)
        } else {
            // Standard input may be live: each record is answered as it comes.
            tally = try reader.read(record: { process([$0]) }, error: report, note: remark)
        }
        if let background { summary.add(background.finish()) }
        for output in pipeline.finish() {
            summary.count(output)
            printer.print(output)
        }
        printer.footer(summary.latencyText)
        printer.flush()
        // One summary line: what replay decided, then what the input gave (lines, fixes, fixes used).
        FileHandle.standardError.write(
            Data("geofence: \(summary); read \(InputSummary.line(tally, dropped: summary.dropped))\n".utf8))
        try InputSummary.requireSomethingRead(tally)
    }
}

/// What one record's output comes to in replay, made on the thread that processed the record:
/// the text printed for it and what it adds to the summary.
struct RenderedRecord {
    /// The record's lines (UTF-8) joined by newlines; `nil` when it prints nothing.
    var lines: [UInt8]?
    var counts: RecordCounts
}

/// What one record adds to a ``ReplaySummary``: a few numbers, so that counting a record costs no
/// dictionary (a record is dropped for one reason at most).
struct RecordCounts {
    var dropped: FixFilter.Reason?
    var events = 0
    var actions = 0
    var commutes = 0
    /// A record that moves nothing.
    var ignored = false
    /// Seconds from each crossing (enter or exit, not first determinations) to its confirmation.
    var latencies: [Double] = []

    init(ignored: Bool) {
        self.ignored = ignored
    }

    init(_ output: PipelineOutput) {
        dropped = output.dropped
        guard !output.isBare else { return }
        // Each event is read where it lies and its transition matched by case: `for event in`
        // copied every event (a retain and a release of each of its strings), and `==` on a
        // transition compared the two raw-value strings (the standard library's `==` for
        // raw-representable types is the one chosen), about 500 instructions for each of a
        // fleet's first determinations.
        let placeEvents = output.placeEvents
        for index in placeEvents.indices {
            switch placeEvents[index].transition {
            case .enter, .exit:
                latencies.append(placeEvents[index].confirmedAt.timeIntervalSince(placeEvents[index].date))
            default: break
            }
        }
        events = placeEvents.count
        actions = output.actions.count
        commutes = output.commutes.count
    }
}

/// Counts for the line replay prints on standard error at the end.
struct ReplaySummary: CustomStringConvertible {
    var dropped: [FixFilter.Reason: Int] = [:]
    var events = 0
    var actions = 0
    var commutes = 0
    var errors = 0
    var ignored = 0
    /// Seconds from each crossing (enter or exit, not first determinations) to its confirmation.
    var latencies: [Double] = []

    mutating func count(_ output: PipelineOutput) {
        add(RecordCounts(output))
    }

    /// Counts a record whose output is bare (see ``PipelineOutput/isBare``), dropped for `reason`
    /// if any: all ``add(_:)`` would count of it.
    mutating func count(dropped reason: FixFilter.Reason?) {
        if let reason { dropped[reason, default: 0] += 1 }
    }

    /// Adds what one record's output counts.
    mutating func add(_ record: RecordCounts) {
        if let reason = record.dropped { dropped[reason, default: 0] += 1 }
        events += record.events
        actions += record.actions
        commutes += record.commutes
        if record.ignored { ignored += 1 }
        if !record.latencies.isEmpty { latencies += record.latencies }
    }

    /// Adds the counts of another part of the replay.
    mutating func add(_ other: ReplaySummary) {
        dropped.merge(other.dropped, uniquingKeysWith: +)
        events += other.events
        actions += other.actions
        commutes += other.commutes
        errors += other.errors
        ignored += other.ignored
        latencies += other.latencies
    }

    var description: String {
        let drops = dropped.sorted { $0.key.rawValue < $1.key.rawValue }.map {
            "\($0.key.rawValue) \($0.value)"
        }
        let dropText = drops.isEmpty ? "" : " (" + drops.joined(separator: ", ") + ")"
        return "replayed: \(events) events, \(actions) actions, \(commutes) commutes; "
            + "\(dropped.values.reduce(0, +)) fixes dropped by the filter\(dropText), \(errors) unreadable lines, "
            + "\(ignored) records that move nothing; " + latencyText
    }

    /// The price of the hysteresis: median and worst time from a crossing to its confirmation.
    var latencyText: String {
        guard !latencies.isEmpty else { return "no crossings to confirm" }
        let sorted = latencies.sorted()
        let middle = sorted.count / 2
        let median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        return "confirmation latency median \(TimeText.duration(median)), "
            + "worst \(TimeText.duration(sorted.last ?? 0)) over \(sorted.count) crossings"
    }
}

/// The copies of the rules loaded on several threads at once, each into its own place.
private final class RulesLoads: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var results: [Result<RulesFile, RulesFileError>?]

    init(count: Int) {
        results = Array(repeating: nil, count: count)
    }

    func set(_ copy: Int, _ result: Result<RulesFile, RulesFileError>) {
        lock.lock()
        defer { lock.unlock() }
        results[copy] = result
    }
}
