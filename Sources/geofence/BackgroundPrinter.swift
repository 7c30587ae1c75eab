import Foundation
import GeofenceRules

/// Renders and prints replay's outputs on a thread of its own, in the order they are handed
/// over, while the pipeline's thread goes on with the next records.
///
/// A fleet's first determinations are an event for every place of every device: for 10,000
/// devices, 200,000 event lines within some 10,000 records. `perf` put them at a quarter of the
/// run's time, with the pipeline's thread rendering for half of it while the threads that read
/// and decode waited on a full queue: the second core had nothing to do. Rendered here, the lines
/// are written on that core while the pipeline's thread decides the next records (`farm-bench`,
/// 25 pairs: 10,000 devices 0.95 of the time, one device 0.98; rendering all the lines nowhere
/// at all, as a bound, gave 0.89).
///
/// One thread hands over (``add(output:)``, ``add(lines:)``, ``send()``), in order; the printer
/// is this one's until ``drain()`` or ``finish()`` returns, both of which wait until everything
/// handed over is written. What waits is bounded (``limit``), so a burst costs little memory.
final class BackgroundPrinter: @unchecked Sendable {
    /// What is printed for a record, in order.
    enum Item {
        /// Lines already rendered (UTF-8, joined by newlines, without the last).
        case lines([UInt8])
        /// An output to render, print and count here.
        case output(PipelineOutput)
    }

    /// How much may wait, counted in events and outputs, before ``send()`` waits for room, so
    /// that a burst's outputs do not pile up (1,024 events are about 200 KB; the peak resident
    /// memory of 10,000 devices' replay grew by about 0.6 MB with the printer, one device's by
    /// 0.3 MB).
    static let limit = 1024
    /// How much ``add(output:)`` and ``add(lines:)`` gather before they hand it over.
    static let gathered = 256

    private let printer: ReplayPrinter
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var queue: [(items: [Item], weight: Int)] = []
    private var waiting = 0
    private var printing = false
    private var finished = false
    private var counts = ReplaySummary()
    // The handing thread's own.
    private var gathering: [Item] = []
    private var gatheredWeight = 0

    /// Starts the printing thread, which prints through `printer`.
    init(printer: ReplayPrinter) {
        self.printer = printer
        let thread = Thread { [self] in printAll() }
        // Rendering goes a few calls deep (the JSON encoder, for a line the direct writer leaves
        // to it, included): a megabyte is ample, under the sanitizers' larger frames too.
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Gathers an output to render, print and count, handing over what was gathered once it is
    /// enough.
    func add(output: consuming PipelineOutput) {
        gatheredWeight += 1 + output.placeEvents.count
        gathering.append(.output(output))
        if gatheredWeight >= Self.gathered { send() }
    }

    /// Gathers lines rendered already, as ``add(output:)`` gathers an output.
    func add(lines: [UInt8]) {
        gatheredWeight += 1
        gathering.append(.lines(lines))
        if gatheredWeight >= Self.gathered { send() }
    }

    /// Hands over what was gathered, waiting while too much waits.
    func send() {
        guard !gathering.isEmpty else { return }
        condition.lock()
        while waiting > 0, waiting + gatheredWeight > Self.limit { condition.wait() }
        queue.append((gathering, gatheredWeight))
        waiting += gatheredWeight
        condition.broadcast()
        condition.unlock()
        gathering = []
        gatheredWeight = 0
    }

    /// Hands over what was gathered and waits until everything is printed: the printer is then
    /// the caller's until the next ``add(output:)`` or ``add(lines:)``.
    func drain() {
        send()
        condition.lock()
        while !queue.isEmpty || printing { condition.wait() }
        condition.unlock()
    }

    /// ``drain()``, then stops the printing thread; returns what the outputs it printed count.
    func finish() -> ReplaySummary {
        drain()
        condition.lock()
        defer { condition.unlock() }
        finished = true
        condition.broadcast()
        return counts
    }

    private func printAll() {
        while true {
            condition.lock()
            while queue.isEmpty, !finished { condition.wait() }
            guard !queue.isEmpty else {
                condition.unlock()
                return
            }
            let (items, weight) = queue.removeFirst()
            printing = true
            condition.unlock()
            var printed = ReplaySummary()
            for item in items {
                switch item {
                case .lines(let lines):
                    printer.write(lines)
                case .output(let output):
                    printed.add(RecordCounts(output))
                    if let lines = printer.lines(of: output) { printer.write(lines) }
                }
            }
            condition.lock()
            counts.add(printed)
            waiting -= weight
            printing = false
            condition.broadcast()
            condition.unlock()
        }
    }
}
