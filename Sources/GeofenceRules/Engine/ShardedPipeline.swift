import Dispatch
public import Foundation
import Geofence
public import GeofenceInput

/// Several ``Pipeline``s, each owning a fixed share of the devices, run on as many threads.
///
/// Devices are independent: what one device's record produces depends only on that device's
/// earlier records and the rules (the devices of a person who shares rules across them, see
/// ``People/sharingPerson(ofDevice:)``, are one unit and go to one shard). So a batch of records can be split by device, each share
/// processed in its own order on its own thread, and the outputs put back in the batch's order:
/// the result is exactly what one pipeline gives for the same records, whatever the number of
/// shards (each device's order is kept, and the output order is the input order).
///
/// A device always goes to the same shard (a fixed hash of its name, not Swift's seeded one), and
/// each shard's rules are loaded separately, so that no polygon's GEOS context is shared between
/// threads (GEOS contexts and prepared geometries are not thread-safe; each polygon locks its own,
/// which would serialise the shards).
public struct ShardedPipeline: Sendable {
    /// The pipelines, one per shard.
    public private(set) var shards: [Pipeline]
    /// How many records ahead each shard asks the processor's caches for a device's engine (see
    /// ``Pipeline/process(recordsAt:positions:hashes:arrivedAt:prefetchDistance:fleet:each:)``); 0 asks
    /// nothing. The output is the same for every distance: tests and benchmarks compare them.
    @usableFromInline package var prefetchDistance = Pipeline.prefetchDistance
    /// How many devices a shard holds before it looks ahead at all (see
    /// ``Pipeline/prefetchFleet``).
    @usableFromInline package var prefetchFleet = Pipeline.prefetchFleet

    /// Makes `rules.count` shards, one per copy of the rules (load the rules once per shard).
    public init(rules: [RulesFile]) {
        precondition(!rules.isEmpty, "at least one shard")
        shards = rules.map { Pipeline(rules: $0) }
    }

    /// Processes the records of `range` on one shard's pipeline, on the calling thread, handing
    /// each record's position and rendering to `body` in order (see
    /// ``process(_:in:arrivedAt:render:each:)``); `hashes`, by position from the range's start,
    /// are the hashes of the names the records give, if known.
    @inlinable
    mutating func processOnOneShard<Rendered: Sendable>(
        _ shard: Int, _ records: [InputRecord], in range: Range<Int>, hashes: [UInt64]?, arrivedAt: Date?,
        render: @Sendable (_ position: Int, _ output: consuming PipelineOutput?) -> Rendered,
        each body: (_ position: Int, _ rendered: consuming Rendered) -> Void
    ) {
        let distance = prefetchDistance
        let fleet = prefetchFleet
        records.withUnsafeBufferPointer { records in
            guard let base = records.baseAddress else { return }
            processOnShard(
                shard, recordsAt: base, positions: Array(range), hashes: hashes, arrivedAt: arrivedAt,
                prefetchDistance: distance, fleet: fleet
            ) { position, output in
                body(position, render(position, output))
            }
        }
    }

    /// The shard a device belongs to: FNV-1a of its name, so the split is the same on every run.
    public static func shard(ofDevice name: String, count: Int) -> Int {
        guard count > 1 else { return 0 }
        return shard(ofHash: DeviceDirectory.hash(name), count: count)
    }

    /// The shard of a device whose name's ``DeviceDirectory/hash(_:)`` is `hash`, among `count`.
    static func shard(ofHash hash: UInt64, count: Int) -> Int {
        Int(hash % UInt64(count))
    }

    /// The device a record names, as it names it (before the rules' `people:` give the device's
    /// own name); `nil` for a record that moves nothing.
    static func givenDevice(of record: UnsafePointer<InputRecord>) -> String? {
        switch record.pointee {
        case .fix(let fix): Pipeline.givenDevice(deviceId: fix.deviceId, label: fix.label)
        case .visit: Pipeline.defaultDevice
        case .transition(let transition):
            Pipeline.givenDevice(deviceId: transition.deviceId, label: transition.label)
        case .ignored: nil
        }
    }

