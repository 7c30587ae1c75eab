import Dispatch
import Foundation
import Geofence
import GeofenceInput
public import GeofenceRules
import Synchronization

/// `geofence run`: the long-running job. Follows the inputs, runs every record through the
/// pipeline, keeps the store in step, and carries out the actions.
///
/// # Durability
/// Each batch of records is committed in one transaction with everything it caused: the devices'
/// new state, events, commutes, the input positions after the batch, and the actions, written to
/// the outbox *before* any of them runs. An action is marked done after it ran. After a crash the
/// inputs resume at the stored positions (records after them are read again and, the pipeline
/// being deterministic, give the same actions with the same ids, which the outbox ignores), and
/// actions not marked done run again with the same `GEOFENCE_EVENT_ID`: at-least-once.
public final class Runner {
    /// Where the runner writes what people read: events and actions as they happen.
    public typealias Printer = @Sendable (PipelineOutput) -> Void

    private let configuration: RunConfiguration
    private let store: Store
    /// Unchecked: only the engine's loop touches it, one call at a time, and every record's call
    /// checked at run time that no other access overlapped (about 100 instructions a record, 4%
    /// of the loop's thread in `run --history`).
    @exclusivity(unchecked) private var pipeline: Pipeline
    private let queue = RecordQueue()
    /// Files, standard input, the MQTT broker: started in ``run()``, stopped at its end.
    private let inputs: [any RunInput]
    /// Where committed events go besides the store: the printer, published transitions.
    private let outputs: [any RunOutput]
    /// When the rules file was last changed: the `wtst` of published transitions.
    private var rulesChangedAt: Date
    private var decoders: [String: StreamDecoder] = [:]
    private let hooks: HookRunner
    private let executor: ActionExecutor
    private let log: RunLog
    private let signals = SignalFlags()
    private var signalSources: [any DispatchSourceSignal] = []
    private var lastFix: [String: Date] = [:]
    private var lastPrune: Date?
    private var paused: Set<String> = []
    /// Whether an input failed or the store could not be written: the run then ends with status 1.
    private var failed = false
    /// The note naming the lines being processed, which a crash leaves behind (see ``CrashMarker``).
    private let crashMarker: CrashMarker
    /// Lines the last run crashed on in a batch: processed one at a time in this run (their retry).
    private var suspect: CrashMarker.Lines?
    /// A line that crashed the last run when processed alone: poison, skipped.
    private var poison: CrashMarker.Lines?
    /// Test-only: a line containing this text traps, as a line that crashes the engine would. Set
    /// from `GEOFENCE_TEST_CRASH_ON_TEXT`, an environment variable only the end-to-end tests set;
    /// no input can set it.
    private let testCrashText: String?
    /// Actions recorded as skipped (history) in this run.
    private var skippedActions = 0
    /// What each input brought, for warnings and the summary.
    private var report = RunReport()
    /// How far the followed files' history has been read.
    private var catchUp: CatchUp
    /// Events and commutes committed in this run, for the summary.
    private var committed = (events: 0, commutes: 0, actions: 0)
    /// History processed but not yet committed (see ``process(_:)``).
    private var pending = Batch()
    /// When the pending batch started gathering.
    private var pendingSince: ContinuousClock.Instant?
    /// How long the last commit took, in seconds.
    private var lastCommitSeconds = 0.0
    /// When gathered history is committed.
    private let historyCommits = HistoryCommitPolicy()
    /// Decodes a file's next lines while the last ones go through the pipeline.
    private let decodingThread = LineDecodingThread()

