import Dispatch
import Foundation
import Geofence
import GeofenceInput
import GeofenceRules

/// `geofence run --nats`: one of several engines sharing the partitions of a JetStream stream.
///
/// # The loop
/// A thread of its own (``LeaseKeeper``) renews the engine's membership and leases every quarter of
/// a lease time. Every third of a lease time the loop reads the leases, lets go of partitions
/// beyond its fair share and claims free or expired ones. Between, it fetches each owned
/// partition's messages from its durable pull consumer, runs them through the partition's
/// pipeline, and for each fetched batch:
/// 1. commits events, commutes and actions to its own store (the outbox its hooks run from);
/// 2. publishes them to the output stream with `Nats-Msg-Id` = their id, waiting for the stream;
/// 3. acknowledges the messages;
/// 4. prints them and runs the actions.
/// Every few seconds it writes the partition's changed device states to the bucket with the
/// stream sequence they cover (``PartitionSnapshot``), never ahead of what step 2 has stored.
/// None of it happens for a partition whose lease was last renewed more than half a lease ago
/// (the fence, ``LeaseKeeper/mayCommit(_:)``): it waits until a renewal succeeds or is lost.
///
/// # Elections
/// A cluster that loses a node answers requests late or not at all while it elects leaders. Every
/// call here that fails so is tried again (at start, for up to ``startRetrySeconds``; then for
/// ever, the partition waiting meanwhile); nothing makes the engine exit but a store it cannot
/// write.
///
/// # Why it is not a `RunInput`
/// The single-box inputs hand lines to one pipeline and forget them; the store's commit is the end.
/// Here a message may be acknowledged only after the commit and after the output stream has stored
/// what it produced, the pipeline is per partition and goes away with the lease, and the snapshot
/// (not the local store) is what a restart reads. Behind `RunInput` each of those would need a
/// callback back into the runner; see docs/scale-out.md.
///
/// # Fail-over
/// An engine that takes a partition over restores the snapshot and reads the stream again from the
/// sequence it covers: its events are those one engine would have produced. Events after the
/// snapshot that the previous owner had already published come out again with the same ids and are
/// dropped by JetStream's duplicate window; hooks for them run again here (at least once, as after
/// a crash of the single-box run), with the same `GEOFENCE_EVENT_ID`.
public final class NATSRunner: @unchecked Sendable {
    private let configuration: RunConfiguration
    private let settings: NATSSettings
    /// Where committed batches go after the store has them (the printed log), as in the
    /// single-box run.
    private let outputs: [any RunOutput]
    /// When the rules file was last changed, for outputs that publish it.
    private var rulesChangedAt: Date
    private let log: RunLog
    private var rules: RulesFile
    private let store: Store
    private let hooks: HookRunner
    private let executor: ActionExecutor
    private let jetStream: JetStream
    private let bucket: KeyValueBucket
    private var book: LeaseBook
    private let keeper: LeaseKeeper
    private var owned: [Int: PartitionWork] = [:]
    /// Since when (``now``) no flush of output has got everything stored; `nil` while they do.
    private var outputFailingSince: Double?
    /// The earliest time (``now``) the output stream's leader may be asked to step down again.
    private var nextStepDown = 0.0
    private let signals = Locked((stop: false, reload: false))
    private var signalSources: [any DispatchSourceSignal] = []
    /// The monotonic clock leases are judged by, at the start.
    private let started = ProcessInfo.processInfo.systemUptime
    private var failed = false
    /// Lease ticks so far, and the members as last listed.
    private var ticks = 0
    private var members: [String: UInt64]?

    /// How many messages one fetch asks for.
    static let batchSize = 500
    /// How long the output stream may fail every flush before this engine logs who holds it and
    /// asks its leader to step down.
    static let stuckStreamSeconds = 30.0

    /// How long the start goes on trying while the cluster cannot answer (electing leaders, or
    /// not yet formed) before the engine gives up with the error.
    static let startRetrySeconds = 120.0

