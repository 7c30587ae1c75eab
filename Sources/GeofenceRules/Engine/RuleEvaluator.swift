public import Foundation
public import Geofence

/// Decides which actions fire: occurrences in, actions and commutes out.
///
/// Pure and deterministic: no clock, no I/O. Guards are judged at the occurrence's own date in the
/// rules file's time zone, so a replay of last month decides exactly as the live run did.
public final class RuleEvaluator: Sendable {
    /// The rules.
    public let rules: RulesFile
    private let calendar: Calendar
    /// Whether any rule fires on a dwell, the only time-driven trigger besides commute limits.
    private let hasDwellRules: Bool
    /// The commute rules' limits, in the rules' order.
    private let commuteLimits: [CommuteLimit]
    /// How far from a commute's places a stay must be to be a stop on the way: the stay
    /// detector's radius.
    private let stopRadiusMeters: Double

    /// Makes an evaluator for a checked rules file.
    public init(rules: RulesFile) {
        self.rules = rules
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = rules.timeZone
        self.calendar = calendar
        hasDwellRules = rules.rules.contains { if case .dwell = $0.trigger { true } else { false } }
        commuteLimits = rules.rules.indices.compactMap { index in
            guard case .commute(let spec) = rules.rules[index].trigger else { return nil }
            return CommuteLimit(index: index, name: rules.rules[index].name, maxSeconds: spec.maxSeconds)
        }
        stopRadiusMeters = (rules.stayDetectorConfiguration ?? .init()).radiusMeters
    }

    /// Whether time alone could fire something for this state: a commute under way (its limit) or
    /// a stay at a place while dwell rules exist. When it is `false`, a ``Occurrence/Kind/tick``
    /// changes nothing and returns nothing, so callers may skip it.
    public func hasTimeDrivenWork(_ state: RuleState) -> Bool {
        !state.openCommutes.isEmpty || (hasDwellRules && !state.insideSince.isEmpty)
    }

    /// What one occurrence fires.
    public struct Output: Sendable, Equatable {
        /// Actions to carry out, in order.
        public var actions: [FiredAction] = []
        /// Commutes that completed or were abandoned.
        public var commutes: [CommuteRecord] = []
    }

    /// Applies one occurrence to the device's state and returns what fires.
    public func handle(_ occurrence: Occurrence, state: inout RuleState) -> Output {
        var output = Output()
        // Time-driven rules first: a dwell or a commute limit that fell due before this moment.
        advance(to: occurrence.date, device: occurrence.device, state: &state, output: &output)
        switch occurrence.kind {
        case .enter:
            guard let place = occurrence.place else { break }
            state.insideSince[place] = occurrence.date
            state.dwellFired = state.dwellFired.filter { rule in
                !dwellRules(for: place).contains { $0.name == rule }
            }
            commutesOnEnter(place, occurrence, state: &state, output: &output)
            fire(.enter(place: place), occurrence, state: &state, output: &output)
        case .exit:
            guard let place = occurrence.place else { break }
            state.insideSince[place] = nil
            commutesOnExit(place, occurrence, state: &state)
            fire(.exit(place: place), occurrence, state: &state, output: &output)
        case .determined(let inside):
            guard let place = occurrence.place else { break }
            // A device's first determinations are mostly outside, of places it was never in:
            // removing from an empty dictionary still hashed the name, for every place.
            if inside {
                state.insideSince[place] = occurrence.date
            } else if !state.insideSince.isEmpty {
                state.insideSince[place] = nil
            }
        case .visitStart:
            guard let place = occurrence.place else { break }
            fire(
                .visitStart(place: place), occurrence, state: &state,
                output: &output)
        case .visitEnd:
            guard let place = occurrence.place else { break }
            fire(.visitEnd(place: place), occurrence, state: &state, output: &output)
        case .lifecycle(let kind):
            fire(.lifecycle(kind), occurrence, state: &state, output: &output)
        case .tick:
            break
        }
        return output
    }

    // MARK: Time

    /// Whether a first determination outside a place would change nothing in `state` and fire
    /// nothing, ``advanceClock(to:device:state:)`` before it included: the device is in no place
    /// (no dwell can fall due, none is to end) and no commute is under way (none can run out).
    func ignoresDeterminationOutside(state: RuleState) -> Bool {
        state.insideSince.isEmpty && state.openCommutes.isEmpty
    }

