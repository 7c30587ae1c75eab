public import Foundation

/// A hook and how its run ended, as delivered on ``HookRunner/completions``.
public struct HookCompletion: Sendable, Equatable {
    /// The hook that ran.
    public var hook: Hook
    /// How it ended.
    public var result: HookResult

    /// Makes a completion from its parts.
    public init(hook: Hook, result: HookResult) {
        self.hook = hook
        self.result = result
    }
}

/// Runs hooks off the caller's path, at most a fixed number at once, the rest waiting in order.
///
/// ``submit(_:)`` only queues and returns at once, so a slow or hanging hook never delays the
/// caller (the monitor); a burst of events waits in a first-in, first-out queue instead of
/// forking without limit. Each running hook has a thread of its own (it blocks in `poll` and
/// `waitid`, which must not happen on Swift's cooperative pool). Results arrive on
/// ``completions`` in the order the hooks finish, for the runtime to mark them done in the store.
public final class HookRunner: Sendable {
    /// How hooks are run.
    public struct Configuration: Sendable {
        /// How many hooks may run at once.
        public var maxConcurrent: Int
        /// The directory hooks run in and against which a relative program path is resolved
        /// (typically the rules file's directory); `nil` for geofence's own working directory.
        public var workingDirectory: String?
        /// The environment every hook starts from, before its own variables are added.
        public var inheritedEnvironment: [String: String]
        /// How many bytes of each of stdout and stderr are kept; the rest is read and counted.
        public var outputLimitBytes: Int
        /// How long a hook has between SIGTERM and SIGKILL once its timeout has passed.
        public var graceSeconds: Double
        /// How long output is still read after the hook exits, for what a lingering child holds.
        public var drainSeconds: Double

        /// Makes a configuration; every part has a default.
        public init(
            maxConcurrent: Int = 4, workingDirectory: String? = nil,
            inheritedEnvironment: [String: String] = HookRunner.inheritedEnvironment(),
            outputLimitBytes: Int = 64 * 1024, graceSeconds: Double = 2, drainSeconds: Double = 0.5
        ) {
            self.maxConcurrent = max(1, maxConcurrent)
            self.workingDirectory = workingDirectory
            self.inheritedEnvironment = inheritedEnvironment
            self.outputLimitBytes = max(0, outputLimitBytes)
            self.graceSeconds = max(0, graceSeconds)
            self.drainSeconds = max(0, drainSeconds)
        }
    }

    /// The variables a hook inherits from geofence's own environment; everything else (tokens,
    /// credentials) stays behind.
    public static let inheritedVariableNames = [
        "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR",
    ]

    /// The inherited variables present in `environment`, with a default `PATH` if it has none.
    public static func inheritedEnvironment(
        from environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [String: String] {
        var inherited: [String: String] = [:]
        for name in inheritedVariableNames { inherited[name] = environment[name] }
        if inherited["PATH"] == nil { inherited["PATH"] = "/usr/local/bin:/usr/bin:/bin" }
        return inherited
    }

    /// Runs one hook now, on a thread of its own, and returns how it ended.
    public static func run(_ hook: Hook, configuration: Configuration = Configuration()) async -> HookResult {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: HookProcess.run(hook, configuration: configuration))
            }
        }
    }

    private struct Queue {
        var waiting: [Hook] = []
        var head = 0
        var running = 0
        var finishing = false
        var abandoning = false

        var count: Int { waiting.count - head }

        mutating func pop() -> Hook? {
            guard head < waiting.count else { return nil }
            let hook = waiting[head]
            head += 1
            // Compact now and then so a long run does not keep every hook it ever queued.
            if head > 64, head * 2 > waiting.count {
                waiting.removeFirst(head)
                head = 0
            }
            return hook
        }
    }

    /// How hooks are run.
    public let configuration: Configuration
    /// Each finished hook with its result, in the order they finish; ends after ``finish()`` once
    /// every queued hook has run. Read it from one task: each completion is delivered once.
    public let completions: AsyncStream<HookCompletion>
    private let continuation: AsyncStream<HookCompletion>.Continuation
    private let queue = Locked(Queue())

    /// Makes a runner; no thread runs until a hook is submitted.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        (completions, continuation) = AsyncStream.makeStream(of: HookCompletion.self)
    }

    /// Queues `hook` and returns at once; it starts as soon as a slot is free, after every hook
    /// submitted before it. Returns `false` (and drops the hook) after ``finish()``.
    @discardableResult
    public func submit(_ hook: Hook) -> Bool {
        let start: Bool? = queue.withLock { queue in
            guard !queue.finishing else { return nil }
            queue.waiting.append(hook)
            guard queue.running < configuration.maxConcurrent else { return false }
            queue.running += 1
            return true
        }
        guard let start else { return false }
        if start { Thread.detachNewThread { [self] in work() } }
        return true
    }

    /// Accepts no more hooks; ``completions`` ends once those queued have run.
    public func finish() {
        let idle = queue.withLock { queue in
            queue.finishing = true
            return queue.running == 0
        }
        if idle { continuation.finish() }
    }

    /// Stops for good: accepts no more hooks, drops those waiting for a slot and returns them, and
    /// stops those running (SIGTERM to the process group, SIGKILL after ``Configuration/graceSeconds``).
    ///
    /// The running ones still arrive on ``completions``, with ``HookResult/abandoned`` set: they did
    /// not finish. A hook left running when its runner goes away would finish its work unrecorded
    /// and then run again at the next start; stopped, it only runs again.
    @discardableResult
    public func abandon() -> [Hook] {
        let (dropped, idle) = queue.withLock { queue in
            queue.finishing = true
            queue.abandoning = true
            var dropped: [Hook] = []
            while let hook = queue.pop() { dropped.append(hook) }
            return (dropped, queue.running == 0)
        }
        if idle { continuation.finish() }
        return dropped
    }

    /// How many hooks are running now.
    public var runningCount: Int { queue.withLock { $0.running } }

    /// How many hooks wait for a slot.
    public var queuedCount: Int { queue.withLock { $0.count } }

    /// A slot's thread: runs hooks from the queue until it is empty, then gives the slot back.
    private func work() {
        while true {
            let next: Hook? = queue.withLock { queue in
                if let hook = queue.pop() { return hook }
                queue.running -= 1
                return nil
            }
            guard let hook = next else { break }
            let result = HookProcess.run(hook, configuration: configuration) { [self] in
                queue.withLock { $0.abandoning }
            }
            continuation.yield(HookCompletion(hook: hook, result: result))
        }
        let done = queue.withLock { $0.finishing && $0.running == 0 && $0.count == 0 }
        if done { continuation.finish() }
    }
}