    /// Connects, makes sure the streams and the bucket exist, and checks the partition count
    /// against the one the first engine recorded. Throws if the rules do not pass `check`, the
    /// state directory cannot be used, or the servers cannot be reached.
    public init(configuration: RunConfiguration, settings: NATSSettings, printer: @escaping Runner.Printer)
        throws
    {
        self.configuration = configuration
        self.settings = settings
        outputs = [PrintedOutput(printer: printer)]
        rulesChangedAt =
            ((try? FileManager.default.attributesOfItem(atPath: configuration.rulesPath))?[.modificationDate]
                as? Date) ?? Date()
        log = RunLog(verbose: configuration.verbose)
        rules = try Runner.loadRules(configuration.rulesPath)
        store = try Store(directory: configuration.stateDirectory)
        let rulesDirectory = URL(fileURLWithPath: configuration.rulesPath).deletingLastPathComponent().path
        // As in the single-box run: `log:` files and hooks' working directory under --log-directory.
        let logDirectory = configuration.logDirectory ?? rulesDirectory
        hooks = HookRunner(
            configuration: HookRunner.Configuration(
                maxConcurrent: configuration.hookSlots, workingDirectory: logDirectory))
        executor = ActionExecutor(
            store: store, hooks: hooks, rulesDirectory: rulesDirectory, logDirectory: logDirectory, log: log,
            timeZone: rules.timeZone)
        book = LeaseBook(
            engine: settings.engineID, partitions: settings.partitions, leaseSeconds: settings.leaseSeconds)
        do {
            let jetStream = try JetStream(servers: settings.servers, name: "geofence \(settings.engineID)")
            self.jetStream = jetStream
            let log = log
            func retrying<Value>(_ body: () throws -> Value) throws -> Value {
                try Self.retryingWhileTransient(seconds: Self.startRetrySeconds, log: log, body)
            }
            try retrying {
                try jetStream.ensureStream(
                    .init(
                        name: settings.fixStream, subjects: [settings.fixPrefix + ".>"],
                        replicas: settings.replicas))
            }
            try retrying {
                try jetStream.ensureStream(
                    .init(
                        name: settings.outputStream, subjects: [settings.outputPrefix + ".>"],
                        replicas: settings.replicas, duplicateWindowSeconds: settings.duplicateWindowSeconds))
            }
            let bucket = try retrying {
                try jetStream.keyValue(bucket: settings.bucket, replicas: settings.replicas)
            }
            self.bucket = bucket
            let count = Array(String(settings.partitions).utf8)
            if try retrying({ try bucket.create(PartitionSnapshot.configKey, count) }) == nil,
                let recorded = try retrying({ try bucket.get(PartitionSnapshot.configKey) }),
                recorded.value != count
            {
                throw RunError(
                    message:
                        "the bucket \(settings.bucket) records \(String(decoding: recorded.value, as: UTF8.self)) partitions, not \(settings.partitions): every engine and the server's mapping must agree"
                )
            }
            let started = started
            keeper = LeaseKeeper(
                bucket: bucket, engine: settings.engineID, leaseSeconds: settings.leaseSeconds, log: log,
                clock: { ProcessInfo.processInfo.systemUptime - started })
        } catch let error as NATSError {
            store.close()
            throw RunError(message: "\(error)")
        } catch {
            store.close()
            throw error
        }
    }

    /// Seconds since the start on a monotonic clock.
    private var now: Double { ProcessInfo.processInfo.systemUptime - started }

    /// `body`'s result, tried again every half second while it fails in a way a cluster electing
    /// leaders fails (``NATSError/isTransient``), for up to `seconds`; other failures at once.
    static func retryingWhileTransient<Value>(
        seconds: Double, log: RunLog, _ body: () throws -> Value
    ) throws -> Value {
        let deadline = Date().addingTimeInterval(seconds)
        var reported = false
        while true {
            do {
                return try body()
            } catch let error as NATSError where error.isTransient && Date() < deadline {
                if !reported {
                    log.warning("\(error); trying again while the cluster recovers")
                    reported = true
                }
                Thread.sleep(forTimeInterval: 0.5)
            }
        }
    }

