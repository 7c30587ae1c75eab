import Foundation
import GeofenceRules
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Carries out the actions in the outbox: appends log lines, delivers reminders, hands hooks to
/// the ``HookRunner``, and marks each done in the store when it has finished.
final class ActionExecutor: Sendable {
    private let store: Store
    private let hooks: HookRunner
    private let rulesDirectory: String
    private let log: RunLog
    /// The zone action lines are printed in (the rules file's).
    private let timeZone: TimeZone
    /// Hooks submitted and not yet marked done.
    private let inFlight = Mutex(0)

    init(store: Store, hooks: HookRunner, rulesDirectory: String, log: RunLog, timeZone: TimeZone) {
        self.timeZone = timeZone
        self.store = store
        self.hooks = hooks
        self.rulesDirectory = rulesDirectory
        self.log = log
    }

    /// Marks hooks done as they finish, off the engine's path.
    func startCompletions() {
        let completions = hooks.completions
        Task.detached { [self] in
            for await completion in completions {
                let result = completion.result
                if result.abandoned {
                    // Left unfinished in the outbox on purpose: it runs again at the next start.
                    log.warning(
                        "hook \(completion.hook.id) (\(completion.hook.arguments.first ?? "")): "
                            + "\(result.summary); handed back, it runs again at the next start")
                    inFlight.withLock { $0 -= 1 }
                    continue
                }
                let level: LogEntry.Level = result.succeeded ? .info : .warning
                log.write(
                    level,
                    "hook \(completion.hook.id) (\(completion.hook.arguments.first ?? "")): \(result.summary)"
                )
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
        case .log(let path):
            say(action, "log" + (path.map { " to \($0)" } ?? ""))
            var outcome = ActionOutcome(succeeded: true, message: "printed")
            if let path {
                outcome = append(action, to: path)
            }
            finish(outbox.id, outcome)
        case .remind(let message):
            say(action, "REMINDER: \(message)")
            finish(outbox.id, ActionOutcome(succeeded: true, message: "delivered"))
        case .run(let arguments, let timeout):
            say(action, "run \(arguments.joined(separator: " "))")
            let fields = ActionExecutor.fields(action)
            let hook = Hook(
                id: action.id, arguments: arguments, environment: HookEnvironment.variables(fields),
                stdin: HookEnvironment.standardInput(fields), timeoutSeconds: timeout)
            do {
                try store.markRunning(outbox.id)
            } catch {
                log.error("cannot mark hook \(outbox.id) running: \(error)")
            }
            inFlight.withLock { $0 += 1 }
            if !hooks.submit(hook) {
                inFlight.withLock { $0 -= 1 }
                log.warning("hook \(action.id) not started: stopping; it runs at the next start")
            }
        }
    }

    /// Waits until every submitted hook has finished and been marked done, or `seconds` passed;
    /// returns whether all finished.
    func waitForHooks(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds.isFinite ? seconds : 365 * 86400)
        while inFlight.withLock({ $0 }) > 0 {
            if Date() >= deadline { return false }
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
        do {
            try store.markDone(id, outcome: outcome)
        } catch {
            log.error("cannot mark action \(id) done: \(error)")
        }
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
        let full = path.hasPrefix("/") ? path : rulesDirectory + "/" + path
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
