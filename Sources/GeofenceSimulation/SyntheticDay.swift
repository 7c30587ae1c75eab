public import Foundation
public import Geofence

/// A seeded synthetic day of fixes with a known truth: home, a commute to work, lunch nearby,
/// work again, the gym, home.
///
/// Places are laid out in metres on a local flat map whose origin (home) sits at a real coordinate:
/// home (0, 0), work (5000, 0), lunch (5000, 300), gym (3000, 1500). Times are local:
///
/// | from  | to    | where                 |
/// |-------|-------|-----------------------|
/// | 07:00 | 08:00 | home                  |
/// | 08:00 | 08:25 | travelling to work    |
/// | 08:25 | 12:30 | work                  |
/// | 12:30 | 12:35 | travelling to lunch   |
/// | 12:35 | 13:15 | lunch                 |
/// | 13:15 | 13:20 | travelling to work    |
/// | 13:20 | 17:30 | work                  |
/// | 17:30 | 17:45 | travelling to the gym |
/// | 17:45 | 18:45 | gym                   |
/// | 18:45 | 19:10 | travelling home       |
/// | 19:10 | 22:00 | home                  |
///
/// Travel is at constant speed in a straight line. Each fix adds Gaussian noise per axis; chosen
/// fixes can be replaced by outliers 1 km away in a random direction.
public struct SyntheticDay: Sendable {
    /// A place of the synthetic day.
    public enum Place: String, CaseIterable, Sendable {
        case home, work, lunch, gym

        /// Position on the local map, metres east and north of home.
        public var offsetMeters: (east: Double, north: Double) {
            switch self {
            case .home: (0, 0)
            case .work: (5000, 0)
            case .lunch: (5000, 300)
            case .gym: (3000, 1500)
            }
        }
    }

    /// A local time of day.
    public struct ClockTime: Hashable, Sendable, CustomStringConvertible {
        /// Hour, 0 through 23.
        public var hour: Int
        /// Minute, 0 through 59.
        public var minute: Int
        /// Makes a time of day.
        public init(_ hour: Int, _ minute: Int) {
            self.hour = hour
            self.minute = minute
        }
        /// Parses `HH:MM`.
        public init?(parsing text: String) {
            let parts = text.split(separator: ":")
            guard parts.count == 2, let h = Int(parts[0]), let m = Int(parts[1]), (0..<24).contains(h),
                (0..<60).contains(m)
            else { return nil }
            self.init(h, m)
        }
        var secondsSinceMidnight: TimeInterval { TimeInterval(hour * 3600 + minute * 60) }
        /// A readable form, for logs and messages.
        public var description: String { String(format: "%02d:%02d", hour, minute) }
    }

    /// One true stay: where the person was, from when to when.
    public struct Stay: Hashable, Sendable {
        /// The place.
        public var place: Place
        /// When the person got there.
        public var arrival: Date
        /// When they left (or when the day's fixes end).
        public var departure: Date
    }

    /// The coordinate of home, the origin of the local map.
    public let origin: Coordinate
    /// Midnight at the start of the day, local time.
    public let midnight: Date
    /// The time zone the schedule is written in.
    public let timeZone: TimeZone
    /// Seconds between fixes.
    public let intervalSeconds: TimeInterval
    /// Standard deviation of the noise per axis, in metres.
    public let noiseMeters: Double
    /// Fixes at these times are replaced by outliers 1 km away.
    public let outliers: [ClockTime]
    /// The seed of the noise.
    public let seed: UInt64
    private let frame: LocalFrame

    /// One part of the schedule, in seconds since midnight; a stay when `from == to`.
    private struct Leg {
        let start: Int, end: Int, from: Place, to: Place
        init(_ startMinute: Int, _ endMinute: Int, _ from: Place, _ to: Place) {
            self.start = startMinute * 60
            self.end = endMinute * 60
            self.from = from
            self.to = to
        }
    }