    /// Runs until SIGTERM or SIGINT; returns the exit status (1 if the store could not be written).
    public func run() -> Int32 {
        installSignalHandlers()
        executor.startCompletions()
        do {
            for action in try store.pendingActions() { executor.execute(action) }
        } catch {
            log.error("cannot read the outbox: \(error)")
        }
        log.info(
            "engine \(settings.engineID): connected to \(jetStream.connectedURL); \(settings.partitions) partitions, lease \(RulesDuration.text(settings.leaseSeconds))"
        )
        // Announce this engine, then wait one renewal so that engines started together see each
        // other before the first claims, instead of one taking everything and handing it back.
        keeper.renewMembership()
        keeper.start()
        var nextTick = now + settings.leaseSeconds / 3
        var nextSnapshot = now + settings.snapshotSeconds
        while true {
            let flags = signals.withLock { flags in
                defer { flags.reload = false }
                return flags
            }
            if flags.stop {
                log.info("stopping: signal received")
                break
            }
            if flags.reload { reload() }
            if now >= nextTick {
                nextTick = now + settings.leaseSeconds / 3
                leaseTick()
            }
            if now >= nextSnapshot {
                nextSnapshot = now + settings.snapshotSeconds
                for partition in owned.keys.sorted() { snapshot(partition) }
            }
            var idle = true
            for partition in owned.keys.sorted() {
                if failed { break }
                if consume(partition) { idle = false }
            }
            if failed { break }
            if owned.isEmpty || idle { Thread.sleep(forTimeInterval: 0.05) }
        }
        shutDown()
        return failed ? 1 : 0
    }

    // MARK: Consuming

    /// Fetches and processes one batch of `partition`; returns whether there was anything.
    private func consume(_ partition: Int) -> Bool {
        guard let work = owned[partition] else { return false }
        // The fence: nothing is committed, published or acknowledged for a partition this engine
        // may have lost; it waits for the keeper's next renewal.
        guard keeper.mayCommit(partition) else { return false }
        if !work.unpublished.isEmpty || !work.unacknowledged.isEmpty {
            // The last batch's output is not stored yet: nothing new until it is.
            return flush(work)
        }
        guard let consumer = work.consumer ?? recreateConsumer(work) else { return false }
        let messages: [JetStreamMessage]
        do {
            messages = try consumer.fetch(maximum: Self.batchSize, waitSeconds: 0.02)
            work.fetchFailures = 0
            if let line = work.fetchWarning.ended("partition \(partition): fetches again") { log.info(line) }
        } catch {
            work.fetchFailures += 1
            if let line = work.fetchWarning.occurred("partition \(partition): \(error); retrying") {
                log.warning(line)
            }
            // A consumer whose fetches keep failing (its leader moved while a node was lost) is
            // created again at the position the engine has applied.
            if work.fetchFailures >= 3 { work.consumer = nil }
            return false
        }
        guard !messages.isEmpty else { return false }
        guard keeper.mayCommit(partition) else {
            for message in messages { message.reject() }
            return false
        }
        var batch = Batch()
        var gap = false
        for message in messages {
            if gap {
                // Delivered after a lost one: it comes again when the consumer is re-created.
                message.reject()
                continue
            }
            if work.lastConsumerSequence != 0, message.consumerSequence != work.lastConsumerSequence + 1 {
                log.warning(
                    "partition \(partition): delivery \(work.lastConsumerSequence + 1) was lost; reading again after stream sequence \(work.applied)"
                )
                gap = true
                message.reject()
                continue
            }
            work.lastConsumerSequence = message.consumerSequence
            work.unacknowledged.append(message)
            // A redelivery of what is already applied (an acknowledgement lost) changes nothing.
            guard message.streamSequence > work.applied else { continue }
            work.applied = message.streamSequence
            process(message, in: work, batch: &batch)
        }
        commit(batch, of: work)
        if gap { work.consumer = nil }
        return true
    }