    /// Lets the dwell rules that fell due by `date` fire, and nothing else: the engine's clock in
    /// a live run (``Pipeline/advance(to:)``), and the same step before each change the monitor
    /// confirms, at the time it was confirmed, so a replay fires the dwells a live clock would
    /// have. A dwell fires at its due time unless an exit was confirmed by then; an exit confirmed
    /// later, even if dated before it, does not take it back. Commute limits are left to the next
    /// input, whose crossing dates decide whether the arrival came in time.
    public func advanceClock(to date: Date, device: String, state: inout RuleState) -> Output {
        var output = Output()
        guard hasDwellRules, !state.insideSince.isEmpty else { return output }
        fireDueDwells(by: date, device: device, state: &state, output: &output)
        return output
    }

    private func advance(to date: Date, device: String, state: inout RuleState, output: inout Output) {
        if hasDwellRules, !state.insideSince.isEmpty {
            fireDueDwells(by: date, device: device, state: &state, output: &output)
        }
        guard !state.openCommutes.isEmpty else { return }
        // Only the commute rules are looked at, by their limits kept apart: walking every rule
        // copied each one and its trigger out (their strings retained and released) for every
        // occurrence while a commute was under way. With one commute under way (the usual case)
        // its own rule is found by name, with no dictionary lookup for the others.
        if state.openCommutes.count == 1, let (name, open) = state.openCommutes.first {
            guard let limit = commuteLimits.first(where: { $0.name == name }) else { return }
            expire(limit, open: open, by: date, device: device, state: &state, output: &output)
            return
        }
        for limit in commuteLimits {
            guard let open = state.openCommutes[limit.name] else { continue }
            expire(limit, open: open, by: date, device: device, state: &state, output: &output)
        }
    }

    /// A commute rule's place among the rules, its name and its limit (`max:`).
    private struct CommuteLimit: Sendable {
        let index: Int
        let name: String
        let maxSeconds: Double
    }

    /// Abandons the open commute of `limit`'s rule when its limit fell before `date`.
    private func expire(
        _ limit: CommuteLimit, open: RuleState.OpenCommute, by date: Date, device: String,
        state: inout RuleState, output: inout Output
    ) {
        let end = open.start.addingTimeInterval(limit.maxSeconds)
        guard end < date else { return }
        let rule = rules.rules[limit.index]
        guard case .commute(let spec) = rule.trigger else { return }
        state.openCommutes[rule.name] = nil
        let reason = "took longer than \(RulesDuration.text(spec.maxSeconds))"
        finishCommute(
            rule, spec, open: open, end: nil, reason: reason, at: end, device: device, output: &output)
    }

    private func fireDueDwells(by date: Date, device: String, state: inout RuleState, output: inout Output) {
        for (place, since) in state.insideSince.sorted(by: { $0.key < $1.key }) {
            for rule in dwellRules(for: place)
            where !state.dwellFired.contains(rule.name) && applies(rule, to: device) {
                guard case .dwell(_, let seconds) = rule.trigger else { continue }
                let due = since.addingTimeInterval(seconds)
                guard due <= date else { continue }
                state.dwellFired.insert(rule.name)
                let occurrence = Occurrence(kind: .tick, place: place, date: due, device: device)
                fire(rule, occurrence, state: &state, output: &output)
            }
        }
    }

    private func dwellRules(for place: String) -> [Rule] {
        rules.rules.filter { if case .dwell(place, _) = $0.trigger { true } else { false } }
    }

    // MARK: Commutes

    private func commutesOnExit(_ place: String, _ occurrence: Occurrence, state: inout RuleState) {
        for rule in rules.rules {
            guard case .commute(let spec) = rule.trigger, spec.from == place else { continue }
            guard applies(rule, to: occurrence.device) else { continue }
            guard guardsAllow(rule.guards, window: spec.window, at: occurrence.date) else { continue }
            state.openCommutes[rule.name] = RuleState.OpenCommute(
                start: occurrence.date,
                coordinate: occurrence.coordinate.map { [$0.latitude, $0.longitude] })
        }
    }

    private func commutesOnEnter(
        _ place: String, _ occurrence: Occurrence, state: inout RuleState, output: inout Output
    ) {
        for rule in rules.rules {
            guard case .commute(let spec) = rule.trigger, let open = state.openCommutes[rule.name] else {
                continue
            }
            if spec.to == place {
                state.openCommutes[rule.name] = nil
                finishCommute(
                    rule, spec, open: open, end: occurrence.date, reason: nil, at: occurrence.date,
                    device: occurrence.device, coordinate: occurrence.coordinate,
                    accuracy: occurrence.accuracy, output: &output)
                note(rule, at: occurrence.date, state: &state)
            } else if spec.from == place {
                state.openCommutes[rule.name] = nil
                finishCommute(
                    rule, spec, open: open, end: nil, reason: "came back to \(spec.from) first",
                    at: occurrence.date,
                    device: occurrence.device, output: &output)
            }
        }
    }

