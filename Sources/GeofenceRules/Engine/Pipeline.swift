import CPrefetch
public import Foundation
public import Geofence
public import GeofenceInput

/// Everything the engine knows about one device: its monitor (with the fix filter), its visit
/// detector, and what the rules remember. Saved whole, so a restart goes on where it stopped.
///
/// A pipeline's devices are the values of one dictionary, whose storage holds each of them inline,
/// with room for a third more: the visit detector, several hundred bytes that rules without visits
/// never use, is kept out of line.
public struct DeviceEngine: Sendable, Codable {
    /// The monitor, whose filter every fix passes first.
    public var monitor: MonitorEngine
    /// The stay-point detector, when the rules use visits.
    public var detector: VisitDetector? {
        get { detectorBox?.detector }
        set { detectorBox = newValue.map(DetectorBox.init) }
    }
    /// Cooldowns, reminders, stays and commutes: the device's own, or, for a device of a person
    /// `people:` gives several, a copy of the person's that every one of their devices holds.
    public var rules: RuleState
    /// Place → arrival of the visit going on there, to pair visit starts and ends.
    var openVisits: [String: Date] = [:]
    private var detectorBox: DetectorBox?

    /// A visit detector kept out of line (it is several hundred bytes), shared by copies of the
    /// engine until one of them changes it.
    private final class DetectorBox: @unchecked Sendable {
        /// Unchecked: changed only while one engine holds the box (`updateDetector`), so accesses
        /// never overlap, and the dynamic check would cost every fix.
        @exclusivity(unchecked) var detector: VisitDetector
        init(_ detector: VisitDetector) { self.detector = detector }
    }

    init(monitor: MonitorEngine, detector: VisitDetector?, rules: RuleState) {
        self.monitor = monitor
        self.rules = rules
        self.detector = detector
    }

    /// Runs `body` on the detector where it is stored, copying it first if another copy of the
    /// engine shares it (a new box for every fix would be an allocation a fix); `nil` without one.
    mutating func updateDetector<Result>(_ body: (inout VisitDetector) -> Result) -> Result? {
        // Uniqueness is asked before anything else holds the box: a reference bound first would
        // make the box look shared, and every fix would copy the detector into a new one.
        if !isKnownUniquelyReferenced(&detectorBox), let shared = detectorBox {
            detectorBox = DetectorBox(shared.detector)
        }
        guard let box = detectorBox else { return nil }
        return body(&box.detector)
    }

    private enum CodingKeys: String, CodingKey {
        case monitor, detector, rules, openVisits
    }

    /// Decodes an engine saved by any version (the keys are those of its first form).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        monitor = try c.decode(MonitorEngine.self, forKey: .monitor)
        rules = try c.decode(RuleState.self, forKey: .rules)
        openVisits = try c.decode([String: Date].self, forKey: .openVisits)
        detector = try c.decodeIfPresent(VisitDetector.self, forKey: .detector)
    }

    /// Encodes the engine with the keys, and in the order, it always had.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(monitor, forKey: .monitor)
        try c.encodeIfPresent(detector, forKey: .detector)
        try c.encode(rules, forKey: .rules)
        try c.encode(openVisits, forKey: .openVisits)
    }
}

/// The whole saved state of a ``Pipeline``: every device and the engine-level rule state.
public struct PipelineState: Sendable, Codable {
    /// Device id → its engine.
    public var devices: [String: DeviceEngine] = [:]
    /// What the rules remember about engine events (which belong to no device).
    public var engine = RuleState()

    /// An empty state.
    public init() {}
}

/// What one input record or engine event produced.
///
/// Most fixes produce nothing, so the lists are kept together in one optional part that is there
/// only once something is put in one of them: an output that holds nothing is made, moved and
/// destroyed without a reference count for each of its seven lists (they were most of what a fix
/// cost after the monitor).
public struct PipelineOutput: Sendable {
    /// The device it concerned.
    public var device: String
    /// Why the fix filter dropped the fix, if it did.
    public var dropped: FixFilter.Reason?
    /// The person whose rules the device shares with their other devices
    /// (``People/sharingPerson(ofDevice:)``), or `nil` when its rules are its own.
    public var person: String?

    private struct Lists: Sendable {
        var events: [Event] = []
        var placeEvents: [PlaceEvent] = []
        var visits: [Visit] = []
        var actions: [FiredAction] = []
        var commutes: [CommuteRecord] = []
        var alsoChanged: [String] = []
        var determinedOutside: [String] = []
    }

    /// The lists, `nil` while every one of them is empty.
    private var lists: Lists?

    /// An output for `device` that holds nothing yet.
    public init(device: String) {
        self.device = device
    }

