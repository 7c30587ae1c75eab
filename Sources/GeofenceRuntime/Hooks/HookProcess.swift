import CSpawn
import Foundation

/// Runs one hook to completion on the calling thread: spawn, feed, capture, time out, reap.
///
/// Why not Foundation's `Process`: on Linux it can miss an exit while a grandchild holds the
/// inherited pipes (swift-corelibs-foundation#4795), lets a child inherit a blocked signal mask from
/// a Dispatch thread (#4772) and opens pipes without close-on-exec (#5409). Here the child is made
/// with posix_spawn (through CSpawn) in a process group of its own, with an empty signal mask,
/// default signal actions and every descriptor but 0, 1 and 2 closed; our pipe ends are
/// close-on-exec; and one loop polls the pipes and the child's exit together, so no read can
/// block past the child's end.
enum HookProcess {
    /// How many times a program that is busy being written is tried, and the pause in between.
    private static let textBusyAttempts = 40
    private static let textBusyPauseMicroseconds: UInt32 = 25_000

    /// Runs `hook` and returns how it ended. Blocks the calling thread until then. Once
    /// `shouldStop` says yes, the hook is stopped (SIGTERM, then SIGKILL to its group) and its
    /// result marked abandoned.
    static func run(
        _ hook: Hook, configuration: HookRunner.Configuration, shouldStop: @escaping () -> Bool = { false }
    ) -> HookResult {
        let started = monotonicSeconds()
        func failure(_ reason: String) -> HookResult {
            HookResult(
                termination: .failedToStart(reason), timedOut: false,
                durationSeconds: monotonicSeconds() - started)
        }

        var environment = configuration.inheritedEnvironment
        for (name, value) in hook.environment { environment[name] = value }
        guard let program = hook.arguments.first, !program.isEmpty else { return failure("no program given") }
        let executable: String
        switch resolve(program, path: environment["PATH"], workingDirectory: configuration.workingDirectory) {
        case .success(let path): executable = path
        case .failure(let reason): return failure(reason.message)
        }

        // An argument or variable cannot hold NUL; it is replaced rather than cutting the string.
        let arguments = hook.arguments.map(HookEnvironment.environmentSafe)
        let variables = environment.sorted { $0.key < $1.key }.compactMap { name, value -> String? in
            // A name with "=" or NUL would be read back as another variable; such a name is dropped.
            guard !name.isEmpty, !name.contains("="), !name.contains("\u{0}") else { return nil }
            return name + "=" + HookEnvironment.environmentSafe(value)
        }

        // A hook that stops reading its stdin makes our write fail with EPIPE, which also raises
        // SIGPIPE; blocked on this thread only, it stays pending and is consumed before unblocking.
        let restoreSignals = blockBrokenPipeSignal()
        defer { restoreSignals() }

        var pipes = Pipes()
        defer { pipes.closeAll() }
        if let error = pipes.open() { return failure("cannot make pipes: \(errorText(error))") }

        var pid: pid_t = 0
        var spawnError: Int32 = 0
        for attempt in 0..<textBusyAttempts {
            spawnError = withCStrings(arguments) { argv in
                withCStrings(variables) { envp in
                    cspawn_spawn(
                        executable, argv, envp, configuration.workingDirectory, pipes.childStdin,
                        pipes.childStdout,
                        pipes.childStderr, &pid)
                }
            }
            // ETXTBSY: some process holds the program open for writing. That is an editor saving the
            // script, or, briefly, a child of any thread of ours forked while a file was open without
            // close-on-exec and not yet exec'ed. Both pass in moments, so try again for a while.
            guard spawnError == ETXTBSY, attempt + 1 < textBusyAttempts else { break }
            usleep(textBusyPauseMicroseconds)
        }
        // The child has its copies; ours must go, or we would never see end-of-file on the outputs.
        pipes.closeChildEnds()
        if spawnError != 0 { return failure("\(executable): \(errorText(spawnError))") }

        var supervisor = Supervisor(
            pid: pid, pipes: pipes, stdin: hook.stdin, started: started, timeoutSeconds: hook.timeoutSeconds,
            configuration: configuration, shouldStop: shouldStop)
        let result = supervisor.superviseUntilDone()
        pipes = supervisor.pipes
        return result
    }

