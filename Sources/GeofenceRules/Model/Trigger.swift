import Foundation

/// What makes a rule fire.
public enum Trigger: Sendable, Equatable {
    /// The place's condition became satisfied.
    case enter(place: String)
    /// The place's condition became unsatisfied.
    case exit(place: String)
    /// The person has been inside the place for this long (once per stay).
    case dwell(place: String, seconds: Double)
    /// A visit (detected or delivered) started at the place.
    case visitStart(place: String)
    /// A visit at the place ended.
    case visitEnd(place: String)
    /// A commute from one place to another ended (or was abandoned).
    case commute(CommuteSpec)
    /// Something happened to the engine itself (started, stopped, input paused...).
    case lifecycle(LifecycleKind)

    /// The place the trigger is about, if any.
    public var place: String? {
        switch self {
        case .enter(let place), .exit(let place), .dwell(let place, _), .visitStart(let place),
            .visitEnd(let place):
            place
        case .commute, .lifecycle: nil
        }
    }

    /// The transition the rule's actions report when the trigger fires (a commute's may instead be
    /// ``Transition/commuteAbandoned``).
    public var transition: Transition {
        switch self {
        case .enter: .enter
        case .exit: .exit
        case .dwell: .dwell
        case .visitStart: .visitStart
        case .visitEnd: .visitEnd
        case .commute: .commute
        case .lifecycle(let kind): .engine(kind)
        }
    }

    /// Whether the rule needs detected visits (the visit detector runs even without `visits:`).
    var needsVisits: Bool {
        switch self {
        case .visitStart, .visitEnd: true
        case .enter, .exit, .dwell, .commute, .lifecycle: false
        }
    }
}

extension Trigger {
    /// The trigger as the user would write it.
    public var summary: String {
        switch self {
        case .enter(let place): "enter \(place)"
        case .exit(let place): "exit \(place)"
        case .dwell(let place, let seconds): "dwell \(place) after \(RulesDuration.text(seconds))"
        case .visitStart(let place): "visit start \(place)"
        case .visitEnd(let place): "visit end \(place)"
        case .commute(let spec):
            "commute \(spec.from) to \(spec.to)" + (spec.window.map { " starting \($0.summary)" } ?? "")
                + ", at most \(RulesDuration.text(spec.maxSeconds))"
                + (spec.maxStopSeconds > 0 ? ", stops up to \(RulesDuration.text(spec.maxStopSeconds))" : "")
        case .lifecycle(let kind): "engine event \(kind.rawValue)"
        }
    }
}

// MARK: Reading

extension Trigger {
    /// Reads `on:` (with `after:` for a dwell): a phrase of words, the place last.
    static func read(
        on node: YAMLNode, after: YAMLNode?, context: String, places: [String], reader: inout NodeReader
    ) -> Trigger? {
        guard let text = reader.string(node, field: "on") else { return nil }
        let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        func place(_ start: Int) -> String? {
            let name = words.dropFirst(start).joined(separator: " ")
            guard !name.isEmpty else {
                reader.error(node.mark, "\(context): on: \"\(text)\" names no place")
                return nil
            }
            guard places.contains(name) else {
                reader.error(
                    node.mark,
                    "\(context): unknown place \"\(name)\"" + DidYouMean.hint(for: name, among: places))
                return nil
            }
            return name
        }
        switch words.first?.lowercased() {
        case "enter": return place(1).map { .enter(place: $0) }
        case "exit", "leave": return place(1).map { .exit(place: $0) }
        case "dwell":
            guard let name = place(1) else { return nil }
            guard let after else {
                reader.error(node.mark, "\(context): on: dwell needs after: (how long inside, like 10m)")
                return nil
            }
            return reader.duration(after, field: "after").map { .dwell(place: name, seconds: $0) }
        case "visit" where words.count > 1 && ["start", "end"].contains(words[1].lowercased()):
            guard let name = place(2) else { return nil }
            return words[1].lowercased() == "start" ? .visitStart(place: name) : .visitEnd(place: name)
        case "engine", "input", "rules", "tracking":
            let phrase = words.joined(separator: "-").lowercased()
            let aliases: [String: LifecycleKind] = [
                "engine-started": .started, "engine-stopped": .stopped, "rules-reloaded": .rulesReloaded,
                "input-failed": .inputFailed, "input-paused": .inputPaused, "input-resumed": .inputResumed,
                "tracking-paused": .inputPaused, "tracking-resumed": .inputResumed,
            ]
            if let kind = aliases[phrase] { return .lifecycle(kind) }
            reader.error(
                node.mark,
                "\(context): unknown trigger \"\(text)\""
                    + DidYouMean.hint(
                        for: words.joined(separator: " "),
                        among: aliases.keys.sorted().map { $0.replacingOccurrences(of: "-", with: " ") }))
            return nil
        default:
            let known = [
                "enter", "exit", "dwell", "visit start", "visit end", "engine started", "input paused",
            ]
            reader.error(
                node.mark,
                "\(context): unknown trigger \"\(text)\": use enter PLACE, exit PLACE, dwell PLACE (with after:), visit start PLACE, visit end PLACE, or an engine event"
                    + DidYouMean.hint(for: words.first ?? "", among: known))
            return nil
        }
    }
}
