import Foundation
import GeofenceRules

#if canImport(Glibc)
    import Glibc
#endif

/// Carries out the actions in the outbox: appends log lines, delivers reminders, hands hooks to
/// the ``HookRunner``, and marks each done in the store when it has finished.
final class ActionExecutor: Sendable {
    private let store: Store
    private let hooks: HookRunner
    /// Relative hook programs are found here.
    private let rulesDirectory: String
    /// Relative `log:` paths point here.
    private let logDirectory: String
    private let log: RunLog
    /// The zone action lines are printed in (the rules file's).
    private let timeZone: TimeZone
    /// Hooks submitted and not yet marked done.
    private let inFlight = Locked(0)
    /// The actions of hooks submitted and not yet finished, by id: their outcome line names the
    /// rule and the program as the rules file wrote it.
    private let submitted = Locked<[String: FiredAction]>([:])
    /// How many actions finished and how many of those failed, for the run's summary.
    let finished = Locked((done: 0, failed: 0))
    /// Sends `post:` actions and reminders through post channels.
    private let webhooks: WebhookSender
    /// Publishes to the `--mqtt` broker (reminders through mqtt channels); `nil` without one.
    private let publisher = Locked<MQTTPublish?>(nil)

    /// Publishes a payload to a topic at QoS 1; returns why it could not, or `nil`.
    typealias MQTTPublish = @Sendable (_ topic: String, _ payload: [UInt8]) -> String?

    init(
        store: Store, hooks: HookRunner, rulesDirectory: String, logDirectory: String, log: RunLog,
        timeZone: TimeZone
    ) {
        self.logDirectory = logDirectory
        self.timeZone = timeZone
        self.store = store
        self.hooks = hooks
        self.rulesDirectory = rulesDirectory
        self.log = log
        webhooks = WebhookSender(store: store, report: { level, message in log.write(level, message) })
    }

    /// Gives reminders through mqtt channels the broker's connection.
    func setPublisher(_ publish: @escaping MQTTPublish) {
        publisher.withLock { $0 = publish }
    }

    /// Waits up to `seconds` for posts under way or waiting for a retry, then refuses further
    /// attempts; returns how many were left for the next start.
    func finishPosts(seconds: Double) -> Int {
        _ = webhooks.waitUntilIdle(seconds: seconds)
        return webhooks.stop(waitingSeconds: 15)
    }

    /// Marks hooks done as they finish, off the engine's path.
    func startCompletions() {
        let completions = hooks.completions
        Task.detached { [self] in
            for await completion in completions {
                let result = completion.result
                let action = submitted.withLock { $0.removeValue(forKey: completion.hook.id) }
                let program: String
                if case .run(let run)? = action?.kind, let first = run.arguments.first {
                    program = first
                } else {
                    program = completion.hook.arguments.first ?? ""
                }
                if result.abandoned {
                    // Left unfinished in the outbox on purpose: it runs again at the next start.
                    log.warning(
                        "hook \(completion.hook.id) (\(program)): "
                            + "\(result.summary); handed back, it runs again at the next start")
                    inFlight.withLock { $0 -= 1 }
                    continue
                }
                let level: LogEntry.Level = result.succeeded ? .info : .warning
                log.write(level, "hook \(completion.hook.id) (\(program)): \(result.summary)")
                if let action { sayOutcome(action, program: program, result: result) }
                finished.withLock {
                    $0.done += 1
                    if !result.succeeded { $0.failed += 1 }
                }
                do {
                    try store.markDone(completion.hook.id, outcome: result.outcome)
                } catch {
                    log.error("cannot mark hook \(completion.hook.id) done: \(error)")
                }
                inFlight.withLock { $0 -= 1 }
            }
        }
    }