    /// Opens the store, loads the rules and restores the saved state. Throws if the rules do not
    /// pass `check` or the state directory cannot be used.
    public init(configuration: RunConfiguration, printer: @escaping Printer) throws {
        // The rules loaded are taken, not kept: a reload would otherwise keep the first ones.
        var configuration = configuration
        let loaded = configuration.loadedRules
        configuration.loadedRules = nil
        self.configuration = configuration
        catchUp = CatchUp(configuration: configuration)
        let rules = try loaded ?? Runner.loadRules(configuration.rulesPath)
        let displayZone = configuration.displayTimeZone ?? rules.timeZone
        self.log = RunLog(verbose: configuration.verbose, timeZone: displayZone)
        store = try Store(directory: configuration.stateDirectory)
        crashMarker = try CrashMarker(directory: configuration.stateDirectory)
        if let crashed = crashMarker.previous, crashed.signal != nil {
            if crashed.alone { poison = crashed } else { suspect = crashed }
        }
        testCrashText = ProcessInfo.processInfo.environment["GEOFENCE_TEST_CRASH_ON_TEXT"].flatMap {
            $0.isEmpty ? nil : $0
        }
        var state = PipelineState()
        let decoder = EngineJSON.stateDecoder()
        for saved in try store.deviceStates() {
            if saved.device == Runner.engineStateKey {
                state.engine = try decoder.decode(RuleState.self, from: saved.state)
            } else {
                state.devices[saved.device] = try decoder.decode(DeviceEngine.self, from: saved.state)
            }
        }
        pipeline = Pipeline(rules: rules, state: state)
        let rulesDirectory = URL(fileURLWithPath: configuration.rulesPath).deletingLastPathComponent().path
        let logDirectory = configuration.logDirectory ?? rulesDirectory
        // Hooks run in it, so it must exist before the first one starts.
        if !FileManager.default.fileExists(atPath: logDirectory) {
            do {
                try FileManager.default.createDirectory(
                    atPath: logDirectory, withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
            } catch {
                throw RunError(message: "geofence: cannot make the log directory \(logDirectory): \(error)")
            }
        }
        hooks = HookRunner(
            configuration: HookRunner.Configuration(
                maxConcurrent: configuration.hookSlots, workingDirectory: logDirectory))
        executor = ActionExecutor(
            store: store, hooks: hooks, rulesDirectory: rulesDirectory, logDirectory: logDirectory, log: log,
            timeZone: displayZone)
        rulesChangedAt = Runner.modificationDate(configuration.rulesPath)
        var outputs: [any RunOutput] = [PrintedOutput(printer: printer)]
        inputs = try Runner.makeInputs(configuration, store: store, log: log, outputs: &outputs)
        for case let mqtt as MQTTInput in inputs {
            if let publish = mqtt.publisher() { executor.setPublisher(publish) }
        }
        if configuration.mqtt == nil {
            for name in rules.channels.keys.sorted() where rules.channels[name]?.needsBroker == true {
                log.warning(
                    "channel \(name) publishes through MQTT, but there is no --mqtt: its reminders will fail")
            }
        }
        self.outputs = outputs
    }

    /// The inputs the configuration names, in order: files and standard input, then the broker
    /// (whose connection may also carry an output). A new transport is one more case here.
    private static func makeInputs(
        _ configuration: RunConfiguration, store: Store, log: RunLog, outputs: inout [any RunOutput]
    ) throws -> [any RunInput] {
        var inputs: [any RunInput] = []
        var keys = OwnTracksKeys()
        if let path = configuration.ownTracksKeysPath {
            do {
                keys = try OwnTracksKeys(path: path)
            } catch {
                throw RunError(message: "\(error)")
            }
        }
        for input in configuration.inputs {
            if input.path == "-" {
                inputs.append(
                    StandardInput(history: configuration.history, pollSeconds: configuration.pollSeconds))
                continue
            }
            let position: FilePosition?
            do {
                position = try store.inputPosition(input.name).flatMap(FilePosition.init)
            } catch {
                log.error("cannot read the stored position of \(input.name): \(error)")
                position = nil
            }
            inputs.append(
                FileInput(
                    path: input.path, follow: input.follow, startPosition: position,
                    history: configuration.history,
                    pollSeconds: configuration.pollSeconds, format: configuration.format,
                    timeZone: configuration.inputTimeZone))
        }
        if let settings = configuration.mqtt {
            let mqtt: MQTTInput
            do {
                mqtt = try MQTTInput(settings: settings, history: configuration.history, log: log, keys: keys)
            } catch {
                throw RunError(message: "\(error)")
            }
            inputs.append(mqtt)
            if let publisher = mqtt.transitionPublisher() { outputs.append(publisher) }
            outputs += mqtt.homeAssistantOutputs(waypoints: configuration.publishWaypoints)
        }
        if let address = configuration.httpAddress {
            do {
                var settings = HTTPReceiver.Settings(address: try HTTPAddress(address))
                if let path = configuration.httpCredentialsPath {
                    settings.credentials = try HTTPCredentials(path: path)
                    if HTTPCredentials.isReadableByOthers(path) {
                        log.warning("--http-auth \(path) can be read by other users: chmod 600 it")
                    }
                }
                settings.timeZone = configuration.inputTimeZone
                inputs.append(HTTPInput(settings: settings, history: configuration.history, keys: keys))
            } catch {
                throw RunError(message: "\(error)")
            }
        }
        if let address = configuration.gpsdAddress {
            do {
                try GPSDClient.checkLibrary()
                inputs.append(
                    GPSDInput(
                        address: try GPSDReader.Address(address), device: configuration.gpsdDevice,
                        history: configuration.history))
            } catch {
                throw RunError(message: "\(error)")
            }
        }
        return inputs
    }

    private static func modificationDate(_ path: String) -> Date {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date) ?? Date()
    }

