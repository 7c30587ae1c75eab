import Foundation

/// `run:`: run a hook, a program with an argument array (never a shell string), with the event in
/// its environment and on its standard input.
public struct RunAction: Sendable, Hashable {
    /// The program and its arguments, as the rules file wrote them.
    public var arguments: [String]
    /// How long it may run before it is stopped (`timeout:`, 30 s unless given).
    public var timeoutSeconds: Double

    /// Makes a run action.
    public init(arguments: [String], timeoutSeconds: Double) {
        self.arguments = arguments
        self.timeoutSeconds = timeoutSeconds
    }
}

extension RuleAction {
    /// A `run:` action.
    public static func run(arguments: [String], timeoutSeconds: Double) -> RuleAction {
        .run(RunAction(arguments: arguments, timeoutSeconds: timeoutSeconds))
    }
}

extension RunAction: ActionKind {
    static let name = RuleAction.Name.run
    static let modifierKeys = ["timeout"]
    /// A hook acts on the world; an abandoned commute is not a reason to.
    static let hearsAbandonedCommutes = false

    static func read(_ rule: ActionSource, reader: inout NodeReader) -> RunAction? {
        guard let run = rule.members["run"] else {
            if let t = rule.members["timeout"] {
                reader.error(t.mark, "\(rule.context): timeout: only goes with run:")
            }
            return nil
        }
        var timeout = 30.0
        if let t = rule.members["timeout"] { timeout = reader.duration(t, field: "timeout") ?? timeout }
        return arguments(run, context: rule.context, reader: &reader).map {
            RunAction(arguments: $0, timeoutSeconds: timeout)
        }
    }

    /// `run: [program, arg, ...]`: a list of text, never one string a shell would split.
    private static func arguments(_ node: YAMLNode, context: String, reader: inout NodeReader) -> [String]? {
        guard case .sequence(let items, _) = node else {
            reader.error(
                node.mark,
                "\(context): run: must be a list of arguments like [program, arg], never a shell command line"
            )
            return nil
        }
        guard !items.isEmpty else {
            reader.error(node.mark, "\(context): run: needs at least the program")
            return nil
        }
        var arguments: [String] = []
        for item in items {
            guard case .scalar(let text, _, _) = item else {
                reader.error(
                    item.mark, "\(context): each argument of run: must be text, not \(item.kindName)")
                return nil
            }
            arguments.append(text)
        }
        return arguments
    }

    init(payload: KeyedDecodingContainer<PayloadKey>, message: String?) throws {
        arguments = try payload.decode([String].self, forKey: "arguments")
        timeoutSeconds = try payload.decode(Double.self, forKey: "timeoutSeconds")
    }

    func encodePayload(to container: inout KeyedEncodingContainer<PayloadKey>) throws {
        try container.encode(arguments, forKey: "arguments")
        try container.encode(timeoutSeconds, forKey: "timeoutSeconds")
    }

    var action: RuleAction { .run(self) }
    var summary: String { "run \(arguments) (timeout \(RulesDuration.text(timeoutSeconds)))" }
    var replayText: String { "run \(arguments.joined(separator: " "))" }
    var listingText: String { replayText }
}