    /// The lists, made when first changed, changed where they are.
    private var changedLists: Lists {
        get { lists ?? Lists() }
        _modify {
            var changed = lists.take() ?? Lists()
            defer { lists = changed }
            yield &changed
        }
    }

    /// The monitor's raw events.
    public var events: [Event] {
        get { lists?.events ?? [] }
        _modify { yield &changedLists.events }
    }
    /// The monitor's events as the engine logs them, with what each means (enter, exit, a first
    /// determination...).
    public var placeEvents: [PlaceEvent] {
        get { lists?.placeEvents ?? [] }
        _modify { yield &changedLists.placeEvents }
    }
    /// Visits the detector reported.
    public var visits: [Visit] {
        get { lists?.visits ?? [] }
        _modify { yield &changedLists.visits }
    }
    /// Actions the rules fired, in order.
    public var actions: [FiredAction] {
        get { lists?.actions ?? [] }
        _modify { yield &changedLists.actions }
    }
    /// Commutes that completed or were abandoned.
    public var commutes: [CommuteRecord] {
        get { lists?.commutes ?? [] }
        _modify { yield &changedLists.commutes }
    }
    /// The person's other devices whose saved state changed with this record: each holds a copy
    /// of the person's rules, so they must be saved with this device's.
    public var alsoChanged: [String] {
        get { lists?.alsoChanged ?? [] }
        _modify { yield &changedLists.alsoChanged }
    }
    /// Places this device was first found outside of while its person is inside them: the
    /// person leaves them only if none of their other devices is inside either.
    var determinedOutside: [String] {
        get { lists?.determinedOutside ?? [] }
        _modify { yield &changedLists.determinedOutside }
    }

    /// Whether every list is empty, the engine's place events and the person's other devices
    /// included: the usual fix, which a caller can pass over without reading each list (a read
    /// of a list costs a reference count).
    public var isBare: Bool {
        guard let lists else { return true }
        return lists.events.isEmpty && lists.placeEvents.isEmpty && lists.visits.isEmpty
            && lists.actions.isEmpty && lists.commutes.isEmpty && lists.alsoChanged.isEmpty
            && lists.determinedOutside.isEmpty
    }

    /// Whether anything worth storing happened.
    public var isEmpty: Bool {
        guard let lists else { return true }
        return lists.events.isEmpty && lists.visits.isEmpty && lists.actions.isEmpty && lists.commutes.isEmpty
    }
}

/// Filter, visit detection, monitor and rules, one record at a time, for every device.
///
/// This is the one path that both `replay` and `run` use: the same records give the same
/// events and actions, live or replayed. It is deterministic: time comes from the records (the
/// wall clock only judges how stale a live fix is, through `arrivedAt`).
public struct Pipeline: Sendable {
    /// The checked rules.
    public private(set) var rules: RulesFile
    private var evaluator: RuleEvaluator
    /// The saved state.
    public private(set) var state: PipelineState

    /// The device name used when a record names none.
    public static let defaultDevice = "default"

    /// The device a record names, as it names it: its device id, else its label, else
    /// ``defaultDevice`` (the rules' `people:` then give the device's own name). One rule for the
    /// pipeline and for the shards, which must send a device's records where the pipeline keeps it.
    static func givenDevice(deviceId: String?, label: String?) -> String {
        deviceId ?? label ?? defaultDevice
    }

    /// A new device's engine, copied for each device: the copies share the conditions' definitions
    /// (polygons, hysteresis), so a device costs only its own state. It holds the places open to
    /// everyone (no `who:`); the people some place's `who:` names have their own, in `templates`.
    private var template: DeviceEngine
    /// Person → the template of their devices, for each person a place's `who:` names: a monitor
    /// holds only the places its device's person may use.
    private var templates: [String: DeviceEngine] = [:]
    /// Person → the places their devices' visits are matched against, for the same people; empty
    /// when no place has `who:`, so that a file without it pays nothing per fix.
    private var placesByPerson: [String: [Place]] = [:]
    /// The places of a person no `who:` names.
    private var everyonesPlaces: [Place] = []
    /// The device of the last fix, and where its engine is: fixes come mostly in runs of one
    /// device, and the next fix of the same device then finds its engine, its one name and its
    /// places without hashing its name.
    private var recent = RecentDevice()
    /// Where each device's engine is, by the name its fixes give, for devices that take turns.
    private var directory = DeviceDirectory()

    /// A device as a fix names it, resolved: see `recent`.
    private struct RecentDevice: Sendable {
        /// The name the fix gave (an alias `people:` declares, perhaps).
        var given = ""
        /// The device's one name.
        var name = ""
        /// Its engine's position in `state.devices`; `nil` when there is none to go by: it is
        /// forgotten whenever a device is added (which may move every engine, and makes positions
        /// taken before invalid) and when the rules change.
        var index: [String: DeviceEngine].Index?
        /// The places its visits are matched against.
        var places: [Place] = []
    }