    /// The key under which the engine-level rule state is saved among the devices.
    static let engineStateKey = ":engine"

    static func loadRules(_ path: String) throws -> RulesFile {
        switch RulesLoader.load(path: path) {
        case .success(let rules): return rules
        case .failure(let error): throw RunError(message: "\(error)\nthe rules have errors; not started")
        }
    }

    /// Runs until every input has ended (a broker input never does) or a SIGTERM or SIGINT
    /// arrives; returns the exit status:
    /// 0, or 1 if an input failed or the store could not be written.
    public func run() -> Int32 {
        installSignalHandlers()
        crashMarker.armCrashHandler()
        executor.startCompletions()
        // Actions a crash left behind run first, with their original ids.
        do {
            let pending = try store.pendingActions()
            if !pending.isEmpty {
                log.info("re-running \(pending.count) action(s) left unfinished by the last run")
            }
            for action in pending { executor.execute(action) }
        } catch {
            log.error("cannot read the outbox: \(error)")
        }
        lifecycle(.started, detail: "rules \(configuration.rulesPath)")
        reportLastCrash()

        var open = Set<String>()
        for input in inputs {
            decoders[input.name] = input.decoder(
                format: configuration.format, timeZone: configuration.inputTimeZone)
            let stored = (try? store.inputPosition(input.name)) ?? nil
            if let line = catchUp.start(input.name, at: stored?.offset) { log.info(line) }
            lastFix[input.name] = Date()
            open.insert(input.name)
            do {
                try input.start(into: queue)
            } catch {
                log.error("input \(input.name) failed: \(error)")
                failed = true
                signals.stop()
            }
        }
        while true {
            // With history pending, a queue that runs dry commits it at once (the reader is behind,
            // or the history is read and live lines may follow).
            let items = queue.takeAll(timeout: pending.isEmpty ? 0.5 : 0.01)
            let flags = signals.take()
            if flags.reload {
                commitPending()
                reload()
            }
            if !items.isEmpty {
                open.subtract(process(items))
            } else {
                commitPending()
                tickClock()
            }
            catchUp.draw()
            checkPauses()
            pruneIfDue()
            if flags.stop {
                commitPending()
                log.info("stopping: signal received")
                break
            }
            if open.isEmpty {
                commitPending()
                log.info("every input has ended")
                break
            }
        }
        catchUp.clear()
        decodingThread.stop()
        for input in inputs { input.stop() }
        queue.close()
        lifecycle(.stopped, detail: nil)
        // After the inputs ended the queued hooks may take long: a SIGTERM meanwhile gives those
        // running the grace period and hands the rest back, as when it comes earlier.
        if !signals.stopRequested {
            executor.waitForHooks(seconds: .infinity, interrupted: { self.signals.stopRequested })
            if signals.stopRequested { log.info("stopping: signal received while hooks ran") }
        }
        if !executor.waitForHooks(seconds: configuration.graceSeconds) {
            log.warning(
                "hooks still running after the grace period are stopped and handed back: they run again at the next start"
            )
            executor.handBack()
            // They end within the hook runner's own grace (SIGTERM, then SIGKILL); the margin is
            // for a process stuck in the kernel, which nothing can hurry.
            if !executor.waitForHooks(seconds: hooks.configuration.graceSeconds + 10) {
                log.warning("a hook did not end after SIGKILL; leaving it")
            }
        }
        let postsLeft = executor.finishPosts(
            seconds: signals.stopRequested ? configuration.graceSeconds : 600)
        if postsLeft > 0 {
            log.warning("\(postsLeft) post(s) not yet delivered: they are sent at the next start")
        }
        hooks.finish()
        if skippedActions > 0 {
            log.info("\(skippedActions) action(s) for past events were recorded as skipped, not fired")
        }
        logSummary()
        store.close()
        return failed ? 1 : 0
    }

    /// The lines that end a run's log: what each input brought, what was stored and what ran.
    private func logSummary() {
        for line in report.summary { log.info("summary: \(line)") }
        let finished = executor.finished.withLock { $0 }
        let unfinished = committed.actions - skippedActions - finished.done
        log.info(
            "summary: \(committed.events) events, \(committed.commutes) commutes stored; "
                + "\(committed.actions) actions: \(finished.done - finished.failed) succeeded, \(finished.failed) failed, "
                + "\(skippedActions) skipped as history"
                + (unfinished > 0 ? ", \(unfinished) not finished (they run at the next start)" : ""))
    }

    // MARK: Processing

