import Foundation

/// The events one input causes, with the key that orders them, before they are handed out.
///
/// A crossing's date is interpolated between the last fix on the old side and the first on the
/// new; two crossings interpolated within the same interval differ only by the fixes' noise (two
/// touching circles give dates a second apart in either order). So events are ordered by the
/// start of the interval their date lies in, then exits before entries, then by date; the events
/// of one condition keep the order it emitted them in.
struct EventSink {
    private var events: [Event] = []
    private var keys: [Date] = []
    /// The evidence of the last event made through ``evidence(fix:visit:)``, for the next.
    private var lastEvidence: Event.Evidence?
    /// The room made at the first event: an event for each condition, as a device's first
    /// determinations are.
    private let capacity: Int

    /// A sink for the events one input causes among `conditions` conditions.
    init(conditions: Int = 1) {
        capacity = conditions
    }

    /// The shared storage of an event's deciding fix or visit: the one the previous event got when
    /// it is the same fix and visit (one input usually decides several conditions), else a new one.
    mutating func evidence(fix: Fix?, visit: Visit?) -> Event.Evidence? {
        guard fix != nil || visit != nil else { return nil }
        if let last = lastEvidence {
            // A fix alone (the common case: a fix deciding several conditions) is compared with
            // what the evidence keeps, without rebuilding and copying a whole fix for each event.
            if let fix, visit == nil {
                if last.isFix(fix) { return last }
            } else if last.fix == fix, last.visit == visit {
                return last
            }
        }
        let evidence = Event.Evidence(fix: fix, visit: visit)
        lastEvidence = evidence
        return evidence
    }

    /// ``evidence(fix:visit:)`` for a fix alone, compared where it is: wrapping it in an optional
    /// copied the whole fix (its texts retained, then released) for every event.
    mutating func evidence(of fix: borrowing Fix) -> Event.Evidence {
        if let last = lastEvidence, last.isFix(fix) { return last }
        let evidence = Event.Evidence(fix: copy fix, visit: nil)
        lastEvidence = evidence
        return evidence
    }

    /// Adds an event; `orderKey` is the start of the interval its date was found in (its date when
    /// nothing was interpolated).
    mutating func append(_ event: consuming Event, orderKey: Date) {
        // Room for an event of every condition at the first: a new device's first
        // determinations are one for each, and growing the arrays one step at a time copied them.
        if events.isEmpty, capacity > 1 {
            events.reserveCapacity(capacity)
            keys.reserveCapacity(capacity)
        }
        events.append(event)
        keys.append(orderKey)
    }

    /// Appends the events to `output` in order.
    func appendInOrder(to output: inout [Event]) {
        // Most fixes cause no event: nothing to append, not even an empty collection's.
        guard !events.isEmpty else { return }
        guard events.count > 1 else { return Self.append(events, to: &output) }
        func rank(_ event: Event) -> Int {
            switch (event.kind, event.state) {
            case (.transition, .unsatisfied): 0
            case (.transition, _): 1
            case (.dwell, _): 2
            case (.conditionLimitExceeded, _): 3
            }
        }
        // An insertion sort that never moves an event past an earlier one of the same condition,
        // whose events are already in their own order (a visit's arrival and departure can share
        // a date). Inputs cause a handful of events, so its quadratic worst case is no concern.
        func precedes(_ a: Int, _ b: Int) -> Bool {
            if keys[a] != keys[b] { return keys[a] < keys[b] }
            let ra = rank(events[a]), rb = rank(events[b])
            if ra != rb { return ra < rb }
            return events[a].date < events[b].date
        }
        var order: [Int] = []
        order.reserveCapacity(events.count)
        var reordered = false
        for index in events.indices {
            var position = order.count
            while position > 0 {
                let before = order[position - 1]
                if events[before].identifier == events[index].identifier || !precedes(index, before) { break }
                position -= 1
            }
            if position == order.count {
                order.append(index)
            } else {
                order.insert(index, at: position)
                reordered = true
            }
        }
        // Already in order (a device's first determinations, one for each condition, all of one
        // fix): handed over whole.
        guard reordered else { return Self.append(events, to: &output) }
        // The caller's events often wait with a whole batch's: room for exactly these. (Only into
        // an empty array: reserving exactly on every call would make a long run of calls quadratic.)
        if output.isEmpty { output.reserveCapacity(events.count) }
        for index in order { output.append(events[index]) }
    }

    /// Appends `events` to `output`; into an empty one by sharing their storage rather than
    /// copying each event (the usual case: an input's events start the list).
    private static func append(_ events: [Event], to output: inout [Event]) {
        if output.isEmpty {
            output = events
        } else {
            output.append(contentsOf: events)
        }
    }
}