    /// Makes a pipeline, going on from a saved state if there is one.
    public init(rules: RulesFile, state: PipelineState = PipelineState()) {
        self.rules = rules
        self.evaluator = RuleEvaluator(rules: rules)
        self.state = state
        // Set properly by `setTemplates()`, once every stored property has a value.
        self.template = Pipeline.template(for: rules, places: [])
        setTemplates()
    }

    /// A fresh engine for a device: the rules' places as conditions with their hysteresis (the
    /// places limited to other people with `who:` left out).
    public func newDevice(named name: String) -> DeviceEngine {
        var device =
            templates.isEmpty ? template : templates[rules.people.person(ofDevice: name)] ?? template
        device.monitor.name = name
        return device
    }

    /// Makes the templates of the people `who:` names, and the template for everyone else.
    private mutating func setTemplates() {
        everyonesPlaces = rules.places.filter { $0.who == nil }
        let named = Set(rules.places.flatMap { $0.who ?? [] })
        template = Pipeline.template(for: rules, places: everyonesPlaces)
        templates = [:]
        placesByPerson = [:]
        for person in named {
            let places = rules.places.filter { $0.who?.contains(person) ?? true }
            placesByPerson[person] = places
            templates[person] = Pipeline.template(for: rules, places: places)
        }
    }

    /// The places a device's visits are matched against: those its person may use.
    private func places(forDevice name: String) -> [Place] {
        Pipeline.places(
            forDevice: name, people: rules.people, all: rules.places, byPerson: placesByPerson,
            everyone: everyonesPlaces)
    }

    /// ``places(forDevice:)`` from the parts it reads: called from a mutating method, the method
    /// had the whole pipeline (1,168 bytes) copied to lend it `self`, for every record of an input
    /// whose devices take turns.
    private static func places(
        forDevice name: String, people: People, all: [Place], byPerson: [String: [Place]], everyone: [Place]
    ) -> [Place] {
        guard !byPerson.isEmpty else { return all }
        return byPerson[people.person(ofDevice: name)] ?? everyone
    }

    private static func template(for rules: RulesFile, places: [Place]) -> DeviceEngine {
        var monitor = MonitorEngine(name: "", filter: rules.filterConfiguration)
        for place in places {
            monitor.add(place.condition, identifier: place.name, hysteresis: rules.hysteresis(for: place))
        }
        return DeviceEngine(
            monitor: monitor,
            detector: rules.stayDetectorConfiguration.map { VisitDetector(configuration: $0) },
            rules: RuleState())
    }

    /// Replaces the rules (a reload), keeping each device's state for places that did not change.
    public mutating func replaceRules(_ newRules: RulesFile) {
        let old = rules
        rules = newRules
        recent = RecentDevice()
        directory.forgetAll()
        evaluator = RuleEvaluator(rules: newRules)
        setTemplates()
        for (name, device) in state.devices {
            var fresh = newDevice(named: name)
            let unchanged = newRules.places.filter { place in
                old.place(named: place.name).map {
                    $0.condition == place.condition && $0.who == place.who
                        && old.hysteresis(for: $0) == newRules.hysteresis(for: place)
                } ?? false
            }
            if unchanged.count == newRules.places.count, old.places.count == newRules.places.count,
                old.filterConfiguration == newRules.filterConfiguration
            {
                fresh.monitor = device.monitor
            }
            fresh.detector =
                newRules.stayDetectorConfiguration == old.stayDetectorConfiguration
                ? device.detector : fresh.detector
            fresh.rules = device.rules
            state.devices[name] = fresh
        }
    }

    // MARK: Records

    /// Processes one input record. `arrivedAt` is the wall-clock arrival for live input, `nil` in
    /// replay.
    ///
    /// The record is borrowed: taken, the caller copied it for the call (the fix with a retain of
    /// each of its strings) and the copy was destroyed here.
    public mutating func process(_ record: borrowing InputRecord, arrivedAt: Date?) -> PipelineOutput? {
        switch record {
        case .fix(let fix): process(fix, arrivedAt: arrivedAt)
        case .visit(let visit):
            process(deliveredVisit: visit, device: rules.people.device(Pipeline.defaultDevice))
        case .transition(let transition): process(transition)
        case .ignored: nil
        }
    }

