import Foundation
import Geofence

/// Cuts what a replay or a store produced into local days, and reduces each day to what is drawn.
///
/// A year of data must stay one file a browser opens: the budgets below are shared out over the
/// days and the charts, so the file's size depends on how many days and crossings there are, not
/// on how many fixes (a million fixes at one a second and at one every half minute give files of
/// about the same size).
struct DayAssembly {
    let places: [ReportPlace]
    let timeZone: TimeZone
    let fixes: FixTable
    let events: [ReportEvent]
    let actions: [ReportAction]
    let visits: [Visit]

    /// Track points drawn over the whole report.
    static let trackPointBudget = 150_000
    /// Dropped fixes marked over the whole report.
    static let droppedBudget = 10_000
    /// Distance samples drawn over all the charts.
    static let chartPointBudget = 80_000

    /// The days that have a fix, an event or an action, oldest first.
    func days() -> [ReportDay] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        var starts = Set<Date>()
        var current: DateInterval?
        func noteDay(_ date: Date) {
            if let current, current.start <= date, date < current.end { return }
            guard let interval = calendar.dateInterval(of: .day, for: date) else { return }
            current = interval
            starts.insert(interval.start)
        }
        for time in fixes.times { noteDay(Date(timeIntervalSince1970: time)) }
        for event in events { noteDay(event.date) }
        for action in actions { noteDay(action.date) }
        let ordered = starts.sorted()
        let detailed = max(1, min(ordered.count, ReportDay.maxDetailedDays))
        let firstDetailed = ordered.count - detailed
        let sortedEvents = events.sorted { $0.date < $1.date }
        let sortedActions = actions.sorted { $0.date < $1.date }
        let crossings = min(sortedEvents.filter(\.isCrossing).count, Self.chartBudget)
        let trackBudget = min(4000, max(100, Self.trackPointBudget / detailed))
        let droppedBudget = min(500, max(10, Self.droppedBudget / detailed))
        let eventCap = max(30, Self.eventBudget / detailed)
        let chartCap = max(4, Self.chartBudget / detailed)
        let chartPoints = min(400, max(30, Self.chartPointBudget / max(1, crossings)))
        let satisfied = satisfiedIntervals(sortedEvents)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = "yyyy-MM-dd"
        return ordered.enumerated().map { position, start in
            let end = calendar.date(byAdding: .day, value: 1, to: start) ?? start.addingTimeInterval(86400)
            var day = ReportDay(label: formatter.string(from: start), start: start, end: end)
            let dayEvents = Self.slice(sortedEvents, from: start, to: end, date: \.date)
            let dayActions = Self.slice(sortedActions, from: start, to: end, date: \.date)
            day.eventCount = dayEvents.count
            day.actionCount = dayActions.count
            guard position >= firstDetailed else {
                day.isDetailed = false
                let first = fixes.firstIndex(atOrAfter: start.timeIntervalSince1970)
                let last = fixes.firstIndex(atOrAfter: end.timeIntervalSince1970)
                day.fixCount = last - first
                day.keptCount = fixes.reasons[first..<last].filter { $0 < 0 }.count
                day.droppedNotDrawn = day.fixCount - day.keptCount
                return day
            }
            fill(&day, trackBudget: trackBudget, droppedBudget: droppedBudget)
            let interval = DateInterval(start: start, end: end)
            day.events = Self.sample(dayEvents, count: eventCap)
            day.actions = Self.sample(dayActions, count: eventCap)
            day.stays = visits.filter { visit in
                let from = visit.arrival ?? visit.departure ?? start
                let to = visit.departure ?? fixes.times.last.map { Date(timeIntervalSince1970: $0) } ?? from
                return from < end && to >= start
            }.sorted { ($0.arrival ?? .distantPast) < ($1.arrival ?? .distantPast) }
            for (place, intervals) in satisfied {
                let clipped = intervals.compactMap { $0.intersection(with: interval) }.filter {
                    $0.duration > 0
                }
                if !clipped.isEmpty { day.satisfied[place] = clipped }
            }
            day.charts = Self.sample(day.events.filter(\.isCrossing), count: chartCap).compactMap {
                chart(for: $0, budget: chartPoints)
            }
            return day
        }
    }

    /// Events drawn over the whole report (markers, ticks and table rows).
    static let eventBudget = 30_000
    /// Crossing charts over the whole report.
    static let chartBudget = 2_000

    /// The elements of a date-sorted array dated in [start, end).
    static func slice<T>(_ sorted: [T], from start: Date, to end: Date, date: (T) -> Date) -> ArraySlice<T> {
        func index(_ bound: Date) -> Int {
            var low = 0
            var high = sorted.count
            while low < high {
                let middle = (low + high) / 2
                if date(sorted[middle]) < bound { low = middle + 1 } else { high = middle }
            }
            return low
        }
        return sorted[index(start)..<index(end)]
    }

    /// At most `count` elements, evenly spread, in order.
    static func sample<C: Collection>(_ elements: C, count: Int) -> [C.Element] {
        let all = Array(elements)
        guard all.count > count, count > 0 else { return all }
        return (0..<count).map { all[$0 * all.count / count] }
    }

    /// The longest pause the places tolerate: a pause longer than every place's `max_gap` is a gap.
    var gapSeconds: Double {
        places.map(\.hysteresis.maxGapSeconds).max() ?? Hysteresis.default.maxGapSeconds
    }

    private func fill(_ day: inout ReportDay, trackBudget: Int, droppedBudget: Int) {
        let first = fixes.firstIndex(atOrAfter: day.start.timeIntervalSince1970)
        let last = fixes.firstIndex(atOrAfter: day.end.timeIntervalSince1970)
        day.fixCount = last - first
        guard first < last else { return }
        var segments: [[Int]] = [[]]
        var dropped: [Int] = []
        var previousKept: Double?
        for index in first..<last {
            guard fixes.reasons[index] < 0 else {
                dropped.append(index)
                continue
            }
            let time = fixes.times[index]
            if let previous = previousKept, time - previous > gapSeconds {
                day.gaps.append(
                    DateInterval(
                        start: Date(timeIntervalSince1970: previous), end: Date(timeIntervalSince1970: time)))
                segments.append([])
            }
            segments[segments.count - 1].append(index)
            previousKept = time
        }
        day.keptCount = segments.reduce(0) { $0 + $1.count }
        let kept = max(1, day.keptCount)
        day.track = segments.filter { !$0.isEmpty }.map { segment in
            let share = max(2, trackBudget * segment.count / kept)
            return TrackSimplifier.simplify(segment.map { fixes.coordinates[$0] }, maxPoints: share).map {
                TrackPoint(
                    date: Date(timeIntervalSince1970: fixes.times[segment[$0]]),
                    coordinate: fixes.coordinates[segment[$0]])
            }
        }
        let stride = max(1, (dropped.count + droppedBudget - 1) / droppedBudget)
        let drawn = Swift.stride(from: 0, to: dropped.count, by: stride).map { dropped[$0] }
        day.dropped = drawn.compactMap { index in
            fixes.reason(at: index).map {
                DroppedFix(
                    date: Date(timeIntervalSince1970: fixes.times[index]),
                    coordinate: fixes.coordinates[index],
                    accuracy: fixes.accuracy(at: index), reason: $0)
            }
        }
        day.droppedNotDrawn = dropped.count - day.dropped.count
    }

    /// Place → the intervals it was satisfied, from its events (a determination counts: it says
    /// where the person was, though it fires nothing).
    private func satisfiedIntervals(_ events: [ReportEvent]) -> [String: [DateInterval]] {
        let end = max(
            fixes.times.last.map { Date(timeIntervalSince1970: $0) } ?? .distantPast,
            events.map(\.date).max() ?? .distantPast)
        var result: [String: [DateInterval]] = [:]
        for place in Set(events.map(\.place)) {
            var since: Date?
            var intervals: [DateInterval] = []
            for event in events where event.place == place && (event.transition != "dwell") {
                if event.state == ConditionState.satisfied.rawValue {
                    if since == nil { since = event.date }
                } else if let start = since {
                    intervals.append(DateInterval(start: start, end: max(start, event.date)))
                    since = nil
                }
            }
            if let start = since { intervals.append(DateInterval(start: start, end: max(start, end))) }
            result[place] = intervals
        }
        return result
    }

    /// The signed distance around a crossing, and the first fix of the evidence that confirmed it.
    ///
    /// The evidence run is found as ``Hysteresis`` documents it: walking back from the confirming
    /// fix, fixes that are not on the old side and not separated by more than `max_gap`; the first
    /// evidence is the earliest fix of that run that is evidence for the new side.
    func chart(for event: ReportEvent, budget: Int) -> CrossingChart? {
        guard let place = places.first(where: { $0.name == event.place }), fixes.count > 0 else { return nil }
        let hysteresis = place.hysteresis
        let newSide: Hysteresis.Side = event.transition == "enter" ? .inside : .outside
        func distance(_ index: Int) -> DistancePoint {
            DistancePoint(
                date: Date(timeIntervalSince1970: fixes.times[index]),
                distance: place.condition.signedDistance(to: fixes.coordinates[index]),
                accuracy: fixes.accuracy(at: index) ?? hysteresis.assumedAccuracyMeters)
        }
        var confirming = fixes.firstIndex(atOrAfter: event.confirmedAt.timeIntervalSince1970 + 0.0005) - 1
        while confirming >= 0, fixes.reasons[confirming] >= 0 { confirming -= 1 }
        var firstEvidence: Date?
        if confirming >= 0 {
            var index = confirming
            var later = fixes.times[confirming]
            var steps = 0
            while index >= 0, steps < 5000 {
                steps += 1
                if fixes.reasons[index] >= 0 {
                    index -= 1
                    continue
                }
                if later - fixes.times[index] > hysteresis.maxGapSeconds { break }
                let point = distance(index)
                if Hysteresis.Side(signedDistance: point.distance) != newSide { break }
                if hysteresis.evidence(signedDistance: point.distance, accuracy: point.accuracy) == newSide {
                    firstEvidence = point.date
                }
                later = fixes.times[index]
                index -= 1
            }
        }
        let earliest = min(firstEvidence ?? event.date, event.date)
        let span = max(120, event.confirmedAt.timeIntervalSince(earliest))
        let pad = min(1800, span * 0.75)
        let window = DateInterval(
            start: earliest.addingTimeInterval(-pad), end: event.confirmedAt.addingTimeInterval(pad))
        let first = fixes.firstIndex(atOrAfter: window.start.timeIntervalSince1970)
        let last = fixes.firstIndex(atOrAfter: window.end.timeIntervalSince1970)
        let kept = (first..<last).filter { fixes.reasons[$0] < 0 }
        let stride = max(1, (kept.count + budget - 1) / budget)
        let points = Swift.stride(from: 0, to: kept.count, by: stride).map { distance(kept[$0]) }
        return CrossingChart(
            event: event, hysteresis: hysteresis, points: points, firstEvidence: firstEvidence, window: window
        )
    }
}

extension ReportEvent {
    /// Whether this is a real crossing (enter or exit), the events the charts explain.
    var isCrossing: Bool { transition == "enter" || transition == "exit" }
}