    // MARK: Stops

    /// A stay on the way, as the visit detector (or the tracker) reports it: a commute that
    /// includes one longer than its `stops:` allowance (none by default) is not a commute.
    ///
    /// The detector reports a stay once it has lasted its minimum duration (`visits:
    /// min_duration`, 20 minutes by default) within its radius, so shorter halts (a traffic light,
    /// a platform, a coffee to go) are never stops. Its length is what fixes saw: from its first
    /// fix to the last fix there so far, so a silent phone neither lengthens nor ends it.
    public struct Stop: Sendable, Equatable {
        /// Where the person stayed (the stay's centre).
        public var coordinate: Coordinate
        /// When the stay began.
        public var arrival: Date
        /// The last time a fix (or the tracker) placed the person there.
        public var lastSeen: Date
        /// Whether the person has left (the stay's departure is known).
        public var ended: Bool

        /// Makes a stop.
        public init(coordinate: Coordinate, arrival: Date, lastSeen: Date, ended: Bool) {
            (self.coordinate, self.arrival, self.lastSeen, self.ended) = (
                coordinate, arrival, lastSeen, ended
            )
        }

        /// The stop a visit report stands for; `lastSeen` is the last fix of a stay still going on
        /// (its arrival when unknown). `nil` for a visit with neither arrival nor departure.
        public init?(_ visit: Visit, lastSeen: Date? = nil) {
            guard let arrival = visit.arrival ?? visit.departure else { return nil }
            self.init(
                coordinate: visit.coordinate, arrival: arrival,
                lastSeen: visit.departure ?? max(arrival, lastSeen ?? arrival), ended: visit.departure != nil)
        }
    }

    /// Judges a stay against every commute under way: one that began after the commute started,
    /// away from its two places (farther than the detector's radius from either: a stay there is
    /// the arrival, or a return), and longer than the rule's `stops:` (any, without it) abandons
    /// the commute, dated when the stop outlasted the allowance. A stop within the allowance is
    /// added to the commute's stopped time once it ends.
    public func observe(_ stop: Stop, device: String, state: inout RuleState) -> Output {
        var output = Output()
        guard !state.openCommutes.isEmpty else { return output }
        for rule in rules.rules {
            guard case .commute(let spec) = rule.trigger, var open = state.openCommutes[rule.name],
                stop.arrival >= open.start, !isNear(stop.coordinate, spec.from),
                !isNear(stop.coordinate, spec.to)
            else { continue }
            let length = stop.lastSeen.timeIntervalSince(stop.arrival)
            if spec.maxStopSeconds == 0 || length > spec.maxStopSeconds {
                state.openCommutes[rule.name] = nil
                finishCommute(
                    rule, spec, open: open, end: nil, reason: stopReason(stop, spec),
                    at: stop.arrival.addingTimeInterval(spec.maxStopSeconds), device: device,
                    coordinate: stop.coordinate, output: &output)
            } else if stop.ended {
                open.stoppedSeconds = (open.stoppedSeconds ?? 0) + length
                state.openCommutes[rule.name] = open
            }
        }
        return output
    }

    /// Whether a stay's centre is within the stay radius of a place (or inside it).
    private func isNear(_ coordinate: Coordinate, _ place: String) -> Bool {
        guard let condition = rules.place(named: place)?.condition else { return false }
        return condition.signedDistance(to: coordinate) <= stopRadiusMeters
    }

    private func stopReason(_ stop: Stop, _ spec: CommuteSpec) -> String {
        let place = rules.places.first {
            $0.name != spec.from && $0.name != spec.to && $0.condition.contains(stop.coordinate)
        }
        let at = place.map { "stopped at \($0.name)" } ?? "stopped"
        guard spec.maxStopSeconds > 0 else { return "\(at) on the way" }
        return "\(at) for longer than \(RulesDuration.text(spec.maxStopSeconds)) on the way"
    }

    private func finishCommute(
        _ rule: Rule, _ spec: CommuteSpec, open: RuleState.OpenCommute, end: Date?, reason: String?,
        at date: Date,
        device: String, coordinate: Coordinate? = nil, accuracy: Double? = nil, output: inout Output
    ) {
        var stableID = StableID()
        stableID.add(device)
        stableID.add(rule.name)
        stableID.add("commute")
        stableID.add(milliseconds: open.start)
        let id = stableID.text
        let record = CommuteRecord(
            id: id, rule: rule.name, device: device, from: spec.from, to: spec.to, start: open.start,
            end: end,
            reason: reason, status: end == nil ? .abandoned : .completed, stoppedSeconds: open.stoppedSeconds)
        output.commutes.append(record)
        let transition: Transition = end == nil ? .commuteAbandoned : .commute
        for (index, action) in rule.actions.enumerated() {
            if end == nil, !action.hearsAbandonedCommutes { continue }
            output.actions.append(
                makeAction(
                    action, index: index, eventId: id, rule: rule, transition: transition, place: spec.to,
                    date: date,
                    coordinate: coordinate, accuracy: accuracy, device: device, commute: record))
        }
    }