    private func process(_ message: JetStreamMessage, in work: PartitionWork, batch: inout Batch) {
        guard let subject = FixSubject(message.subject, prefix: settings.fixPrefix),
            subject.partition == work.partition
        else {
            log.warning(
                "stream message \(message.streamSequence) on \(message.subject) is not a fix subject; skipped"
            )
            return
        }
        let line = OwnTracksMessage.line(payload: message.payload, topic: subject.ownTracksTopic)
        switch work.decoder.decode(line, number: Int(message.streamSequence)) {
        case .success(let record?):
            if case .fix(let fix) = record {
                // The snapshot names devices as the pipeline does, through the rules' `people:`.
                let device = work.pipeline.rules.people.device(
                    fix.deviceId ?? fix.label ?? Pipeline.defaultDevice)
                if PartitionSnapshot.covers(
                    work.restoredSequences, device: device, sequence: message.streamSequence)
                {
                    return
                }
            }
            let arrivedAt = configuration.history ? nil : message.storedAt
            if let output = work.pipeline.process(record, arrivedAt: arrivedAt) {
                work.dirty.insert(output.device)
                work.dirty.formUnion(output.alsoChanged)
                batch.add(output, device: output.device)
            }
        case .success(nil):
            break
        case .failure(let failure):
            log.warning("\(failure) (message on \(message.subject)); skipped")
        }
    }

    /// Commits the batch to the store, then hands its output to ``flush(_:)``.
    private func commit(_ batch: Batch, of work: PartitionWork) {
        do {
            var step = try batch.step(pipeline: work.pipeline, now: Date())
            // Device states live in the bucket's snapshots, the only copy a new owner reads.
            step.states = []
            try store.commit(step)
            for output in batch.outputs {
                for event in output.placeEvents {
                    work.unpublished.append(
                        try publication("event", event, device: event.device, id: event.id))
                }
                for commute in output.commutes {
                    work.unpublished.append(
                        try publication("commute", commute, device: commute.device, id: commute.id))
                }
                for action in output.actions {
                    work.unpublished.append(
                        try publication("action", action, device: action.device, id: action.id))
                }
            }
            if !work.reportedFirstEvent, !batch.outputs.allSatisfy({ $0.placeEvents.isEmpty }) {
                work.reportedFirstEvent = true
                log.info(
                    "partition \(work.partition): first event since taken, \(Int(Date().timeIntervalSince(work.takenAt) * 1000)) ms after the claim"
                )
            }
            let committed = CommittedBatch(outputs: batch.outputs, rulesChangedAt: rulesChangedAt)
            for output in outputs { output.deliver(committed) }
            for action in step.actions {
                // A partition read again (taken back, or a delivery lost) repeats actions this
                // engine has already carried out: the outbox has them finished.
                if let stored = try store.action(id: action.id), stored.status != .pending { continue }
                executor.execute(action)
            }
        } catch {
            // Nothing is acknowledged: another engine, or this one after a restart, reads it again.
            log.error("cannot write to the store: \(error); stopping")
            failed = true
            return
        }
        _ = flush(work)
    }

    /// `value` as the output stream carries it: on `geofence.out.KIND.DEVICE`, the line `run`
    /// prints, with its id for JetStream's duplicate window.
    private func publication<Value: Encodable>(_ kind: String, _ value: Value, device: String, id: String)
        throws
        -> PartitionWork.Publication
    {
        PartitionWork.Publication(
            subject: NATSNames.outputSubject(prefix: settings.outputPrefix, kind: kind, device: device),
            payload: Array(try EngineJSON.line(kind, value).utf8), id: id, group: device)
    }