    /// ``process(_:arrivedAt:)`` for a record read where it lies in a batch (a sharded
    /// pipeline's): only its fix is copied out, not the whole record. A record passed as a value
    /// from an array was copied for the call whatever the parameter's convention (the compiler
    /// cannot tell that the call leaves the batch alone), with a retain and a release of each of
    /// its strings and a call through the record's copy and destroy witnesses.
    ///
    /// `givenHash`, when known, is the ``DeviceDirectory/hash(_:)`` of the device name the record
    /// gives (a sharded pipeline has it from choosing the shard).
    @usableFromInline
    package mutating func process(
        recordAt record: UnsafePointer<InputRecord>, arrivedAt: Date?, givenHash: UInt64? = nil
    ) -> PipelineOutput? {
        process(recordAt: record, arrivedAt: arrivedAt, givenHash: givenHash, located: nil)
    }

    /// ``process(recordAt:arrivedAt:givenHash:)`` with where the record's device was found ahead.
    private mutating func process(
        recordAt record: UnsafePointer<InputRecord>, arrivedAt: Date?, givenHash: UInt64?,
        located: LocatedDevice?
    ) -> PipelineOutput? {
        if case .fix(let fix) = record.pointee {
            return process(fix, arrivedAt: arrivedAt, givenHash: givenHash, located: located)
        }
        return process(record.pointee, arrivedAt: arrivedAt)
    }

    /// Processes the records at `positions` in `records`, in that order, handing `body` each one's
    /// position and output as it is made. `hashes[k]`, when given, is the
    /// ``DeviceDirectory/hash(_:)`` of the name the record at `positions[k]` gives (any value for a
    /// record that names no device); without them, the hashes are made here, once a device.
    ///
    /// With many devices taking turns, each record reads an engine that no record touched since
    /// its device's last one, thousands of records before: its lines came from memory one wait
    /// after another (the directory's slot, then the filter's fields, then the monitor's
    /// conditions). So the records ahead are looked at first, each step a few records after the
    /// one it needs: the name of the record `2 * distance` ahead is read and hashed and its slot in
    /// the directory asked of the processor's caches; the engine of the one `distance` ahead is
    /// found there and its lines asked for; the conditions the engine `distance / 2` ahead will
    /// read are asked for. A record of the same device as the record before it asks nothing: its
    /// engine is in the caches already. A `distance` of 0 looks at nothing ahead.
    ///
    /// Looking ahead pays only when the engines no longer fit in the caches: with fewer than
    /// `fleet` devices it is left out. Measured here (`geofence-bench --pipeline`, rounds with and
    /// without it taking turns), the pipeline took with it 0.83 to 1.00 of the time for 10,000
    /// devices taking turns (about 32 MB of engines; three runs), 0.91 for 8,000; but 1.08 for
    /// 5,000, 1.19 for 1,000 and 1.24 for one device: the names read and hashed ahead of each
    /// record cost more than the waits they saved.
    @usableFromInline
    package mutating func process(
        recordsAt records: UnsafePointer<InputRecord>, positions: [Int], hashes known: [UInt64]?,
        arrivedAt: Date?,
        prefetchDistance distance: Int, fleet: Int,
        each body: (_ position: Int, _ output: consuming PipelineOutput?) -> Void
    ) {
        precondition(known.map { $0.count == positions.count } ?? true, "a hash for every record")
        let count = positions.count
        if distance <= 0 || state.devices.count < fleet {
            for k in 0..<count {
                body(
                    positions[k],
                    process(
                        recordAt: records + positions[k], arrivedAt: arrivedAt, givenHash: known?[k],
                        located: nil))
            }
            return
        }
        // By the same index as `positions`: the name each record gives, whether it is another
        // device than the record before's, its name's hash, and where its engine was found.
        var names = [String?](repeating: nil, count: count)
        var changes = [Bool](repeating: false, count: count)
        var hashes = known ?? [UInt64](repeating: 0, count: count)
        var located = [LocatedDevice?](repeating: nil, count: count)
        func look(_ j: Int) {
            let name = ShardedPipeline.givenDevice(of: records + positions[j])
            let changed = j == 0 || name != names[j - 1]
            names[j] = name
            changes[j] = changed
            if !changed {
                hashes[j] = hashes[j - 1]
            } else if let name {
                if known == nil { hashes[j] = DeviceDirectory.hash(name) }
                directory.prefetchSlot(hash: hashes[j])
            }
        }
        for j in 0..<min(2 * distance, count) { look(j) }
        for k in 0..<count {
            if k + 2 * distance < count { look(k + 2 * distance) }
            let engineAhead = k + distance
            if engineAhead < count, changes[engineAhead], let name = names[engineAhead] {
                located[engineAhead] = locate(given: name, hash: hashes[engineAhead])
            }
            let conditionsAhead = k + distance / 2
            if conditionsAhead > k, conditionsAhead < count, let found = located[conditionsAhead],
                found.generation == directory.generation
            {
                state.devices.values[found.index].monitor.prefetchConditions()
            }
            body(
                positions[k],
                process(
                    recordAt: records + positions[k], arrivedAt: arrivedAt, givenHash: hashes[k],
                    located: located[k]))
        }
    }

