import Foundation
import Testing

@testable import Geofence
import GeofenceSimulation

/// The synthetic day as trackers really send it: on a timer of 1 to 30 minutes, or only after
/// moving 100 m or 500 m with a keep-alive fix every 15 minutes or hour.
@Suite struct MonitorSamplingRegimeTests {
    static let radius = 150.0

    /// The true crossings of each place; the true path is the same for every seed and interval,
    /// so it is scanned once.
    static let truths: [String: [SyntheticTrace.Crossing]] = {
        let day = SyntheticDay()
        var truths: [String: [SyntheticTrace.Crossing]] = [:]
        for (place, condition) in (try? places(day)) ?? [] {
            truths[place.rawValue] = SyntheticTrace.crossings(
                of: condition, from: day.date(.init(7, 0)), to: day.date(.init(22, 0)), stepSeconds: 10
            ) { date in day.truePosition(at: date).map { day.coordinate(east: $0.east, north: $0.north) } }
        }
        return truths
    }()

    static func places(_ day: SyntheticDay) throws -> [(SyntheticDay.Place, Condition)] {
        try SyntheticDay.Place.allCases.map { place in
            (place, .circle(try CircularCondition(center: day.coordinate(of: place), radiusMeters: radius)))
        }
    }

    /// What must be reported: each true stay that holds at least two fixes at least the span rule
    /// apart whose true positions lie clearly inside the place (and so can be evidence), merged
    /// with a following stay at the same place when the stay between them is not reported.
    static func expectedSequence(_ day: SyntheticDay, _ fixes: [Fix]) -> [String] {
        let span = Hysteresis.default.confirmationSpanSeconds
        var kept: [SyntheticDay.Place] = []
        for stay in day.stays {
            let inside = fixes.filter { fix in
                guard let p = day.truePosition(at: fix.timestamp) else { return false }
                let o = stay.place.offsetMeters
                return hypot(p.east - o.east, p.north - o.north) < radius - 60
            }
            .filter {
                $0.timestamp >= stay.arrival.addingTimeInterval(-300)
                    && $0.timestamp <= stay.departure.addingTimeInterval(300)
            }
            guard let first = inside.first, let last = inside.last,
                last.timestamp.timeIntervalSince(first.timestamp) >= span
            else { continue }
            if kept.last != stay.place { kept.append(stay.place) }
        }
        var sequence: [String] = []
        for (from, to) in zip(kept, kept.dropFirst()) {
            sequence += ["\(from.rawValue) unsatisfied", "\(to.rawValue) satisfied"]
        }
        return sequence
    }

    /// Runs the day's fixes and checks the sequence, the first determinations and the dating
    /// (within the pause between the fixes either side of the true crossing).
    static func check(_ day: SyntheticDay, _ fixes: [Fix]) throws -> [Event] {
        let places = try places(day)
        var engine = MonitorEngine(name: "day")
        for (place, condition) in places { engine.add(condition, identifier: place.rawValue) }
        let events = engine.ingest(fixes)
        #expect(Self.truths.values.reduce(0) { $0 + $1.count } == 10)
        let first = events.filter(\.isFirstDetermination)
        #expect(Set(first.map(\.identifier)) == ["home", "work", "lunch", "gym"])
        #expect(first.allSatisfy { $0.date == day.date(.init(7, 0)) })
        #expect(first.allSatisfy { $0.state == ($0.identifier == "home" ? .satisfied : .unsatisfied) })
        let crossings = events.filter { !$0.isFirstDetermination }
        try #require(
            crossings.map { "\($0.identifier) \($0.state.rawValue)" } == expectedSequence(day, fixes),
            "events: \(crossings)")
        let truths = Self.truths
        for event in crossings {
            let truth = (truths[event.identifier] ?? []).filter { $0.entering == (event.state == .satisfied) }
            let nearest = try #require(
                truth.min {
                    abs($0.date.timeIntervalSince(event.date)) < abs($1.date.timeIntervalSince(event.date))
                })
            // The pause between the fixes either side of the true crossing bounds the error.
            let before = fixes.last { $0.timestamp <= nearest.date }?.timestamp ?? nearest.date
            let after = fixes.first { $0.timestamp > nearest.date }?.timestamp ?? nearest.date
            let bound = after.timeIntervalSince(before) + 60
            #expect(abs(event.date.timeIntervalSince(nearest.date)) <= bound, "\(event) vs \(nearest.date)")
        }
        return events
    }

    @Test(arguments: [1.0, 5, 10, 15, 30])
    func aTimerDayReportsEveryStayOfTwoFixesDatedWithinOneInterval(minutes: Double) throws {
        for seed in UInt64(1)...4 {
            let day = SyntheticDay(intervalSeconds: minutes * 60, seed: seed)
            let events = try Self.check(day, day.fixes())
            for event in events where !event.isFirstDetermination {
                #expect(event.confirmedAt.timeIntervalSince(event.date) <= 2 * minutes * 60 + 180)
            }
        }
    }

    @Test func atThirtyMinutesLunchHoldsOneFixAndIsNotReported() throws {
        let day = SyntheticDay(intervalSeconds: 1800)
        let events = try Self.check(day, day.fixes())
        #expect(!events.contains { $0.identifier == "lunch" && !$0.isFirstDetermination })
        // Work is left for the gym, not for lunch.
        #expect(events.filter { $0.identifier == "work" && !$0.isFirstDetermination }.count == 2)
    }

    @Test(arguments: [(100.0, 900.0), (100, 3600), (500, 900), (500, 3600)])
    func aDistanceTriggeredDayReportsEveryStayItCanSee(meters: Double, keepAlive: Double) throws {
        for seed in UInt64(1)...4 {
            let day = SyntheticDay(intervalSeconds: 10, seed: seed)
            let fixes = day.distanceTriggeredFixes(everyMeters: meters, keepAliveSeconds: keepAlive)
            let events = try Self.check(day, fixes)
            // The hour at the gym holds two fixes whenever the keep-alive is shorter than it (or
            // noise triggers a fix there); then its enter and exit are seen.
            if keepAlive < 3600 {
                #expect(events.filter { $0.identifier == "gym" }.count == 3)
            }
        }
    }

    @Test func thinningKeepsTravelDenseAndStaysSparse() {
        let day = SyntheticDay(intervalSeconds: 10)
        let fixes = day.distanceTriggeredFixes(everyMeters: 100, keepAliveSeconds: 3600)
        #expect(fixes.count < day.fixes().count / 10)
        let commute = fixes.filter {
            $0.timestamp > day.date(.init(8, 0)) && $0.timestamp < day.date(.init(8, 25))
        }
        #expect(commute.count >= 40)
    }
}