    /// Publishes what is committed and not yet published, then acknowledges its messages; returns
    /// whether everything went out. On a failure (no quorum during a server's loss) it keeps what
    /// was not stored for the next turn, each device's in its order (see
    /// ``JetStream/publishInOrder(_:)``): the messages stay unacknowledged meanwhile.
    @discardableResult
    private func flush(_ work: PartitionWork) -> Bool {
        guard keeper.mayCommit(work.partition) else { return false }
        if !work.unpublished.isEmpty {
            let outcome = jetStream.publishInOrder(work.unpublished)
            if let failure = outcome.failure {
                let left = outcome.stored.filter { !$0 }.count
                work.unpublished = zip(work.unpublished, outcome.stored).compactMap { $1 ? nil : $0 }
                if let line = work.publishWarning.occurred(
                    "partition \(work.partition): \(left) output messages not stored (\(failure)); retrying")
                {
                    log.warning(line)
                }
                outputRefused()
                return false
            }
            work.unpublished.removeAll()
            if let line = work.publishWarning.ended("partition \(work.partition): output stored again") {
                log.info(line)
            }
            outputStored()
        }
        // Publishing can wait for the stream: the fence again before acknowledging.
        guard keeper.mayCommit(work.partition) else { return false }
        for message in work.unacknowledged {
            do {
                try message.acknowledge()
            } catch {
                // It is delivered again and skipped by sequence.
                log.warning("partition \(work.partition): \(error)")
            }
        }
        work.unacknowledged.removeAll()
        return true
    }

    /// Notes a flush whose output the stream did not all store. Once none has been stored for
    /// ``stuckStreamSeconds``, logs who holds the output stream and asks its leader to step down,
    /// again at most every ``stuckStreamSeconds`` while it lasts.
    ///
    /// A cluster that lost a node normally elects a new leader within seconds. nats-server 2.9
    /// can instead keep a stream whose leader answers no publish ("no responders") for as long
    /// as it is left alone (CI saw ten minutes, until the test gave up), and a new election is
    /// what ends it; with a healthy leader a step-down costs one election's pause.
    private func outputRefused() {
        let since = outputFailingSince ?? now
        outputFailingSince = since
        guard now - since >= Self.stuckStreamSeconds, now >= nextStepDown else { return }
        nextStepDown = now + Self.stuckStreamSeconds
        let stream = settings.outputStream
        let holders: String
        do {
            holders = try jetStream.clusterState(stream)
        } catch {
            holders = "\(error)"
        }
        let failing = "the output stream \(stream) has stored no flush for \(Int(now - since)) s (\(holders))"
        do {
            try jetStream.stepDownLeader(stream)
            log.warning("\(failing); asked its leader to step down")
        } catch {
            log.warning("\(failing); cannot ask its leader to step down: \(error)")
        }
    }

    /// Notes a flush whose output was all stored.
    private func outputStored() {
        guard let since = outputFailingSince else { return }
        outputFailingSince = nil
        if now - since >= Self.stuckStreamSeconds {
            log.info("the output stream \(settings.outputStream) stores again after \(Int(now - since)) s")
        }
    }

    /// Creates `work`'s consumer again after what the engine has applied (after a lost delivery,
    /// or fetches that keep failing); `nil` (tried again next turn) while the cluster cannot.
    private func recreateConsumer(_ work: PartitionWork) -> PullConsumer? {
        do {
            work.consumer?.unsubscribe()
            work.consumer = nil
            let consumer = try makeConsumer(work.partition, after: work.applied)
            work.consumer = consumer
            work.lastConsumerSequence = 0
            work.fetchFailures = 0
            log.info(
                "partition \(work.partition): consumer created again after stream sequence \(work.applied)")
            return consumer
        } catch {
            log.warning("partition \(work.partition): cannot create the consumer again: \(error); retrying")
            return nil
        }
    }

    private func makeConsumer(_ partition: Int, after sequence: UInt64) throws(NATSError) -> PullConsumer {
        try jetStream.pullConsumer(
            stream: settings.fixStream, durable: settings.consumerName(partition: partition),
            filter: settings.fixFilter(partition: partition), startSequence: sequence + 1, ackWaitSeconds: 30,
            maxAckPending: 4 * Self.batchSize, replicas: settings.replicas)
    }

    // MARK: Snapshots