    /// Carries out one outbox action. Hooks run in the background; the rest at once.
    func execute(_ outbox: OutboxAction) {
        let action: FiredAction
        do {
            action = try EngineJSON.decoder().decode(FiredAction.self, from: Data(outbox.payloadJSON.utf8))
        } catch {
            log.error("outbox action \(outbox.id) cannot be read (\(error)); marked failed")
            try? store.markDone(
                outbox.id, outcome: ActionOutcome(succeeded: false, message: "unreadable payload"))
            return
        }
        switch action.kind {
        case .log(let log):
            let path = log.path
            say(action, "log" + (path.map { " to \($0)" } ?? ""))
            var outcome = ActionOutcome(succeeded: true, message: "printed")
            if let path {
                outcome = append(action, to: path)
            }
            finish(outbox.id, outcome)
        case .remind(let remind):
            let (message, channel) = (remind.message, remind.channel)
            say(action, "REMINDER: \(message)")
            switch channel {
            case nil: finish(outbox.id, ActionOutcome(succeeded: true, message: "delivered"))
            case .post(let target): post(action, id: outbox.id, to: target)
            case .mqtt(let topic):
                publish(outbox.id, WebhookMessage.json(ActionExecutor.fields(action)), to: topic)
            case .owntracks(let device):
                let device = device ?? action.device
                guard device.split(separator: "/", omittingEmptySubsequences: false).count == 2 else {
                    let failure = "device \(device) has no OwnTracks topic (its name is not USER/DEVICE)"
                    log.warning("reminder \(outbox.id): \(failure)")
                    finish(outbox.id, ActionOutcome(succeeded: false, message: failure))
                    return
                }
                publish(
                    outbox.id, OwnTracksNotification.command(ActionExecutor.fields(action)),
                    to: OwnTracksNotification.topic(device: device))
            }
        case .post(let webhook):
            let target = webhook.target
            say(action, "post to \(WebhookClient.redacted(target.url))")
            post(action, id: outbox.id, to: target)
        case .run(let run):
            let (arguments, timeout) = (run.arguments, run.timeoutSeconds)
            say(action, "run \(arguments.joined(separator: " "))")
            let fields = ActionExecutor.fields(action)
            let hook = Hook(
                id: action.id, arguments: HookProgram.arguments(arguments, rulesDirectory: rulesDirectory),
                environment: HookEnvironment.variables(fields),
                stdin: HookEnvironment.standardInput(fields), timeoutSeconds: timeout)
            do {
                try store.markRunning(outbox.id)
            } catch {
                log.error("cannot mark hook \(outbox.id) running: \(error)")
            }
            inFlight.withLock { $0 += 1 }
            submitted.withLock { $0[action.id] = action }
            if !hooks.submit(hook) {
                submitted.withLock { _ = $0.removeValue(forKey: action.id) }
                inFlight.withLock { $0 -= 1 }
                log.warning("hook \(action.id) not started: stopping; it runs at the next start")
            }
        }
    }

    /// Publishes a reminder through the `--mqtt` broker's connection and marks it done.
    private func publish(_ id: String, _ payload: [UInt8], to topic: String) {
        let failure =
            publisher.withLock { $0 }.map { $0(topic, payload) } ?? "no MQTT broker (--mqtt) to publish to"
        if let failure { log.warning("reminder \(id) to MQTT topic \(topic): \(failure)") }
        finish(id, ActionOutcome(succeeded: failure == nil, message: failure ?? "published to \(topic)"))
    }

    /// Hands a post to the sender, which marks it done (or failed) when it has been answered.
    private func post(_ action: FiredAction, id: String, to target: WebhookTarget) {
        let request = WebhookMessage.request(
            url: target.url, text: target.text, headers: target.headers,
            timeoutSeconds: target.timeoutSeconds,
            fields: ActionExecutor.fields(action))
        webhooks.send(id: id, request: request)
    }

    /// Waits until every submitted hook has finished and been marked done, `seconds` passed, or
    /// `interrupted` says yes (it is asked every 20 ms); returns whether all finished.
    @discardableResult
    func waitForHooks(seconds: Double, interrupted: () -> Bool = { false }) -> Bool {
        let deadline = Date().addingTimeInterval(seconds.isFinite ? seconds : 365 * 86400)
        while inFlight.withLock({ $0 }) > 0 {
            if Date() >= deadline || interrupted() { return false }
            usleep(20_000)
        }
        return true
    }

    /// Stops every hook (see ``HookRunner/abandon()``): those waiting for a slot are dropped and
    /// those running are stopped, all left unfinished in the outbox to run again at the next start.
    func handBack() {
        let dropped = hooks.abandon()
        for hook in dropped {
            log.warning(
                "hook \(hook.id) (\(hook.arguments.first ?? "")): not started; handed back, it runs again at the next start"
            )
        }
        inFlight.withLock { $0 -= dropped.count }
    }

