import CSpawn
import Foundation

/// The loop that watches one spawned hook: writes its stdin, captures its outputs, notices its
/// exit, enforces its timeout on the whole process group and finally reaps it.
///
/// The child is not reaped until the very end (its exit is seen with `waitid(WNOWAIT)`), so its
/// pid, which is also its process group id, cannot be reused by another process while we may
/// still signal the group.
struct Supervisor {
    let pid: pid_t
    var pipes: Pipes
    let stdin: Data
    let started: Double
    let timeoutSeconds: Double
    let configuration: HookRunner.Configuration
    /// Asked on every turn; once it says yes the hook is stopped as at a timeout, but abandoned.
    let shouldStop: () -> Bool

    private var stdinWritten = 0
    private var output = CapturedOutput()
    private var errors = CapturedOutput()
    private var exitedAt: Double?
    private var timedOut = false
    private var abandoned = false
    /// Whether the hook's group has been sent SIGTERM, for its timeout or because we stop.
    private var terminating: Bool { timedOut || abandoned }
    private var killAt: Double?
    private var killed = false
    private var giveUpAt: Double?

    init(
        pid: pid_t, pipes: Pipes, stdin: Data, started: Double, timeoutSeconds: Double,
        configuration: HookRunner.Configuration, shouldStop: @escaping () -> Bool = { false }
    ) {
        self.pid = pid
        self.pipes = pipes
        self.stdin = stdin
        self.started = started
        self.timeoutSeconds = timeoutSeconds
        self.configuration = configuration
        self.shouldStop = shouldStop
    }

    mutating func superviseUntilDone() -> HookResult {
        if stdin.isEmpty { Pipes.close(&pipes.parentStdin) }
        let deadline = started + max(0, timeoutSeconds)
        while true {
            let now = HookProcess.monotonicSeconds()

            if exitedAt == nil, cspawn_has_exited(pid) == 1 {
                exitedAt = now
                // Nobody is left to read stdin that we know of; a grandchild must not keep us writing.
                Pipes.close(&pipes.parentStdin)
                // After a normal exit, read what is already in the pipes for a short while only:
                // a background grandchild may hold them open for ever.
                giveUpAt = now + configuration.drainSeconds
            }
            if exitedAt == nil, !terminating, now >= deadline {
                timedOut = true
                _ = killpg(pid, SIGTERM)
                killAt = now + configuration.graceSeconds
            }
            if exitedAt == nil, !terminating, shouldStop() {
                // The runner is stopping: the hook is handed back unfinished, so it must not go on
                // (and finish its work unrecorded) after we are gone.
                abandoned = true
                _ = killpg(pid, SIGTERM)
                killAt = now + configuration.graceSeconds
            }
            if terminating, !killed, let killAt, now >= killAt || exitedAt != nil {
                // SIGTERM's grace is over, or the hook itself has gone: whatever is left of its
                // group (a child ignoring SIGTERM) gets SIGKILL. The unreaped hook pins the group id.
                _ = killpg(pid, SIGKILL)
                killed = true
                let drainUntil = HookProcess.monotonicSeconds() + configuration.drainSeconds
                giveUpAt = min(giveUpAt ?? drainUntil, drainUntil)
            }

            let outputsOpen = pipes.parentStdout >= 0 || pipes.parentStderr >= 0
            if exitedAt != nil, !outputsOpen, !terminating || killed { break }
            if exitedAt != nil, let giveUpAt, now >= giveUpAt, !terminating || killed { break }
            if killed, exitedAt == nil, let giveUpAt, now >= giveUpAt + 5 {
                // SIGKILL cannot be refused; only a process stuck in the kernel outlives it. Stop
                // reading and let the blocking reap below wait for it.
                break
            }

            pollOnce(now: now, deadline: deadline)
        }

        Pipes.close(&pipes.parentStdout)
        Pipes.close(&pipes.parentStderr)
        Pipes.close(&pipes.parentStdin)

        var signaled: Int32 = 0
        var code: Int32 = 0
        let termination: HookResult.Termination
        if cspawn_reap(pid, &signaled, &code) == 0 {
            termination = signaled == 1 ? .signaled(code) : .exited(code)
        } else {
            termination = .failedToStart("cannot wait for process \(pid): \(HookProcess.errorText(errno))")
        }
        let end = exitedAt ?? HookProcess.monotonicSeconds()
        return HookResult(
            termination: termination, timedOut: timedOut, durationSeconds: end - started,
            standardOutput: output, standardError: errors, abandoned: abandoned)
    }