    /// Writes the changed device states of `partition` and then its marker; skipped while output
    /// is unpublished (a snapshot must never cover a message whose output is not stored).
    /// Returns whether the partition's state is in the bucket.
    @discardableResult
    private func snapshot(_ partition: Int) -> Bool {
        guard let work = owned[partition] else { return false }
        guard flush(work) else { return false }
        if work.dirty.isEmpty && work.applied == work.snapshotSequence { return true }
        // Fencing: prove the lease is still ours just before writing.
        guard keeper.renewNow(partition) else { return false }
        do {
            // The records go out together (a key-value put is a publish on the bucket's stream);
            // the marker only once every one is stored.
            let before = jetStream.publishTally
            for device in work.dirty.sorted() {
                guard let state = work.pipeline.state.devices[device] else { continue }
                let record = PartitionSnapshot.DeviceRecord(
                    device: device, sequence: work.applied, state: state)
                try jetStream.publishAsync(
                    subject: bucket.subject(
                        PartitionSnapshot.deviceKey(partition: partition, device: device)),
                    payload: try PartitionSnapshot.encode(record))
            }
            try jetStream.waitForPublishes(timeoutSeconds: JetStream.publishAnswerSeconds + 5)
            let after = jetStream.publishTally
            guard after.failures == before.failures else {
                throw NATSError("writing device records", message: after.lastFailure)
            }
            try bucket.put(
                PartitionSnapshot.markerKey(partition: partition),
                try PartitionSnapshot.encode(
                    PartitionSnapshot.Marker(sequence: work.applied, engine: settings.engineID)))
            work.dirty.removeAll()
            work.snapshotSequence = work.applied
            return true
        } catch {
            log.warning("partition \(partition): cannot write the snapshot: \(error); trying again later")
            return false
        }
    }

    // MARK: Leases

    private func drop(_ partition: Int) {
        owned[partition]?.consumer?.unsubscribe()
        owned[partition] = nil
        keeper.forget(partition)
    }

    private func leaseTick() {
        for partition in keeper.lost where owned[partition] != nil { drop(partition) }
        do {
            // Each lease is one direct read (no consumer to create, which costs a cluster a Raft
            // round); members are listed only every third tick, a lease time apart, and without a
            // watcher (whose consumer may land on a lost node: KeyValueBucket.lookUp).
            var leases: [Int: LeaseBook.Lease] = [:]
            for partition in 0..<settings.partitions {
                guard let entry = try bucket.get(PartitionSnapshot.leaseKey(partition: partition)) else {
                    continue
                }
                let owner = String(decoding: entry.value, as: UTF8.self)
                leases[partition] = .init(owner: owner.isEmpty ? nil : owner, revision: entry.revision)
            }
            ticks += 1
            if members == nil || ticks % 3 == 0 {
                var listed: [String: UInt64] = [:]
                for entry in try bucket.lookUp(matching: "member.*", in: jetStream) {
                    listed[String(decoding: entry.value, as: UTF8.self)] = entry.revision
                }
                members = listed
            }
            book.observe(leases: leases, members: members ?? [:], now: now)
        } catch {
            log.warning("cannot read the leases: \(error)")
            return
        }
        let plan = book.plan(held: Set(owned.keys), now: now)
        for partition in plan.release { release(partition) }
        for partition in plan.claim { claim(partition) }
    }

    /// Hands `partition` back: snapshot, then mark the lease free (compare-and-set) for another
    /// engine to claim at once.
    private func release(_ partition: Int) {
        guard let work = owned[partition], snapshot(partition) else { return }
        keeper.release(partition) { revision in
            do {
                if try bucket.update(PartitionSnapshot.leaseKey(partition: partition), [], revision: revision)
                    != nil
                {
                    log.info(
                        "partition \(partition): released (snapshot at sequence \(work.snapshotSequence))")
                }
            } catch {
                log.warning("partition \(partition): cannot release the lease: \(error); it expires instead")
            }
        }
        drop(partition)
    }