    /// Processes a batch of records, the shards in parallel, and returns each record's output in
    /// the batch's order (`nil` for a record that moves nothing), as one pipeline would.
    public mutating func process(_ records: [InputRecord], arrivedAt: Date?) -> [PipelineOutput?] {
        process(records, in: records.indices, arrivedAt: arrivedAt)
    }

    /// Processes the records of `range` as ``process(_:arrivedAt:)`` processes a batch, returning
    /// their outputs in order: a caller holding a large batch can have its outputs a part at a
    /// time without copying the part out.
    public mutating func process(
        _ records: [InputRecord], in range: Range<Int>, arrivedAt: Date?
    ) -> [PipelineOutput?] {
        var outputs: [PipelineOutput?] = []
        outputs.reserveCapacity(range.count)
        process(records, in: range, arrivedAt: arrivedAt) { _, output in outputs.append(output) }
        return outputs
    }

    /// Processes the records of `range` as ``process(_:arrivedAt:)`` processes a batch, handing
    /// each record's position in `records` and its output (`nil` for a record that moves nothing)
    /// to `body`, in the batch's order.
    ///
    /// Nothing is gathered when one shard does all the work (one thread, or a batch of one
    /// device): each output goes to `body` as it is made and is gone when `body` returns, so that
    /// a record costs no array and no copy of its output.
    public mutating func process(
        _ records: [InputRecord], in range: Range<Int>, arrivedAt: Date?,
        each body: (_ position: Int, _ output: consuming PipelineOutput?) -> Void
    ) {
        process(records, in: range, arrivedAt: arrivedAt, render: { _, output in output }, each: body)
    }