    /// Waits for the pipes for at most one tick (less if a deadline comes first) and serves them.
    private mutating func pollOnce(now: Double, deadline: Double) {
        var descriptors: [pollfd] = []
        if pipes.parentStdin >= 0 {
            descriptors.append(pollfd(fd: pipes.parentStdin, events: Int16(POLLOUT), revents: 0))
        }
        if pipes.parentStdout >= 0 {
            descriptors.append(pollfd(fd: pipes.parentStdout, events: Int16(POLLIN), revents: 0))
        }
        if pipes.parentStderr >= 0 {
            descriptors.append(pollfd(fd: pipes.parentStderr, events: Int16(POLLIN), revents: 0))
        }

        // Short enough that an exit is noticed promptly; the pipes wake the loop sooner when busy.
        var wait = 0.025
        for moment in [deadline, killAt, giveUpAt].compactMap({ $0 }) where moment > now {
            wait = min(wait, moment - now)
        }
        let milliseconds = Int32(max(1, (wait * 1000).rounded(.up)))
        let ready = descriptors.withUnsafeMutableBufferPointer { buffer in
            poll(buffer.baseAddress, nfds_t(buffer.count), milliseconds)
        }
        guard ready > 0 else { return }  // timeout, or EINTR: the loop looks again

        for descriptor in descriptors where descriptor.revents != 0 {
            if descriptor.fd == pipes.parentStdin {
                writeStdin()
            } else if descriptor.fd == pipes.parentStdout {
                if Self.read(descriptor.fd, into: &output, limit: configuration.outputLimitBytes) {
                    Pipes.close(&pipes.parentStdout)
                }
            } else if descriptor.fd == pipes.parentStderr {
                if Self.read(descriptor.fd, into: &errors, limit: configuration.outputLimitBytes) {
                    Pipes.close(&pipes.parentStderr)
                }
            }
        }
    }

    private mutating func writeStdin() {
        let remaining = stdin.count - stdinWritten
        guard remaining > 0 else {
            Pipes.close(&pipes.parentStdin)
            return
        }
        let written = stdin.withUnsafeBytes { buffer in
            Glibc.write(pipes.parentStdin, buffer.baseAddress.map { $0 + stdinWritten }, remaining)
        }
        if written > 0 {
            stdinWritten += written
            // Closing tells the hook its input is complete.
            if stdinWritten == stdin.count { Pipes.close(&pipes.parentStdin) }
        } else if written < 0, errno != EAGAIN, errno != EINTR {
            // EPIPE: the hook closed its stdin without reading it all; that is its business.
            Pipes.close(&pipes.parentStdin)
        }
    }

    /// Reads what is available from `descriptor`, keeping up to `limit` bytes and counting the
    /// rest; returns `true` at end of file (or on an error that ends the stream).
    private static func read(_ descriptor: Int32, into capture: inout CapturedOutput, limit: Int) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        // Several reads per turn so a fast writer is drained quickly, but a bounded number, so a
        // writer that never stops cannot keep the loop from its deadlines.
        for _ in 0..<16 {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                capture.totalBytes += count
                let room = limit - capture.data.count
                if room > 0 { capture.data.append(contentsOf: buffer[0..<min(room, count)]) }
                continue
            }
            if count == 0 { return true }
            if errno == EINTR { continue }
            return errno != EAGAIN && errno != EWOULDBLOCK
        }
        return false
    }
}