    /// Processes input items; returns the inputs that ended.
    ///
    /// What they produce is committed in one transaction at the end, except while history is read:
    /// lines of files that did not arrive live (and whole documents) are gathered into the pending
    /// batch across calls, and committed when ``HistoryCommitPolicy`` says (by count, and by time
    /// stretched when commits are slow), when anything else comes (a live line, a message, a post, an
    /// input's end), or when the queue runs dry. A live record is thus committed, and its actions
    /// run, as soon as it is processed; history costs one commit, and one saved state per device,
    /// for many thousands of records rather than for each read of the file. Nothing is lost by
    /// waiting: the input positions are committed with the records they follow, so after a crash
    /// the uncommitted lines are read again and give the same events and action ids.
    ///
    /// A run of one file's batches is decoded on the decoding thread while the batches before go
    /// through the pipeline, under one crash note naming all their lines; as the thread runs out,
    /// the file's batches queued meanwhile are added to the run (for at most
    /// ``extendingDuration``, and never while a progress line is drawn between turns).
    private func process(_ items: [InputItem]) -> Set<String> {
        catchUp.clear()
        var ended = Set<String>()
        var batch = pending
        pending = Batch()
        if batch.isEmpty { pendingSince = .now }
        // Whether every item is history, which may wait in the pending batch.
        var history = true
        // The last item of a run of a file's batches the decoding thread is decoding, while the
        // batches before them go through the pipeline.
        var aheadThrough: Int?
        // With the items taken from the queue while the decoding thread was about to run out of
        // batches; each is let go once taken, so that a long turn holds only the lines ahead.
        var items: [InputItem?] = items
        let began = ContinuousClock.now
        var index = -1
        while index + 1 < items.count {
            index += 1
            guard let item = items[index] else { continue }
            items[index] = nil
            switch item {
            case .lines(let input, let lines, let position, let live):
                // Standard input, gpsd: no file to name the lines by. It may be live whatever the
                // flag says, so it is committed at once.
                history = false
                processUnplaced(
                    lines.map { ($0.number, $0.text) }, from: input, arrivedAt: live ? Date() : nil,
                    topic: nil, batch: &batch)
                if let position { batch.positions[input] = position }
                if let line = catchUp.read(input, lines: lines.count, position: position) { log.info(line) }
            case .fileLines(let input, let lines, let position, let live):
                if live { history = false }
                let arrivedAt = live ? Date() : nil
                if let through = aheadThrough, index <= through {
                    if through - index <= 1, !catchUp.isReading(input),
                        began.duration(to: .now) < Runner.extendingDuration, let identity = position.identity,
                        let first = lines.first
                    {
                        // The thread is about to run out: the file's batches queued since this
                        // call began are decoded next, without waiting for the loop's next take.
                        // Not while a progress line is drawn between turns of the loop.
                        items += queue.takeAvailable().map(Optional.some)
                        let more = followingBatches(
                            in: items, after: through, input: input, identity: identity)
                        if let last = more.last?.last {
                            crashMarker.set(
                                CrashMarker.Lines(
                                    input: input, identity: identity, first: first, last: last, alone: false))
                            decodingThread.extend(more)
                            aheadThrough = through + more.count
                        }
                    }
                    let decoded = decodingThread.next()
                    take(decoded, from: input, arrivedAt: arrivedAt, batch: &batch)
                    decodingThread.recycle(consume decoded)
                    if index == aheadThrough {
                        decoders[input] = decodingThread.finish()
                        aheadThrough = nil
                    }
                } else if let identity = position.identity, let first = lines.first, let last = lines.last,
                    !touchesLastCrash(input: input, identity: identity, first: first, last: last)
                {
                    // The batches after this one, of the same file, are decoded on the other core
                    // while this one goes through the pipeline; the note names the lines of all.
                    let following = followingBatches(
                        in: items, after: index, input: input, identity: identity)
                    crashMarker.set(
                        CrashMarker.Lines(
                            input: input, identity: identity, first: first,
                            last: following.last?.last ?? last, alone: false))
                    let decoded = decodeLines(lines, from: input)
                    if !following.isEmpty, let decoder = decoders.removeValue(forKey: input) {
                        decodingThread.start(following, decoder: decoder, crashText: testCrashText)
                        aheadThrough = index + following.count
                    }
                    take(decoded, from: input, arrivedAt: arrivedAt, batch: &batch)
                } else {
                    processOneAtATime(
                        lines, from: input, identity: position.identity, arrivedAt: arrivedAt, batch: &batch)
                }
                batch.positions[input] = position
                if let line = catchUp.read(input, lines: lines.count, position: position) { log.info(line) }
            case .records(let input, let records):
                for record in records { handle(record, from: input, arrivedAt: nil, batch: &batch) }
            case .message(let input, let topic, let text, let number, let live):
                history = false
                guard let text else {
                    log.warning("\(input):\(number): message on \(topic) larger than 1 MiB, skipped")
                    continue
                }
                processUnplaced(
                    [(number, text)], from: input, arrivedAt: live ? Date() : nil, topic: topic, batch: &batch
                )
            case .posted(let input, let lines, let number, let live, let ticket):
                history = false
                processUnplaced(
                    lines.map { (number, $0) }, from: input, arrivedAt: live ? Date() : nil, topic: nil,
                    batch: &batch)
                batch.tickets.append(ticket)
            case .note(let input, let message, let level):
                log.write(level, "input \(input): \(message)")
            case .ended(let input, let failure):
                history = false
                ended.insert(input)
                // What the end completes: the last NMEA epoch, an unclosed document's error.
                if var decoder = decoders[input] {
                    let results = decoder.finish()
                    decoders[input] = decoder
                    for result in results {
                        take(result, from: input, arrivedAt: nil, topic: nil, batch: &batch)
                    }
                }
                if let failure {
                    failed = true
                    log.error("input \(input) failed: \(failure)")
                    batch.add(
                        pipeline.lifecycle(.inputFailed, at: Date(), detail: "\(input): \(failure)"),
                        device: nil)
                }
            }
        }
        if history, !historyCommitDue(batch) {
            // The crash note still names the last lines processed: they are not committed yet.
            pending = batch
        } else {
            commit(batch)
            crashMarker.clear()
        }
        return ended
    }