    /// Processes the records of `range` as ``process(_:in:arrivedAt:each:)`` does, but each output
    /// is first turned into what the caller makes of it (the lines it prints, the counts it keeps)
    /// by `render`, on the thread of the record's shard; `body` then has the results on the
    /// calling thread, in the batch's order.
    ///
    /// With many devices, what a caller makes of their outputs can cost as much as making them (a
    /// fleet's first determinations are an event for every place of every device); rendered on
    /// the shards' threads, that work is shared out too, and the calling thread only puts the
    /// results in order. `render` is called for every record of the range, once, with its
    /// position in `records` (a record that moves nothing gets `nil`), on any thread, several at a
    /// time: it must not touch what another call could.
    ///
    /// Inlinable, so that the caller's module specialises it for its own `Rendered`: run as
    /// unspecialised generic code, every result was moved and tested through its type's
    /// witnesses, and one device's replay took 1.18 times as long.
    @inlinable
    public mutating func process<Rendered: Sendable>(
        _ records: [InputRecord], in range: Range<Int>, arrivedAt: Date?,
        render: @Sendable (_ position: Int, _ output: consuming PipelineOutput?) -> Rendered,
        each body: (_ position: Int, _ rendered: consuming Rendered) -> Void
    ) {
        // The records are read through a pointer below, where a subscript would have checked.
        precondition(
            range.lowerBound >= records.startIndex && range.upperBound <= records.endIndex,
            "the range lies within the records")
        let count = shards.count
        let first = range.lowerBound
        // Each record is read where it lies in the batch: passed as a value, even borrowed, it was
        // copied for the call (a whole record, with a retain and a release of each of its strings,
        // about 250 instructions a record; see ``Pipeline/process(recordAt:arrivedAt:)``).
        // One shard: the pipeline hashes the names itself, once a device.
        if count == 1 {
            processOnOneShard(
                0, records, in: range, hashes: nil, arrivedAt: arrivedAt, render: render, each: body)
            return
        }
        let (owners, hashes) = owners(of: records, in: range, count: count)
        // A batch whose records all go to one shard (one device, or a few that hash alike) is
        // processed here: handing it to a thread would only add the hand-over.
        // Counted with a flag per shard: a set of the owners cost a hash for every record.
        var seen = [Bool](repeating: false, count: count)
        var busyCount = 0
        var lastBusy = 0
        for owner in owners where owner >= 0 && !seen[owner] {
            seen[owner] = true
            busyCount += 1
            lastBusy = owner
        }
        if busyCount <= 1 {
            // The records that move nothing go through the pipeline too, which answers `nil`.
            processOnOneShard(
                lastBusy, records, in: range, hashes: hashes, arrivedAt: arrivedAt, render: render, each: body
            )
            return
        }
        // The results wait in memory of their own, a part for each shard in which it puts its
        // records' results one after the other, and they are moved out below in the batch's
        // order: an array of optionals was filled with `nil` first (a `memset` of the whole
        // chunk) and each result moved out of its optional again; and with one part for all, in
        // the records' order, neighbouring results of different shards shared cache lines, which
        // went back and forth between the cores at every write.
        var firsts = [Int](repeating: 0, count: count + 1)
        for owner in owners where owner >= 0 { firsts[owner + 1] += 1 }
        for shard in 0..<count { firsts[shard + 1] += firsts[shard] }
        let merged = UnsafeMutablePointer<Rendered>.allocate(capacity: max(1, firsts[count]))
        defer { merged.deallocate() }
        // The box becomes the pipelines' only owner, and each thread moves its own out of it, so
        // that no device dictionary is copied on write. Each thread writes its records' results
        // into its own part of `merged`: the parts are disjoint, so no lock is needed.
        let box = lendShards()
        let slots = OutputSlots(base: merged)
        let distance = prefetchDistance
        let fleet = prefetchFleet
        DispatchQueue.concurrentPerform(iterations: count) { [firsts] shard in
            var pipeline = box.take(shard: shard)
            var next = slots.base + firsts[shard]
            records.withUnsafeBufferPointer { records in
                guard let base = records.baseAddress else { return }
                let mine = owners.indices.filter { owners[$0] == shard }
                pipeline.process(
                    recordsAt: base, positions: mine.map { first + $0 }, hashes: mine.map { hashes[$0] },
                    arrivedAt: arrivedAt, prefetchDistance: distance, fleet: fleet
                ) { position, output in
                    next.initialize(to: render(position, output))
                    next += 1
                }
            }
            box.put(shard: shard, pipeline: pipeline)
        }
        takeBackShards(from: box)
        // Each result is moved out to `body`, not copied, from its shard's part, in turn; a
        // record that moves nothing was left to here. Every result was initialised: a record's
        // owner is one of the shards, and each shard wrote the results of all its records.
        var taken = firsts
        for slot in owners.indices {
            let position = first + slot
            let owner = owners[slot]
            if owner < 0 {
                body(position, render(position, nil))
            } else {
                body(position, (merged + taken[owner]).move())
                taken[owner] += 1
            }
        }
    }

