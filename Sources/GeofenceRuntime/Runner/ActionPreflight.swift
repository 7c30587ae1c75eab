import Foundation
public import GeofenceRules

#if canImport(Glibc)
    import Glibc
#endif

/// What can be known before a run about whether a rules file's actions can work on this machine:
/// hooks whose program is missing or not executable, `log:` files that cannot be written.
///
/// These are warnings, not errors: the rules are valid, and the machine may change before the run
/// (a script installed later, the service running as another user). `geofence check` prints them,
/// and `geofence run` logs them at start.
public enum ActionPreflight {
    /// One problem found, with the rule it belongs to.
    public struct Warning: Sendable, Equatable, CustomStringConvertible {
        /// The rules file.
        public var file: String
        /// Where the rule is defined in it.
        public var mark: SourceMark
        /// The rule's name.
        public var rule: String
        /// What is wrong and what to do.
        public var message: String

        /// `rules.yaml:12:5: warning: rule 'lights': ...`.
        public var description: String {
            "\(file):\(mark.line):\(mark.column): warning: rule '\(rule)': \(message)"
        }
    }

    /// The warnings for every hook and `log:` action of `rules`, resolved the way the run resolves
    /// them: programs against the rules file's directory and the hook's `PATH`, log paths against
    /// the rules file's directory; and for every `post:` action, and reminder through a `post:`
    /// channel, when libcurl (loaded on first use) cannot be loaded.
    public static func warnings(
        for rules: RulesFile, logDirectory: String? = nil,
        environment: [String: String] = HookRunner.inheritedEnvironment()
    ) -> [Warning] {
        warnings(
            for: rules, logDirectory: logDirectory, environment: environment,
            httpProblem: { WebhookClient.unavailable })
    }

    /// ``warnings(for:logDirectory:environment:)`` with `httpProblem` saying why an HTTP POST
    /// cannot be sent on this machine, or `nil` (asked only of rules that post).
    static func warnings(
        for rules: RulesFile, logDirectory: String?, environment: [String: String],
        httpProblem: () -> String?
    ) -> [Warning] {
        let directory = URL(fileURLWithPath: rules.path).deletingLastPathComponent().path
        var warnings: [Warning] = []
        var seen = Set<String>()
        for rule in rules.rules {
            for action in rule.actions {
                // Only what can be checked before the run: a hook's program, a log's file.
                var message: String?
                if case .run(let run) = action {
                    message = run.arguments.first.flatMap {
                        hookProblem($0, path: environment["PATH"], directory: directory)
                    }
                } else if case .log(let log) = action, let path = log.path {
                    message = logProblem(LogFile.path(path, in: logDirectory ?? directory))
                } else if postsOverHTTP(action), let problem = httpProblem() {
                    message = "its HTTP POST cannot be sent: \(problem)"
                }
                // One warning per problem and rule, however many actions repeat it.
                if let message, seen.insert(rule.name + "\u{0}" + message).inserted {
                    warnings.append(
                        Warning(file: rules.path, mark: rule.mark, rule: rule.name, message: message))
                }
            }
        }
        return warnings
    }

    /// Whether an action is delivered by an HTTP POST: a `post:`, or a reminder through a `post:`
    /// channel.
    private static func postsOverHTTP(_ action: RuleAction) -> Bool {
        switch action {
        case .post: true
        case .remind(let remind):
            if case .post = remind.channel { true } else { false }
        default: false
        }
    }

    /// Why `program` cannot be started, or nil if it can.
    static func hookProblem(_ program: String, path: String?, directory: String) -> String? {
        if case .success = HookProcess.resolve(program, path: path, workingDirectory: directory) {
            return nil
        }
        guard program.contains("/") else {
            return "hook program '\(program)' is not on PATH (\(path ?? "/usr/local/bin:/usr/bin:/bin")); "
                + "give its full path, or a path relative to the rules file"
        }
        let full = program.hasPrefix("/") ? program : directory + "/" + program
        var info = stat()
        guard stat(full, &info) == 0 else {
            return "hook program \(full) does not exist"
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return "hook program \(full) is not a file" }
        return "hook program \(full) is not executable by this user; chmod +x it"
    }

    /// Why a line cannot be appended to `full`, or nil if it can.
    static func logProblem(_ full: String) -> String? {
        var info = stat()
        if stat(full, &info) == 0 {
            if (info.st_mode & S_IFMT) == S_IFDIR { return "log file \(full) is a directory" }
            return access(full, W_OK) == 0 ? nil : "log file \(full) is not writable by this user"
        }
        let parent = URL(fileURLWithPath: full).deletingLastPathComponent().path
        var ancestor = parent
        while stat(ancestor, &info) != 0, ancestor != "/" {
            ancestor = URL(fileURLWithPath: ancestor).deletingLastPathComponent().path
        }
        if ancestor != parent {
            guard access(ancestor, W_OK | X_OK) == 0 else {
                return "log directory \(parent) does not exist, and \(ancestor) is not writable by this user"
            }
            return "log directory \(parent) does not exist; the run creates it at the first line"
        }
        return access(parent, W_OK | X_OK) == 0
            ? nil : "log directory \(parent) is not writable by this user"
    }
}

/// Where a `log:` action's file is.
enum LogFile {
    /// `path` as given if absolute, else relative to the log directory (by default the rules
    /// file's).
    static func path(_ path: String, in directory: String) -> String {
        path.hasPrefix("/") ? path : directory + "/" + path
    }
}

/// Where a hook's program is.
enum HookProgram {
    /// The arguments with a relative program path (`./lights-on.sh`, `hooks/x`) made absolute
    /// against the rules file's directory, so it is found beside the rules even when hooks run
    /// in another working directory. A bare name (`curl`) is left for `PATH`.
    static func arguments(_ arguments: [String], rulesDirectory: String) -> [String] {
        guard let program = arguments.first, program.contains("/"), !program.hasPrefix("/") else {
            return arguments
        }
        return [rulesDirectory + "/" + program] + arguments.dropFirst()
    }
}