    private static let legs: [Leg] = [
        Leg(420, 480, .home, .home),  // 07:00-08:00
        Leg(480, 505, .home, .work),  // 08:00-08:25
        Leg(505, 750, .work, .work),  // 08:25-12:30
        Leg(750, 755, .work, .lunch),  // 12:30-12:35
        Leg(755, 795, .lunch, .lunch),  // 12:35-13:15
        Leg(795, 800, .lunch, .work),  // 13:15-13:20
        Leg(800, 1050, .work, .work),  // 13:20-17:30
        Leg(1050, 1065, .work, .gym),  // 17:30-17:45
        Leg(1065, 1125, .gym, .gym),  // 17:45-18:45
        Leg(1125, 1150, .gym, .home),  // 18:45-19:10
        Leg(1150, 1320, .home, .home),  // 19:10-22:00
    ]

    /// Makes a day. The defaults: home at Westminster, London, on Tuesday 3 March 2026, a fix a
    /// minute, 20 m of noise per axis, no outliers, seed 1.
    public init(
        origin: Coordinate = SyntheticDay.defaultOrigin,
        year: Int = 2026, month: Int = 3, day: Int = 3,
        timeZone: TimeZone = TimeZone(identifier: "Europe/London") ?? .gmt,
        intervalSeconds: TimeInterval = 60, noiseMeters: Double = 20,
        outliers: [ClockTime] = [], seed: UInt64 = 1
    ) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let components = DateComponents(year: year, month: month, day: day)
        self.origin = origin
        self.midnight = calendar.date(from: components) ?? Date(timeIntervalSince1970: 0)
        self.timeZone = timeZone
        self.intervalSeconds = max(1, intervalSeconds)
        self.noiseMeters = max(0, noiseMeters)
        self.outliers = outliers
        self.seed = seed
        self.frame = LocalFrame(origin: origin)
    }

    /// Home at Westminster, London.
    public static let defaultOrigin = Coordinate(uncheckedLatitude: 51.5007, longitude: -0.1246)

    /// The local time `time` on this day, as a date.
    public func date(_ time: ClockTime) -> Date { midnight.addingTimeInterval(time.secondsSinceMidnight) }

    /// The coordinate of a place.
    public func coordinate(of place: Place) -> Coordinate {
        coordinate(east: place.offsetMeters.east, north: place.offsetMeters.north)
    }

    /// The coordinate of a point on the local map.
    public func coordinate(east: Double, north: Double) -> Coordinate {
        frame.unproject(PlanePoint(x: east, y: north))
    }

    /// The true stays, in order.
    public var stays: [Stay] {
        SyntheticDay.legs.filter { $0.from == $0.to }.map {
            Stay(
                place: $0.from, arrival: midnight.addingTimeInterval(TimeInterval($0.start)),
                departure: midnight.addingTimeInterval(TimeInterval($0.end)))
        }
    }

    /// Where the person truly was (no noise), in metres on the local map; `nil` outside 07:00-22:00.
    public func truePosition(at date: Date) -> (east: Double, north: Double)? {
        let t = date.timeIntervalSince(midnight)
        guard let leg = SyntheticDay.legs.first(where: { Double($0.start) <= t && t <= Double($0.end) })
        else {
            return nil
        }
        let fraction = (t - Double(leg.start)) / Double(leg.end - leg.start)
        let a = leg.from.offsetMeters, b = leg.to.offsetMeters
        return (a.east + (b.east - a.east) * fraction, a.north + (b.north - a.north) * fraction)
    }

    /// The day's fixes, from 07:00 to 22:00, every `intervalSeconds`.
    public func fixes() -> [Fix] {
        var generator = SeededGenerator(seed: seed)
        let outlierSeconds = Set(outliers.map(\.secondsSinceMidnight))
        var fixes: [Fix] = []
        var t = TimeInterval(7 * 3600)
        while t <= TimeInterval(22 * 3600) {
            let time = midnight.addingTimeInterval(t)
            guard var position = truePosition(at: time) else { break }
            position.east += generator.gaussian(standardDeviation: noiseMeters)
            position.north += generator.gaussian(standardDeviation: noiseMeters)
            if outlierSeconds.contains(where: { abs($0 - t) < intervalSeconds / 2 }) {
                let angle = Double.random(in: 0..<(2 * .pi), using: &generator)
                position.east += 1000 * cos(angle)
                position.north += 1000 * sin(angle)
            }
            fixes.append(
                Fix(
                    timestamp: time, coordinate: coordinate(east: position.east, north: position.north),
                    horizontalAccuracy: max(5, (noiseMeters * 1.5).rounded())))
            t += intervalSeconds
        }
        return fixes
    }
}
