import Foundation

extension RulesFile {
    /// A readable summary of the places and rules, as `geofence check` prints it.
    public var summary: String {
        var lines = ["time zone \(timeZone.identifier), profile \(profile.rawValue)"]
        if !people.declared.isEmpty {
            lines.append("people: \(people.declared.joined(separator: ", "))")
        }
        lines.append("\(places.count) place\(places.count == 1 ? "" : "s"):")
        let width = (places.map(\.name.count) + rules.map(\.name.count)).max() ?? 0
        for place in places {
            let who = place.who.map { " (who: \($0.sorted().joined(separator: ", ")))" } ?? ""
            lines.append(
                "  \(place.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(place.condition)\(who)"
            )
        }
        lines.append("\(rules.count) rule\(rules.count == 1 ? "" : "s"):")
        for rule in rules {
            var text = rule.trigger.summary
            let guards = rule.guards.summary
            if !guards.isEmpty { text += ", " + guards }
            if !rule.actions.isEmpty { text += " -> " + rule.actions.map(\.summary).joined(separator: "; ") }
            if let delay = rule.maxDelaySeconds {
                text += delay.isFinite ? " (at most \(RulesDuration.text(delay)) late)" : " (however late)"
            }
            lines.append("  \(rule.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(text)")
        }
        return lines.joined(separator: "\n")
    }
}

extension Guards {
    /// The guards as words; empty when there are none.
    public var summary: String {
        var parts: [String] = []
        if let days {
            let names = days.sorted().map {
                ["sun", "mon", "tue", "wed", "thu", "fri", "sat"][$0.rawValue - 1]
            }
            parts.append("on " + names.joined(separator: ","))
        }
        if let window { parts.append(window.summary) }
        if let cooldownSeconds { parts.append("cooldown \(RulesDuration.text(cooldownSeconds))") }
        if oncePerDay { parts.append("once a day") }
        if let who { parts.append("who: " + who.sorted().joined(separator: ", ")) }
        return parts.joined(separator: ", ")
    }
}

extension TimeWindow {
    /// "between HH:MM and HH:MM".
    public var summary: String {
        func clock(_ minute: Int) -> String { String(format: "%02d:%02d", minute / 60, minute % 60) }
        return "between \(clock(startMinute)) and \(clock(endMinute))"
    }
}

/// Durations the way rules files write them (named so that it does not hide `Swift.Duration`).
public enum RulesDuration {
    /// `90` → "1m30s", `7200` → "2h".
    public static func text(_ seconds: Double) -> String {
        var rest = Int(seconds.rounded())
        var text = ""
        for (unit, size) in [("d", 86400), ("h", 3600), ("m", 60)] where rest >= size {
            text += "\(rest / size)\(unit)"
            rest %= size
        }
        if rest > 0 || text.isEmpty { text += "\(rest)s" }
        return text
    }
}