    /// How long one call of ``process(_:)`` goes on taking a file's batches from the queue beyond
    /// those it was given: the loop then looks at signals and pauses again.
    static let extendingDuration = Duration.milliseconds(250)

    /// Commits the history gathered in the pending batch, if any (see ``process(_:)``).
    private func commitPending() {
        guard !pending.isEmpty else { return }
        let batch = pending
        pending = Batch()
        commit(batch)
        crashMarker.clear()
    }

    /// Whether the history gathered in `batch` is to be committed now (``historyCommits``).
    private func historyCommitDue(_ batch: Batch) -> Bool {
        guard let pendingSince else { return true }
        let gathered = pendingSince.duration(to: .now)
        return historyCommits.isDue(
            records: batch.records, gatheredSeconds: Runner.seconds(gathered),
            lastCommitSeconds: lastCommitSeconds)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    /// Whether the lines `first...last` of the file `identity` of `input` are among those the last
    /// run crashed on, or hold the poison line: those are processed one line at a time, each with
    /// a note of its own.
    private func touchesLastCrash(input: String, identity: String, first: Int64, last: Int64) -> Bool {
        for lines in [suspect, poison] {
            guard let lines, lines.input == input, lines.identity == identity else { continue }
            if lines.first <= last, first <= lines.last { return true }
        }
        return false
    }

    /// The batches of the items after `index` that are lines of the same file (the same input and
    /// file identity), up to the first that is not or that touches the last crash: those to decode
    /// while the batch of `index` goes through the pipeline.
    private func followingBatches(in items: [InputItem?], after index: Int, input: String, identity: String)
        -> [LineBlock]
    {
        var batches: [LineBlock] = []
        for item in items[(index + 1)...] {
            guard case .fileLines(let nextInput, let lines, let position, _)? = item, nextInput == input,
                position.identity == identity, let first = lines.first, let last = lines.last,
                !touchesLastCrash(input: input, identity: identity, first: first, last: last)
            else { break }
            batches.append(lines)
        }
        return batches
    }

    /// Processes a batch of a file's lines one at a time, each decoded on the engine's thread:
    /// lines the last run crashed on are retried each with a note of its own, so that a second
    /// crash names the line, and a poison line is skipped.
    private func processOneAtATime(
        _ block: LineBlock, from input: String, identity: String?, arrivedAt: Date?, batch: inout Batch
    ) {
        let lines = block.texts
        let retry = suspect.map { suspect in
            lines.contains { suspect.contains(input: input, identity: identity, number: $0.number) }
        }
        if let identity, retry != true, let first = lines.first, let last = lines.last {
            crashMarker.set(
                CrashMarker.Lines(
                    input: input, identity: identity, first: first.number, last: last.number,
                    alone: false))
        }
        for line in lines {
            if let poison, poison.contains(input: input, identity: identity, number: line.number) {
                log.error("\(input):\(line.number): poison line (\(poison.reason) twice), skipped")
                continue
            }
            if let identity, let suspect, retry == true {
                // The retry: each line with a note of its own, so a second crash names it.
                let blamed = suspect.contains(input: input, identity: identity, number: line.number)
                crashMarker.set(
                    CrashMarker.Lines(
                        input: input, identity: identity, first: line.number, last: line.number,
                        alone: blamed))
            }
            guard let text = line.text else {
                log.warning("\(input):\(line.number): line longer than 1 MiB, skipped")
                continue
            }
            decode(text, number: line.number, from: input, arrivedAt: arrivedAt, batch: &batch)
        }
    }

    /// Decodes a batch of a file's lines on the engine's thread (the first of a run of batches).
    private func decodeLines(_ lines: LineBlock, from input: String) -> DecodedLines {
        guard var decoder = decoders.removeValue(forKey: input) else { return DecodedLines() }
        defer { decoders[input] = decoder }
        return DecodedLines.decode(lines, with: &decoder, crashText: testCrashText)
    }

    /// Runs a batch of a file's decoded lines through the pipeline, saying what could not be read.
    private func take(_ decoded: DecodedLines, from input: String, arrivedAt: Date?, batch: inout Batch) {
        report.count(records: decoded.records.count, fixes: decoded.fixes, from: input)
        var fixNoted = false
        // Each record is read where it lies in the array, not copied out.
        decoded.records.withUnsafeBufferPointer { records in
            for entry in decoded.entries {
                guard case .record(let index, let isFix, let isIgnored) = entry,
                    let base = records.baseAddress
                else {
                    note(entry, from: input)
                    continue
                }
                if isIgnored, let warning = report.ignored(records[index], from: input) {
                    log.warning(warning)
                }
                if !fixNoted, isFix {
                    // Once for the batch: the input delivers fixes, its pause (if any) is over.
                    noteFix(from: input, batch: &batch)
                    fixNoted = true
                }
                run(recordAt: base + index, from: input, arrivedAt: arrivedAt, batch: &batch)
            }
        }
    }

    /// Says what a line that gave no record held.
    private func note(_ entry: DecodedLines.Entry, from input: String) {
        switch entry {
        case .tooLong(let number):
            log.warning("\(input):\(number): line longer than 1 MiB, skipped")
        case .failure(let failure):
            report.unreadable(from: input)
            log.warning("\(failure)")
        case .record:
            // Read by `take`.
            break
        }
    }

    /// Processes lines that have no place in a file (one HTTP post, one MQTT message, a batch of
    /// standard input) under the crash note, naming them by the hashes of their texts: a phone
    /// posts a body again until it is answered 200, and the broker sends a retained message again
    /// at every subscribe, so after a crash the same text comes back. As for a file's lines, a
    /// crash while processing them makes the next run process whatever holds one of them again
    /// one line at a time (the one retry), and a line that crashes alone is poison: skipped
    /// wherever it comes in the run after (a post holding it is answered 200 without it, so the
    /// phone stops posting it). Each line's number is the one its messages give.
    private func processUnplaced(
        _ lines: [(number: Int64, text: String?)], from input: String, arrivedAt: Date?, topic: String?,
        batch: inout Batch
    ) {
        let hashes = lines.map { $0.text.map(CrashMarker.textHash) }
        let present = hashes.compactMap { $0 }
        let retry = suspect?.holdsText(of: input, anyOf: present) ?? false
        if !retry, !present.isEmpty {
            crashMarker.set(
                .text(input: input, hashes: present, first: 1, last: Int64(lines.count), alone: false))
        }
        for (index, line) in lines.enumerated() {
            guard let text = line.text, let hash = hashes[index] else {
                log.warning(
                    "\(input):\(line.number): "
                        + (topic.map { "message on \($0) larger than 1 MiB, skipped" }
                            ?? "line longer than 1 MiB, skipped"))
                continue
            }
            if let poison, poison.holdsText(of: input, anyOf: [hash]) {
                log.error("\(input):\(line.number): poison line (\(poison.reason) twice), skipped")
                continue
            }
            if retry {
                // The retry: each line with a note of its own, so a second crash names it.
                crashMarker.set(
                    .text(
                        input: input, hashes: [hash], first: Int64(index + 1), last: Int64(index + 1),
                        alone: true))
            }
            decode(text, number: line.number, from: input, arrivedAt: arrivedAt, topic: topic, batch: &batch)
        }
    }

    /// Reports what the crash note left by the last run says: lines retried one at a time, or a
    /// poison line skipped, recorded in the store's log with its reason.
    private func reportLastCrash() {
        if let suspect {
            log.warning(
                suspect.identity.hasPrefix(CrashMarker.Lines.textPrefix)
                    ? "the last run \(suspect.reason) while processing a message of \(suspect.input) (\(suspect.last) line(s)): if it comes again, its lines are retried one at a time"
                    : "the last run \(suspect.reason) while processing \(suspect.input) lines \(suspect.first)-\(suspect.last): retrying them one at a time"
            )
        }
        if let poison {
            let message =
                "\(poison.place): poison line: the last run \(poison.reason) while processing it alone, after a first crash; it is skipped"
            log.error(message)
            var batch = Batch()
            batch.lifecycle.append(LogEntry(at: Date(), level: .error, kind: "poison-line", message: message))
            commit(batch)
        }
    }

    /// Decodes one line and runs its record through the pipeline; a line that cannot be read is
    /// logged (with the MQTT topic it came on, if any) and skipped.
    private func decode(
        _ text: String, number: Int64, from input: String, arrivedAt: Date?, topic: String? = nil,
        batch: inout Batch
    ) {
        guard decoders[input] != nil else { return }
        if let testCrashText, text.contains(testCrashText) {
            fatalError("GEOFENCE_TEST_CRASH_ON_TEXT: this line crashes the engine, as the test asked")
        }
        // Changed where it is in the dictionary, not copied out and back for every line.
        let results = decoders[input]?.decode(text, number: Int(number)) ?? []
        for result in results { take(result, from: input, arrivedAt: arrivedAt, topic: topic, batch: &batch) }
    }

    /// Runs one decoded record through the pipeline, or logs why the line gave none.
    private func take(
        _ result: Result<InputRecord, RecordError>, from input: String, arrivedAt: Date?,
        topic: String?,
        batch: inout Batch
    ) {
        switch result {
        case .success(let record):
            handle(record, from: input, arrivedAt: arrivedAt, batch: &batch)
        case .failure(let failure):
            report.unreadable(from: input)
            log.warning(topic.map { "\(failure) (message on \($0)); skipped" } ?? "\(failure)")
        }
    }

    /// Counts one record and runs it through the pipeline.
    private func handle(_ record: InputRecord, from input: String, arrivedAt: Date?, batch: inout Batch) {
        if let warning = report.record(record, from: input) { log.warning(warning) }
        if record.fix != nil { noteFix(from: input, batch: &batch) }
        run(record, from: input, arrivedAt: arrivedAt, batch: &batch)
    }

    /// Runs one record, already counted, through the pipeline.
    private func run(_ record: InputRecord, from input: String, arrivedAt: Date?, batch: inout Batch) {
        withUnsafePointer(to: record) { run(recordAt: $0, from: input, arrivedAt: arrivedAt, batch: &batch) }
    }

    /// Runs one record where it lies (a decoded batch's), already counted, through the pipeline:
    /// passed as a value, it was copied for the call, with a retain and a release of each of its
    /// strings (see ``Pipeline/process(recordAt:arrivedAt:)``).
    private func run(
        recordAt record: UnsafePointer<InputRecord>, from input: String, arrivedAt: Date?, batch: inout Batch
    ) {
        guard let output = pipeline.process(recordAt: record, arrivedAt: arrivedAt) else { return }
        if let reason = output.dropped, let fix = record.pointee.fix {
            log.verbose(
                "dropped fix \(EngineJSON.timestamp(fix.timestamp)) from \(input): \(reason.rawValue)")
            if let warning = report.dropped(fix, reason: reason, from: input, now: Date()) {
                log.warning(warning)
            }
        }
        batch.add(output, device: output.device, evidence: HistoryPolicy.evidenceDate(of: record.pointee))
    }

    private func noteFix(from input: String, batch: inout Batch) {
        lastFix[input] = Date()
        if paused.remove(input) != nil {
            log.info("input \(input) resumed")
            batch.add(pipeline.lifecycle(.inputResumed, at: Date(), detail: input), device: nil)
        }
    }

    /// The engine's tick: confirms the changes whose tracker's silence has lasted long enough,
    /// without waiting for its next fix. Only when no input is waiting, so that a backlog being
    /// read is never overtaken by the wall clock (each event is confirmed at its own deadline, so
    /// the events are those a replay gives).
    private func tickClock() {
        var batch = Batch()
        // Confirmed by silence, or a dwell fallen due: the evidence is the deadline it held to
        // (fresh when live, old when the silence is the end of history).
        for output in pipeline.advance(to: Date()) {
            let deadlines = output.placeEvents.map(\.confirmedAt) + output.actions.map(\.date)
            batch.add(output, device: output.device, evidence: deadlines.max())
        }
        if !batch.isEmpty { commit(batch) }
    }

    private func checkPauses() {
        guard let limit = configuration.pauseAfterSeconds else { return }
        var batch = Batch()
        let now = Date()
        for (input, last) in lastFix.sorted(by: { $0.key < $1.key }) where !paused.contains(input) {
            guard now.timeIntervalSince(last) >= limit else { continue }
            // What was read before the pause is committed before it.
            commitPending()
            paused.insert(input)
            log.warning("input \(input) paused: no fix for \(RulesDuration.text(limit))")
            batch.add(pipeline.lifecycle(.inputPaused, at: now, detail: input), device: nil)
        }
        if !batch.isEmpty { commit(batch) }
    }

    /// Prunes old log lines and hook output at start and then once a day.
    private func pruneIfDue() {
        guard let keep = configuration.keepLogSeconds else { return }
        let now = Date()
        if let lastPrune, now.timeIntervalSince(lastPrune) < 86400 { return }
        lastPrune = now
        do {
            let pruned = try store.prune(before: now.addingTimeInterval(-keep))
            if pruned.logLines + pruned.results > 0 {
                log.info(
                    "pruned \(pruned.logLines) log lines and \(pruned.results) hook results older than \(RulesDuration.text(keep))"
                )
            }
        } catch {
            log.warning("cannot prune the store: \(error)")
        }
    }

    private func lifecycle(_ kind: LifecycleKind, detail: String?) {
        var batch = Batch()
        batch.add(pipeline.lifecycle(kind, at: Date(), detail: detail), device: nil)
        batch.lifecycle.append(
            LogEntry(at: Date(), level: .info, kind: kind.rawValue, message: detail ?? kind.rawValue))
        commit(batch)
    }

    /// Writes the batch in one transaction, then prints and carries out its actions.
    private func commit(_ batch: Batch) {
        guard !batch.isEmpty else {
            for ticket in batch.tickets { ticket.resolve(.committed) }
            return
        }
        do {
            let started = ContinuousClock.now
            let step = try batch.step(
                pipeline: pipeline, now: Date(),
                policy: HistoryPolicy.for(pipeline.rules, fireHistory: configuration.fireHistory))
            try store.commit(step)
            lastCommitSeconds = Runner.seconds(started.duration(to: .now))
            committed.events += step.events.count
            committed.commutes += step.commutes.count
            committed.actions += step.actions.count
            // Only now may the phones that posted these lines be told 200.
            for ticket in batch.tickets { ticket.resolve(.committed) }
            let delivered = CommittedBatch(
                outputs: batch.outputs, rulesChangedAt: rulesChangedAt, places: pipeline.rules.places,
                people: pipeline.rules.people)
            for output in outputs { output.deliver(delivered) }
            for action in step.actions {
                if action.status == .skipped {
                    noteSkipped(action)
                } else {
                    executor.execute(action)
                }
            }
        } catch {
            // The records stay unacknowledged (their position is not stored): after a restart they are
            // read again. Going on without the store would risk losing actions, so stop.
            for ticket in batch.tickets { ticket.resolve(.notCommitted("the store cannot be written")) }
            log.error("cannot write to the store: \(error); stopping")
            failed = true
            signals.stop()
        }
    }

    /// Logs the first action skipped as history with the reason and what to do; later ones are
    /// counted, and the count is logged when the run stops.
    private func noteSkipped(_ action: OutboxAction) {
        skippedActions += 1
        guard skippedActions == 1 else { return }
        log.info(
            "not firing actions for events in the past: \(action.lastError ?? "history") "
                + "(each is recorded as skipped; geofence actions lists them)")
    }

    // MARK: Signals

    private func installSignalHandlers() {
        Resumptions.install()
        for (number, isReload) in [(SIGTERM, false), (SIGINT, false), (SIGHUP, true)] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            // The handler captures only Sendable things (the flags and the queue), not the runner.
            let (signals, queue) = (signals, queue)
            source.setEventHandler {
                if isReload { signals.reload() } else { signals.stop() }
                queue.wake()
            }
            source.resume()
            signalSources.append(source)
        }
    }

    private func reload() {
        log.info("SIGHUP: reloading \(configuration.rulesPath)")
        do {
            let rules = try Runner.loadRules(configuration.rulesPath)
            pipeline.replaceRules(rules)
            rulesChangedAt = Runner.modificationDate(configuration.rulesPath)
            lifecycle(.rulesReloaded, detail: configuration.rulesPath)
            log.info("rules reloaded: \(rules.places.count) places, \(rules.rules.count) rules")
        } catch {
            log.error("the new rules were not loaded; the old rules keep running:\n\(error)")
            var batch = Batch()
            batch.lifecycle.append(
                LogEntry(at: Date(), level: .error, kind: "rules-reload-failed", message: "\(error)"))
            commit(batch)
        }
    }
}

/// A failure that stops `geofence run` before it starts.
public struct RunError: Error, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    /// A readable form, for logs and messages.
    public var description: String { message }
}