    // MARK: Firing

    private func fire(
        _ trigger: Trigger, _ occurrence: Occurrence, state: inout RuleState,
        output: inout Output
    ) {
        for rule in rules.rules where rule.trigger == trigger {
            fire(rule, occurrence, state: &state, output: &output)
        }
    }

    private func fire(
        _ rule: Rule, _ occurrence: Occurrence, state: inout RuleState,
        output: inout Output
    ) {
        let transition = rule.trigger.transition
        let date = occurrence.date
        guard applies(rule, to: occurrence.device) else { return }
        guard guardsAllow(rule.guards, window: nil, at: date) else { return }
        if let cooldown = rule.guards.cooldownSeconds, let last = state.lastFired[rule.name],
            date.timeIntervalSince(last) < cooldown
        {
            return
        }
        if rule.guards.oncePerDay, state.lastFiredDay[rule.name] == localDay(date) { return }
        var stableID = StableID()
        stableID.add(occurrence.device)
        stableID.add(rule.name)
        stableID.add(transition.rawValue)
        stableID.add(occurrence.place ?? "")
        stableID.add(milliseconds: date)
        let eventId = stableID.text
        var fired = false
        for (index, action) in rule.actions.enumerated() {
            if case .remind(let remind) = action {
                if !remind.repeats, state.remindersDelivered.contains(rule.name) { continue }
                if !remind.repeats { state.remindersDelivered.insert(rule.name) }
            }
            output.actions.append(
                makeAction(
                    action, index: index, eventId: eventId, rule: rule, transition: transition,
                    place: occurrence.place,
                    date: date, coordinate: occurrence.coordinate, accuracy: occurrence.accuracy,
                    device: occurrence.device,
                    detail: occurrence.detail))
            fired = true
        }
        if fired { note(rule, at: date, state: &state) }
    }

    private func note(_ rule: Rule, at date: Date, state: inout RuleState) {
        state.lastFired[rule.name] = date
        state.lastFiredDay[rule.name] = localDay(date)
    }

    private func makeAction(
        _ action: RuleAction, index: Int, eventId: String, rule: Rule, transition: Transition, place: String?,
        date: Date,
        coordinate: Coordinate?, accuracy: Double?, device: String, detail: String? = nil,
        commute: CommuteRecord? = nil
    ) -> FiredAction {
        let kind = action.fired
        var message = detail
        // The rule's reminder text is every one of its actions' message: a hook gets it as
        // GEOFENCE_MESSAGE, a post in its body.
        for case .remind(let remind) in rule.actions { message = remind.message }
        return FiredAction(
            id: "\(eventId)/\(index)", eventId: eventId, rule: rule.name, kind: kind, transition: transition,
            place: place,
            date: date, latitude: coordinate?.latitude, longitude: coordinate?.longitude, accuracy: accuracy,
            device: device, message: message, commute: commute)
    }

    // MARK: Guards

    /// Whether a rule is for the person who carries the device: its `who:`, and the `who:` of
    /// its places (a commute to a place the person does not have would never end).
    private func applies(_ rule: Rule, to device: String) -> Bool {
        let person = rules.people.person(ofDevice: device)
        if let who = rule.guards.who, !who.contains(person) { return false }
        let places: [String] =
            switch rule.trigger {
            case .commute(let spec): [spec.from, spec.to]
            default: rule.trigger.place.map { [$0] } ?? []
            }
        return places.allSatisfy { rules.place(named: $0)?.who?.contains(person) ?? true }
    }

    private func guardsAllow(_ guards: Guards, window: TimeWindow?, at date: Date) -> Bool {
        let parts = calendar.dateComponents([.weekday, .hour, .minute], from: date)
        if let days = guards.days, let weekday = parts.weekday.flatMap(Weekday.init(rawValue:)),
            !days.contains(weekday)
        {
            return false
        }
        let minute = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        if let window = guards.window, !window.contains(minuteOfDay: minute) { return false }
        if let window, !window.contains(minuteOfDay: minute) { return false }
        return true
    }

    private func localDay(_ date: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}