    /// How many records ahead of the one processed the engine of a device is asked of the caches,
    /// unless told otherwise (see ``process(recordsAt:positions:hashes:arrivedAt:prefetchDistance:fleet:each:)``).
    /// Distances 2, 3, 4, 6 and 8 took about the same time here (10,000 devices taking turns). A
    /// record takes about half a microsecond, so one record ahead leaves little time for the
    /// memory; many more would ask for more lines than the caches keep until they are used.
    @usableFromInline package static let prefetchDistance = 4

    /// How many devices a pipeline holds before it looks ahead for their engines, unless told
    /// otherwise (see ``process(recordsAt:positions:hashes:arrivedAt:prefetchDistance:fleet:each:)``):
    /// about 26 MB of engines, past what the caches of the machine measured keep for one core.
    @usableFromInline package static let prefetchFleet = 8192

    /// Where a device's engine was found ahead of its record: valid while the directory's
    /// generation is the same (no device was added since).
    struct LocatedDevice {
        var index: [String: DeviceEngine].Index
        var generation: UInt32
    }

    /// Finds the engine of the device records name `given`, if the directory knows where it is (a new
    /// device, or one not seen since the last device was added, is left alone; so is the last
    /// record's device), and asks the processor to bring its lines into its caches.
    private mutating func locate(given: String, hash: UInt64) -> LocatedDevice? {
        if recent.index != nil, recent.given == given { return nil }
        guard let index = directory.index(given: given, hash: hash) else { return nil }
        withUnsafeMutablePointer(to: &state.devices.values[index]) { engine in
            let bytes = UnsafeRawPointer(engine)
            let size = MemoryLayout<DeviceEngine>.size
            var offset = 0
            while offset < size {
                cprefetch_read(bytes + offset)
                offset += 64
            }
            cprefetch_read(bytes + (size - 1))
        }
        return LocatedDevice(index: index, generation: directory.generation)
    }

    /// Processes the phone's own region decision: an OwnTracks transition whose `desc` names a
    /// place is strong evidence for that place and moves it at once (see
    /// ``MonitorEngine/ingestClaim(identifier:inside:at:)``); one naming no place changes nothing.
    public mutating func process(_ transition: OwnTracksTransition) -> PipelineOutput? {
        guard let place = transition.regionName, rules.place(named: place) != nil,
            transition.event == "enter" || transition.event == "leave"
        else { return nil }
        let name = rules.people.device(
            Pipeline.givenDevice(deviceId: transition.deviceId, label: transition.label))
        // A place limited to other people is not in this device's monitor.
        if let who = rules.place(named: place)?.who, !who.contains(rules.people.person(ofDevice: name)) {
            return nil
        }
        let evaluator = evaluator
        return withDevice(named: name) { device, output in
            device.claim(transition, place: place, evaluator: evaluator, output: &output)
        }
    }

    /// Advances every device's clock to `date` (the engine's tick in a live run): the monitor
    /// applies the changes that silence confirmed (see ``MonitorEngine/advance(to:)``), and the
    /// dwell rules due by then fire (see ``RuleEvaluator/advanceClock(to:device:state:)``).
    /// Replaying the same fixes without ticks gives the same events and actions, at the same dates.
    public mutating func advance(to date: Date) -> [PipelineOutput] {
        var outputs: [PipelineOutput] = []
        let evaluator = evaluator
        for name in state.devices.keys.sorted() {
            let output = withDevice(named: name) { device, output in
                device.advance(to: date, evaluator: evaluator, output: &output)
            }
            if !output.isEmpty { outputs.append(output) }
        }
        return outputs
    }

    /// Processes one fix. Its device is named by the rules' `people:` (an OwnTracks tid or another
    /// alias becomes the device's one name), so a phone is one device however its fixes arrive.
    public mutating func process(_ fix: Fix, arrivedAt: Date?) -> PipelineOutput {
        process(fix, arrivedAt: arrivedAt, givenHash: nil, located: nil)
    }

    /// ``process(_:arrivedAt:)`` with the hash of the name the fix gives, when known, and where
    /// its device was found ahead, if it was.
    private mutating func process(
        _ fix: Fix, arrivedAt: Date?, givenHash: UInt64?, located: LocatedDevice?
    ) -> PipelineOutput {
        let index = deviceIndex(
            given: Pipeline.givenDevice(deviceId: fix.deviceId, label: fix.label), hash: givenHash,
            located: located)
        guard rules.people.sharesRules else {
            // The path of almost every fix: no person's rules to share, nothing to copy.
            var output = PipelineOutput(device: recent.name)
            state.devices.values[index].ingest(
                fix, arrivedAt: arrivedAt, evaluator: evaluator, places: recent.places, output: &output)
            return output
        }
        let places = recent.places
        let evaluator = evaluator
        return withDevice(named: recent.name) { device, output in
            device.ingest(fix, arrivedAt: arrivedAt, evaluator: evaluator, places: places, output: &output)
        }
    }