    /// The shard of each record's device in `range` (-1 for a record that moves nothing), by
    /// position from the range's start, among `count` shards (more than one: one shard hashes
    /// the names in its pipeline, once a device). Consecutive records
    /// are usually of one device, so the name a record gives is compared with the last one's, and
    /// only a new one is looked up in the rules' `people:` and hashed. The records are read where
    /// they lie, not copied out.
    ///
    /// With them, at the same positions, the ``DeviceDirectory/hash(_:)`` of the name each record
    /// gives, which the shard's pipeline finds the device by: had here, where the shard is chosen
    /// by the same hash when the name is the device's own, it is not made again there.
    @usableFromInline
    func owners(of records: [InputRecord], in range: Range<Int>, count: Int) -> (
        shards: [Int], hashes: [UInt64]
    ) {
        var owner = [Int](repeating: -1, count: range.count)
        var hashes = [UInt64](repeating: 0, count: range.count)
        let people = shards[0].rules.people
        var lastName: String?
        var lastShard = -1
        var lastHash: UInt64 = 0
        records.withUnsafeBufferPointer { records in
            guard let base = records.baseAddress else { return }
            for index in range {
                guard let name = ShardedPipeline.givenDevice(of: base + index) else { continue }
                if name != lastName {
                    // A person's devices that share their rules go together, to the person's shard.
                    let device = people.device(name)
                    let unit = people.sharingPerson(ofDevice: device) ?? device
                    lastHash = DeviceDirectory.hash(name)
                    let unitHash = unit == name ? lastHash : DeviceDirectory.hash(unit)
                    lastShard = ShardedPipeline.shard(ofHash: unitHash, count: count)
                    lastName = name
                }
                owner[index - range.lowerBound] = lastShard
                hashes[index - range.lowerBound] = lastHash
            }
        }
        return (owner, hashes)
    }

    /// ``Pipeline/process(recordsAt:positions:hashes:arrivedAt:prefetchDistance:fleet:each:)`` on one
    /// shard's pipeline, on the calling thread.
    @usableFromInline
    mutating func processOnShard(
        _ shard: Int, recordsAt base: UnsafePointer<InputRecord>, positions: [Int], hashes: [UInt64]?,
        arrivedAt: Date?, prefetchDistance: Int, fleet: Int,
        each body: (_ position: Int, _ output: consuming PipelineOutput?) -> Void
    ) {
        shards[shard].process(
            recordsAt: base, positions: positions, hashes: hashes, arrivedAt: arrivedAt,
            prefetchDistance: prefetchDistance, fleet: fleet, each: body)
    }

    /// Hands the pipelines to a box that becomes their only owner while the shards' threads run.
    @usableFromInline
    mutating func lendShards() -> ShardBox {
        let box = ShardBox(pipelines: shards)
        shards = []
        return box
    }

    /// Takes the pipelines back once every thread has put its own back.
    @usableFromInline
    mutating func takeBackShards(from box: ShardBox) {
        shards = box.finish()
    }

    /// Ends the input for every shard; outputs in device-name order, as one pipeline gives them.
    public mutating func finish() -> [PipelineOutput] {
        var outputs: [PipelineOutput] = []
        for shard in shards.indices { outputs += shards[shard].finish() }
        return outputs.sorted { $0.device < $1.device }
    }
}

/// The pipelines while the shards' threads run: each thread takes its own out and puts it back,
/// behind one lock.
@usableFromInline
final class ShardBox: @unchecked Sendable {
    private let lock = NSLock()
    private var pipelines: [Pipeline?]

    init(pipelines: [Pipeline]) {
        self.pipelines = pipelines
    }

    @usableFromInline
    func take(shard: Int) -> Pipeline {
        lock.lock()
        defer { lock.unlock() }
        guard let pipeline = pipelines[shard] else { preconditionFailure("shard \(shard) taken twice") }
        pipelines[shard] = nil
        return pipeline
    }

    @usableFromInline
    func put(shard: Int, pipeline: Pipeline) {
        lock.lock()
        defer { lock.unlock() }
        pipelines[shard] = pipeline
    }

    func finish() -> [Pipeline] {
        lock.lock()
        defer { lock.unlock() }
        let all = pipelines.compactMap { $0 }
        precondition(all.count == pipelines.count, "every shard put its pipeline back")
        pipelines = []
        return all
    }
}

/// The batch's results while the shards' threads fill them: each writes only its own part,
/// which no other thread touches, and `concurrentPerform` returns only when all are done, so the
/// writes need no lock.
@usableFromInline
struct OutputSlots<Rendered>: @unchecked Sendable {
    @usableFromInline
    let base: UnsafeMutablePointer<Rendered>

    @usableFromInline
    init(base: UnsafeMutablePointer<Rendered>) {
        self.base = base
    }
}