    // MARK: - Resolving the program

    struct ResolveError: Error {
        let message: String
    }

    /// The path to execute for `program`: as given if absolute, against `workingDirectory` if
    /// relative with a slash, else the first executable file of that name on `path`.
    static func resolve(_ program: String, path: String?, workingDirectory: String?) -> Result<
        String, ResolveError
    > {
        if program.contains("/") {
            let resolved: String
            if program.hasPrefix("/") {
                resolved = program
            } else {
                let base = workingDirectory ?? FileManager.default.currentDirectoryPath
                resolved = base.hasSuffix("/") ? base + program : base + "/" + program
            }
            return isExecutableFile(resolved)
                ? .success(resolved)
                : .failure(ResolveError(message: "\(resolved) is not an executable file"))
        }
        let searchPath = path ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in searchPath.split(separator: ":", omittingEmptySubsequences: false) {
            // An empty PATH entry traditionally means the working directory.
            let base = directory.isEmpty ? (workingDirectory ?? ".") : String(directory)
            let candidate = base + "/" + program
            if isExecutableFile(candidate) { return .success(candidate) }
        }
        return .failure(ResolveError(message: "\(program) not found on PATH (\(searchPath))"))
    }

    private static func isExecutableFile(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return false }
        return access(path, X_OK) == 0
    }

    // MARK: - Helpers

    static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// Calls `body` with a NULL-terminated array of C strings copied from `strings`.
    private static func withCStrings<R>(
        _ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>?) -> R
    ) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { for pointer in pointers { free(pointer) } }
        return pointers.withUnsafeBufferPointer { buffer in body(buffer.baseAddress) }
    }

    /// Blocks SIGPIPE on this thread; the returned function consumes a pending one and restores the mask.
    private static func blockBrokenPipeSignal() -> () -> Void {
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        let wasBlocked = sigismember(&previous, SIGPIPE) == 1
        return {
            guard !wasBlocked else { return }
            var poll = timespec(tv_sec: 0, tv_nsec: 0)
            var pending = sigset_t()
            while sigpending(&pending) == 0, sigismember(&pending, SIGPIPE) == 1 {
                if sigtimedwait(&pipeSignal, nil, &poll) != SIGPIPE { break }
            }
            var restore = previous
            pthread_sigmask(SIG_SETMASK, &restore, nil)
        }
    }
}

/// The six descriptors of the three pipes; -1 once closed.
struct Pipes {
    var childStdin: Int32 = -1
    var parentStdin: Int32 = -1
    var parentStdout: Int32 = -1
    var childStdout: Int32 = -1
    var parentStderr: Int32 = -1
    var childStderr: Int32 = -1

    /// Opens the three pipes, close-on-exec; returns an errno value on failure.
    mutating func open() -> Int32? {
        var fds: [Int32] = [-1, -1]
        for index in 0..<3 {
            let error = fds.withUnsafeMutableBufferPointer { cspawn_pipe($0.baseAddress) }
            if error != 0 { return error }
            switch index {
            case 0: (childStdin, parentStdin) = (fds[0], fds[1])
            case 1: (parentStdout, childStdout) = (fds[0], fds[1])
            default: (parentStderr, childStderr) = (fds[0], fds[1])
            }
        }
        // Our ends never block the loop: it polls first, and a full stdin pipe must not stall it.
        for descriptor in [parentStdin, parentStdout, parentStderr] {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        return nil
    }

    mutating func closeChildEnds() {
        Self.close(&childStdin)
        Self.close(&childStdout)
        Self.close(&childStderr)
    }

    mutating func closeAll() {
        closeChildEnds()
        Self.close(&parentStdin)
        Self.close(&parentStdout)
        Self.close(&parentStderr)
    }

    static func close(_ descriptor: inout Int32) {
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
    }
}