    /// The position of the engine of the device a fix names by `given` (resolved through
    /// `people:`), made first if the device is new; `recent` then holds its name and places. The
    /// last fix's device is not looked up again.
    private mutating func deviceIndex(
        given: String, hash known: UInt64? = nil, located: LocatedDevice? = nil
    ) -> [String: DeviceEngine].Index {
        if let index = recent.index, recent.given == given { return index }
        let name = rules.people.device(given)
        let hash = known ?? DeviceDirectory.hash(given)
        let index: [String: DeviceEngine].Index
        if let located, located.generation == directory.generation {
            // Found ahead by the same name, and no device was added since.
            index = located.index
        } else if let kept = directory.index(given: given, hash: hash) {
            index = kept
        } else {
            index = lookUpDevice(named: name)
            directory.keep(index, given: given, hash: hash)
        }
        let places = Pipeline.places(
            forDevice: name, people: rules.people, all: rules.places, byPerson: placesByPerson,
            everyone: everyonesPlaces)
        recent = RecentDevice(given: given, name: name, index: index, places: places)
        return index
    }

    /// Processes a visit delivered by the tracker (not detected here): it moves the monitor and
    /// triggers visit rules.
    public mutating func process(deliveredVisit visit: Visit, device: String) -> PipelineOutput {
        let name = rules.people.device(device)
        let places = places(forDevice: name)
        let evaluator = evaluator
        return withDevice(named: name) { device, output in
            device.ingest(deliveredVisit: visit, evaluator: evaluator, places: places, output: &output)
        }
    }

    /// Runs `body` on a device's engine where it is stored (a copy out of the dictionary and back
    /// would copy its conditions' array on every fix), made first if the device is new.
    ///
    /// A device of a person `people:` declares with several devices shares the person's rules:
    /// every such device holds the same ``RuleState``, copied to the others whenever one of them
    /// changes it, so that cooldowns, reminders delivered, stays and commutes under way are the
    /// person's (see ``DeviceEngine`` `apply` for which device's events move them).
    private mutating func withDevice(
        named name: String, _ body: (inout DeviceEngine, inout PipelineOutput) -> Void
    ) -> PipelineOutput {
        let index = deviceIndex(named: name)
        var output = PipelineOutput(device: name)
        guard let person = rules.people.sharingPerson(ofDevice: name) else {
            body(&state.devices.values[index], &output)
            return output
        }
        output.person = person
        let before = state.devices.values[index].rules
        body(&state.devices.values[index], &output)
        // A record that produced something has usually changed the rules; one that produced
        // nothing may still have (a stop noted on a commute under way), which the comparison
        // tells (cheap when nothing was written: the storage is still shared).
        guard !output.isEmpty || !output.placeEvents.isEmpty || state.devices.values[index].rules != before
        else { return output }
        let others = rules.people.devices(ofPerson: person).filter { $0 != name }
        // A device that finds itself outside a place the person is in (a first determination,
        // or again after a reload replaced its monitor) takes the person out only if no other
        // device of theirs is inside; otherwise a stale stay would hide the next arrival.
        for place in output.determinedOutside
        where !others.contains(where: { state.devices[$0]?.monitor.record(for: place)?.state == .satisfied })
        {
            state.devices.values[index].rules.insideSince[place] = nil
        }
        let after = state.devices.values[index].rules
        for other in others {
            guard let otherIndex = state.devices.index(forKey: other) else { continue }
            state.devices.values[otherIndex].rules = after
            output.alsoChanged.append(other)
        }
        return output
    }

    /// The position of a device's engine in the state, made first when the device is new.
    private mutating func deviceIndex(named name: String) -> [String: DeviceEngine].Index {
        if let index = recent.index, recent.name == name { return index }
        return lookUpDevice(named: name)
    }

    /// The position of a device's engine, found by its name, made first when the device is new.
    private mutating func lookUpDevice(named name: String) -> [String: DeviceEngine].Index {
        if let index = state.devices.index(forKey: name) { return index }
        // Adding a device may move every engine.
        recent.index = nil
        directory.forgetAll()
        var device = newDevice(named: name)
        // A person's new device takes up the rules their other devices share.
        if let person = rules.people.sharingPerson(ofDevice: name) {
            for other in rules.people.devices(ofPerson: person) where other != name {
                if let sibling = state.devices[other] {
                    device.rules = sibling.rules
                    break
                }
            }
        }
        state.devices[name] = device
        guard let index = state.devices.index(forKey: name) else {
            preconditionFailure("a device just stored is in the dictionary")
        }
        return index
    }