    private func claim(_ partition: Int) {
        let key = PartitionSnapshot.leaseKey(partition: partition)
        let previous = book.leases[partition]
        let value = Array(settings.engineID.utf8)
        let sentAt = now
        do {
            let revision: UInt64? =
                if let previous {
                    try bucket.update(key, value, revision: previous.revision)
                } else {
                    try bucket.create(key, value)
                }
            guard let revision else { return }
            // Kept (renewed) from now: restoring a large partition can take a while.
            keeper.hold(partition, revision: revision, sentAt: sentAt)
            do {
                try takeOver(partition, from: previous?.owner)
            } catch {
                // Hand the lease back at once rather than sit on a partition nobody reads.
                keeper.release(partition) { revision in _ = try? bucket.update(key, [], revision: revision) }
                throw error
            }
        } catch {
            log.warning("partition \(partition): cannot take it: \(error)")
        }
    }

    /// Restores `partition` from its snapshot and starts reading after the sequence it covers.
    private func takeOver(_ partition: Int, from previousOwner: String?) throws {
        let began = Date()
        let markerKey = PartitionSnapshot.markerKey(partition: partition)
        let marker = try bucket.get(markerKey).map { try PartitionSnapshot.marker($0.value, key: markerKey) }
        // Read key by key rather than with a watcher, whose consumer may be placed on a lost node
        // and never answer (KeyValueBucket.lookUp): a takeover is most needed just then.
        let records = try bucket.lookUp(
            matching: PartitionSnapshot.deviceFilter(partition: partition), in: jetStream
        ).map {
            try PartitionSnapshot.deviceRecord($0.value, key: $0.key)
        }
        let restored = PartitionSnapshot.restore(marker: marker, records: records)
        var state = PipelineState()
        state.devices = restored.devices
        let consumer = try makeConsumer(partition, after: restored.resumeAfter)
        owned[partition] = PartitionWork(
            partition: partition, consumer: consumer,
            pipeline: Pipeline(rules: rules, state: state),
            decoder: LineDecoder(format: .owntracks, source: "nats", timeZone: configuration.inputTimeZone),
            restored: restored)
        let from = previousOwner.map { " from \($0)" } ?? ""
        log.info(
            "partition \(partition): taken\(from); \(restored.devices.count) devices restored, reading after stream sequence \(restored.resumeAfter) (\(Int(Date().timeIntervalSince(began) * 1000)) ms)"
        )
    }

    // MARK: Stopping, signals, reloads

    private func shutDown() {
        for partition in owned.keys.sorted() { release(partition) }
        keeper.stop()
        do {
            try bucket.delete(PartitionSnapshot.memberKey(engine: settings.engineID))
        } catch {
            log.warning("cannot remove the membership: \(error)")
        }
        jetStream.close()
        if !executor.waitForHooks(seconds: configuration.graceSeconds) {
            log.warning("hooks still running after the grace period are stopped and handed back")
            executor.handBack()
            _ = executor.waitForHooks(seconds: hooks.configuration.graceSeconds + 10)
        }
        hooks.finish()
        store.close()
    }

    private func installSignalHandlers() {
        for (number, isReload) in [(SIGTERM, false), (SIGINT, false), (SIGHUP, true)] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in
                self?.signals.withLock { flags in
                    if isReload { flags.reload = true } else { flags.stop = true }
                }
            }
            source.resume()
            signalSources.append(source)
        }
    }

    private func reload() {
        log.info("SIGHUP: reloading \(configuration.rulesPath)")
        do {
            rules = try Runner.loadRules(configuration.rulesPath)
            for work in owned.values { work.pipeline.replaceRules(rules) }
            rulesChangedAt =
                ((try? FileManager.default.attributesOfItem(atPath: configuration.rulesPath))?[
                    .modificationDate]
                    as? Date) ?? Date()
            log.info("rules reloaded: \(rules.places.count) places, \(rules.rules.count) rules")
        } catch {
            log.error("the new rules were not loaded; the old rules keep running:\n\(error)")
        }
    }
}