    private func finish(_ id: String, _ outcome: ActionOutcome) {
        finished.withLock {
            $0.done += 1
            if !outcome.succeeded { $0.failed += 1 }
        }
        do {
            try store.markDone(id, outcome: outcome)
        } catch {
            log.error("cannot mark action \(id) done: \(error)")
        }
    }

    /// The line under a hook's action line that says how it ended, with the last line of its
    /// error output when it failed: `<- [lamp] ./lamp.sh: exited with status 3 after 0.012 s: ...`.
    private func sayOutcome(_ action: FiredAction, program: String, result: HookResult) {
        var line =
            "\(EngineJSON.localClock(action.date, in: timeZone))  \(action.device)  <- [\(action.rule)] \(program): \(result.summary)"
        if !result.succeeded,
            let last = result.standardError.text.split(separator: "\n").last(where: { !$0.isEmpty })
        {
            line += ": " + last.prefix(200)
        }
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    private func say(_ action: FiredAction, _ what: String) {
        let subject = action.place.map { " \($0)" } ?? ""
        let line =
            "\(EngineJSON.localClock(action.date, in: timeZone))  \(action.device)  -> [\(action.rule)] \(what) (on \(action.transition)\(subject))\n"
        FileHandle.standardOutput.write(Data(line.utf8))
    }

    /// Appends the action as one NDJSON line to a file relative to the rules file, created readable
    /// by its owner only (it holds places and times).
    ///
    /// The file is opened and written without blocking: a FIFO nobody reads (`open` fails with
    /// ENXIO), a pipe that is full (EAGAIN), `/dev/full` or a full disk (ENOSPC) give an error line
    /// and a failed outcome at once, and the engine goes on evaluating fixes instead of waiting on a
    /// reader that may never come.
    private func append(_ action: FiredAction, to path: String) -> ActionOutcome {
        let full = LogFile.path(path, in: logDirectory)
        // A missing directory is made (owner only), as `geofence check` announces.
        let parent = URL(fileURLWithPath: full).deletingLastPathComponent().path
        if !FileManager.default.fileExists(atPath: parent) {
            try? FileManager.default.createDirectory(
                atPath: parent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let line: String
        do {
            line =
                try EngineJSON.line(
                    action.commute == nil ? "action" : "commute",
                    action.commute.map(AnyEncodable.commute) ?? AnyEncodable.action(action)) + "\n"
        } catch {
            return ActionOutcome(succeeded: false, message: "cannot encode: \(error)")
        }
        let descriptor = open(full, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK, 0o600)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            log.error("log \(full): \(reason)")
            return ActionOutcome(succeeded: false, message: "cannot open \(full): \(reason)")
        }
        defer { close(descriptor) }
        let bytes = Array(line.utf8)
        var written = -1
        repeat {
            written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        } while written < 0 && errno == EINTR
        guard written == bytes.count else {
            let reason =
                written < 0
                ? String(cString: strerror(errno)) : "only \(written) of \(bytes.count) bytes written"
            log.error("log \(full): \(reason)")
            return ActionOutcome(succeeded: false, message: "cannot write to \(full): \(reason)")
        }
        return ActionOutcome(succeeded: true, message: "appended to \(full)")
    }

    /// The documented GEOFENCE_* fields of an action.
    static func fields(_ action: FiredAction) -> [HookEnvironment.Field: String] {
        var fields: [HookEnvironment.Field: String] = [
            .eventID: action.id, .rule: action.rule, .transition: action.transition.rawValue,
            .time: EngineJSON.timestamp(action.date), .device: action.device,
        ]
        fields[.place] = action.place
        fields[.latitude] = action.latitude.map { String($0) }
        fields[.longitude] = action.longitude.map { String($0) }
        fields[.accuracy] = action.accuracy.map { String($0) }
        fields[.message] = action.message
        if let commute = action.commute {
            fields[.commuteStart] = EngineJSON.timestamp(commute.start)
            fields[.commuteEnd] = commute.end.map(EngineJSON.timestamp)
            fields[.commuteDuration] = commute.durationSeconds.map { String(Int($0.rounded())) }
        }
        return fields
    }
}

/// A log line's body: the commute for commute rules, the action otherwise.
private enum AnyEncodable: Encodable {
    case commute(CommuteRecord)
    case action(FiredAction)

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .commute(let commute): try commute.encode(to: encoder)
        case .action(let action): try action.encode(to: encoder)
        }
    }
}