    /// Processes an engine life-cycle event (started, stopped, input paused...).
    public mutating func lifecycle(_ kind: LifecycleKind, at date: Date, detail: String?) -> PipelineOutput {
        var output = PipelineOutput(device: "engine")
        let occurrence = Occurrence(kind: .lifecycle(kind), date: date, device: "engine", detail: detail)
        collect(evaluator.handle(occurrence, state: &state.engine), into: &output)
        return output
    }

    /// Ends the input: closes stays the visit detectors still hold (end of a replayed history).
    public mutating func finish() -> [PipelineOutput] {
        var outputs: [PipelineOutput] = []
        for name in state.devices.keys.sorted() {
            let places = places(forDevice: name)
            let evaluator = evaluator
            let output = withDevice(named: name) { device, output in
                device.finish(evaluator: evaluator, places: places, output: &output)
            }
            if !output.isEmpty { outputs.append(output) }
        }
        return outputs
    }

    private func collect(_ result: RuleEvaluator.Output, into output: inout PipelineOutput) {
        output.collect(result)
    }
}

extension PipelineOutput {
    /// Adds what the rules fired.
    mutating func collect(_ result: RuleEvaluator.Output) {
        if !result.actions.isEmpty { actions += result.actions }
        if !result.commutes.isEmpty { commutes += result.commutes }
    }
}

// MARK: One device

extension DeviceEngine {
    /// Filter, monitor, visit detector and rules for one fix of this device.
    mutating func ingest(
        _ fix: Fix, arrivedAt: Date?, evaluator: RuleEvaluator, places: [Place], output: inout PipelineOutput
    ) {
        // The events are gathered apart and given to the output only if there are any: most fixes
        // cause none, and an output whose lists are all empty holds none of them (see
        // ``PipelineOutput``).
        var events: [Event] = []
        output.dropped = monitor.ingest(fix, arrivedAt: arrivedAt, into: &events)
        if !events.isEmpty { output.events = events }
        guard output.dropped == nil else { return }
        // A batch's outputs wait together to be printed or stored: a device's first fixes make an
        // event for each of its places, and room grown by appending would be half as much again.
        if output.events.count > 1 { output.placeEvents.reserveCapacity(output.events.count) }
        var visits: [Visit] = []
        if let detected = updateDetector({ $0.ingest(fix) }) {
            visits = detected
            // Stops first: a stop that ended with the fix that also confirms the arrival belongs
            // to the commute that arrival completes.
            observeStops(visits, evaluator: evaluator, output: &output)
        }
        applyAll(output.events, evaluator: evaluator, output: &output)
        if evaluator.rules.visits != nil {
            if !visits.isEmpty { output.visits = visits }
            for visit in visits {
                visitOccurrences(visit, evaluator: evaluator, places: places, output: &output)
            }
        }
        // The tick only lets time-driven rules (dwells, commute limits) fall due; when none is
        // waiting it would change nothing, so it is skipped.
        guard evaluator.hasTimeDrivenWork(rules) else { return }
        let tick = Occurrence(
            kind: .tick, date: fix.timestamp, coordinate: fix.coordinate, accuracy: fix.horizontalAccuracy,
            device: output.device)
        output.collect(evaluator.handle(tick, state: &rules))
    }

    /// Judges the stays the detector reported, and the one going on, as stops on the way of the
    /// commutes under way.
    private mutating func observeStops(
        _ visits: [Visit], evaluator: RuleEvaluator, output: inout PipelineOutput
    ) {
        guard !rules.openCommutes.isEmpty else { return }
        var stops = visits.filter { $0.departure != nil }.compactMap { RuleEvaluator.Stop($0) }
        if let current = detectorBox?.detector.currentVisit,
            let stop = RuleEvaluator.Stop(current, lastSeen: detectorBox?.detector.currentVisitLastFix)
        {
            stops.append(stop)
        }
        for stop in stops {
            output.collect(evaluator.observe(stop, device: output.device, state: &rules))
        }
    }

    /// Applies the tracker's own decision about a place.
    mutating func claim(
        _ transition: OwnTracksTransition, place: String, evaluator: RuleEvaluator,
        output: inout PipelineOutput
    ) {
        output.events = monitor.ingestClaim(
            identifier: place, inside: transition.event == "enter", at: transition.timestamp)
        applyAll(output.events, evaluator: evaluator, output: &output)
    }

    /// Advances the monitor's clock.
    mutating func advance(to date: Date, evaluator: RuleEvaluator, output: inout PipelineOutput) {
        output.events = monitor.advance(to: date)
        applyAll(output.events, evaluator: evaluator, output: &output)
        output.collect(evaluator.advanceClock(to: date, device: output.device, state: &rules))
    }

    /// A visit delivered by the tracker.
    mutating func ingest(
        deliveredVisit visit: Visit, evaluator: RuleEvaluator, places: [Place], output: inout PipelineOutput
    ) {
        output.events = monitor.ingest(visit)
        if let stop = RuleEvaluator.Stop(visit) {
            output.collect(evaluator.observe(stop, device: output.device, state: &rules))
        }
        applyAll(output.events, evaluator: evaluator, output: &output)
        output.visits = [visit]
        visitOccurrences(visit, evaluator: evaluator, places: places, output: &output)
    }

    /// Closes the stay the visit detector still holds.
    mutating func finish(evaluator: RuleEvaluator, places: [Place], output: inout PipelineOutput) {
        guard let visits = updateDetector({ $0.finish() }) else { return }
        guard evaluator.rules.visits != nil else { return }
        output.visits = visits
        for visit in output.visits {
            visitOccurrences(visit, evaluator: evaluator, places: places, output: &output)
        }
    }

    /// Applies the monitor's events in turn, read through the list's buffer and lent to `apply`:
    /// a loop over the list's elements copied each event out, and again for the call (its
    /// identifier and its evidence retained, then released). One copy is left, which the compiler
    /// makes of an element read through a pointer before lending it to a method that changes this
    /// engine.
    private mutating func applyAll(_ events: [Event], evaluator: RuleEvaluator, output: inout PipelineOutput)
    {
        events.withUnsafeBufferPointer { events in
            for index in events.indices { apply(events[index], evaluator: evaluator, output: &output) }
        }
    }

    private mutating func apply(
        _ event: borrowing Event, evaluator: RuleEvaluator, output: inout PipelineOutput
    ) {
        let name = output.device
        let place = event.identifier
        let inside = event.state == .satisfied
        let transition = Transition(event)
        // Made in the list, not copied into it.
        output.placeEvents.append(PlaceEvent(event, transition: transition, device: name))
        guard event.kind == .transition, inside || event.state == .unsatisfied else { return }
        let kind: Occurrence.Kind
        switch transition {
        case .enter: kind = .enter
        case .exit: kind = .exit
        default: kind = .determined(inside: inside)
        }
        // A first determination outside, for a device in no place and on no commute, changes
        // nothing the rules keep (a new device's first events are one for each place).
        if kind == .determined(inside: false), output.person == nil,
            evaluator.ignoresDeterminationOutside(state: rules)
        {
            return
        }
        // The dwells a live clock fired before this change was confirmed fire first.
        output.collect(evaluator.advanceClock(to: event.confirmedAt, device: name, state: &rules))
        let coordinate = event.evidenceCoordinate
        let accuracy = event.evidenceAccuracy
        // A person with several devices moves as the first of them: the first device in makes
        // the person enter, the first one out makes them leave, and a device that only agrees
        // with where the person already is changes nothing (a phone and a watch arriving home
        // give one reminder; a tablet left at home does not hold its person there). A device
        // first found outside a place the person is in is settled in `withDevice`, which sees
        // the person's other devices.
        if output.person != nil {
            let personInside = rules.insideSince[place] != nil
            switch kind {
            case .enter, .determined(inside: true): if personInside { return }
            case .exit: if !personInside { return }
            case .determined(inside: false):
                if personInside { output.determinedOutside.append(place) }
                return
            default: break
            }
        }
        let occurrence = Occurrence(
            kind: kind, place: place, date: event.date, coordinate: coordinate, accuracy: accuracy,
            device: name)
        output.collect(evaluator.handle(occurrence, state: &rules))
    }

    private mutating func visitOccurrences(
        _ visit: Visit, evaluator: RuleEvaluator, places: [Place], output: inout PipelineOutput
    ) {
        let name = output.device
        // `places` are those this device's person may use (see `Pipeline.places(forDevice:)`).
        for place in places where place.condition.contains(visit.coordinate) {
            let arrival = visit.arrival
            if openVisits[place.name] == nil || openVisits[place.name] != arrival {
                // A start not seen yet (a closed visit delivered whole, or the first report).
                if let date = arrival ?? visit.departure {
                    openVisits[place.name] = arrival ?? date
                    let start = Occurrence(
                        kind: .visitStart, place: place.name, date: date, coordinate: visit.coordinate,
                        accuracy: visit.horizontalAccuracy, device: name)
                    output.collect(evaluator.handle(start, state: &rules))
                }
            }
            if let departure = visit.departure {
                openVisits[place.name] = nil
                let end = Occurrence(
                    kind: .visitEnd, place: place.name, date: departure, coordinate: visit.coordinate,
                    accuracy: visit.horizontalAccuracy, device: name)
                output.collect(evaluator.handle(end, state: &rules))
            }
        }
    }
}
