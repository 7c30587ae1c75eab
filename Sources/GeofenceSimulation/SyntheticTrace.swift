public import Foundation
public import Geofence

/// Seeded synthetic traces with a known truth, for testing region logic off-device.
///
/// Every generator takes a seed, so the same call gives the same fixes on every machine.
public enum SyntheticTrace {
    /// A device lying still: fixes around `coordinate` with Gaussian noise per axis, a fraction of
    /// them replaced by wild fixes `wildDistanceMeters` away in a random direction.
    ///
    /// Every fix, wild or not, claims `accuracyMeters` (by default one and a half times the noise):
    /// wild fixes are over-confident, as real multipath outliers are.
    public static func stationary(
        at coordinate: Coordinate, start: Date, durationSeconds: TimeInterval,
        intervalSeconds: TimeInterval = 60,
        noiseMeters: Double = 20, wildFraction: Double = 0.01, wildDistanceMeters: Double = 1000,
        accuracyMeters: Double? = nil, seed: UInt64
    ) -> [Fix] {
        let frame = LocalFrame(origin: coordinate)
        let accuracy = accuracyMeters ?? max(5, (noiseMeters * 1.5).rounded())
        let interval = max(1, intervalSeconds)
        var generator = SeededGenerator(seed: seed)
        var fixes: [Fix] = []
        fixes.reserveCapacity(Int(durationSeconds / interval) + 1)
        var t = 0.0
        while t <= durationSeconds {
            var east = generator.gaussian(standardDeviation: noiseMeters)
            var north = generator.gaussian(standardDeviation: noiseMeters)
            if Double.random(in: 0..<1, using: &generator) < wildFraction {
                let angle = Double.random(in: 0..<(2 * .pi), using: &generator)
                east += wildDistanceMeters * cos(angle)
                north += wildDistanceMeters * sin(angle)
            }
            fixes.append(
                Fix(
                    timestamp: start.addingTimeInterval(t),
                    coordinate: frame.unproject(PlanePoint(x: east, y: north)), horizontalAccuracy: accuracy))
            t += interval
        }
        return fixes
    }

    /// A boundary crossing on a true (noise-free) path.
    public struct Crossing: Hashable, Sendable {
        /// When the path crossed the boundary, to within a millisecond.
        public var date: Date
        /// `true` when the path went in, `false` when it came out.
        public var entering: Bool
    }

    /// The times a true path crosses a condition's boundary, between `start` and `end`.
    ///
    /// The path is sampled every `stepSeconds` and each change of side is refined by bisection, so
    /// crossings closer together than a step may be missed; paths used for testing cross far apart.
    public static func crossings(
        of condition: Condition, from start: Date, to end: Date, stepSeconds: TimeInterval = 1,
        position: (Date) -> Coordinate?
    ) -> [Crossing] {
        func inside(_ date: Date) -> Bool? { position(date).map(condition.contains) }
        var result: [Crossing] = []
        var t0 = start
        guard var before = inside(t0) else { return [] }
        while t0 < end {
            let t1 = min(end, t0.addingTimeInterval(max(0.001, stepSeconds)))
            guard let after = inside(t1) else { break }
            if after != before {
                var low = t0, high = t1
                while high.timeIntervalSince(low) > 0.001 {
                    let mid = low.addingTimeInterval(high.timeIntervalSince(low) / 2)
                    if inside(mid) == before { low = mid } else { high = mid }
                }
                result.append(Crossing(date: high, entering: after))
            }
            before = after
            t0 = t1
        }
        return result
    }
}

/// A walk along straight legs at constant speed, with seeded noisy fixes and a known true path.
public struct SyntheticWalk: Sendable {
    /// A point on the walk's local map, in metres east and north of its origin.
    public struct Offset: Hashable, Sendable {
        /// Metres east of the origin.
        public var east: Double
        /// Metres north of the origin.
        public var north: Double
        /// Makes an offset.
        public init(east: Double, north: Double) {
            self.east = east
            self.north = north
        }
    }

    /// The coordinate of the local map's origin.
    public let origin: Coordinate
    /// When the walk starts at the first waypoint.
    public let start: Date
    /// The walking speed in metres per second.
    public let speedMetersPerSecond: Double
    /// The corners of the path, in order.
    public let waypoints: [Offset]
    private let frame: LocalFrame

    /// Makes a walk; it needs at least one waypoint and a positive speed to go anywhere.
    public init(origin: Coordinate, start: Date, speedMetersPerSecond: Double = 1.4, waypoints: [Offset]) {
        self.origin = origin
        self.start = start
        self.speedMetersPerSecond = max(0.01, speedMetersPerSecond)
        self.waypoints = waypoints
        self.frame = LocalFrame(origin: origin)
    }

    /// The coordinate of a point on the local map.
    public func coordinate(east: Double, north: Double) -> Coordinate {
        frame.unproject(PlanePoint(x: east, y: north))
    }

    /// How long the walk takes, in seconds.
    public var durationSeconds: TimeInterval {
        zip(waypoints, waypoints.dropFirst()).reduce(0) { $0 + length($1.0, $1.1) } / speedMetersPerSecond
    }

    /// When the walk ends.
    public var end: Date { start.addingTimeInterval(durationSeconds) }

    /// Where the walker truly is (no noise), on the local map; `nil` before the start or after the end.
    public func trueOffset(at date: Date) -> Offset? {
        var remaining = date.timeIntervalSince(start) * speedMetersPerSecond
        guard remaining >= 0, let first = waypoints.first else { return nil }
        var here = first
        for next in waypoints.dropFirst() {
            let leg = length(here, next)
            if remaining <= leg {
                let f = leg > 0 ? remaining / leg : 0
                return Offset(
                    east: here.east + (next.east - here.east) * f,
                    north: here.north + (next.north - here.north) * f)
            }
            remaining -= leg
            here = next
        }
        return remaining <= 1e-9 ? here : nil
    }

    /// Where the walker truly is, as a coordinate.
    public func trueCoordinate(at date: Date) -> Coordinate? {
        trueOffset(at: date).map { coordinate(east: $0.east, north: $0.north) }
    }

    /// Noisy fixes along the walk, one every `intervalSeconds` from the start to the end.
    public func fixes(
        intervalSeconds: TimeInterval, noiseMeters: Double, accuracyMeters: Double? = nil, seed: UInt64
    )
        -> [Fix]
    {
        var generator = SeededGenerator(seed: seed)
        let accuracy = accuracyMeters ?? max(5, (noiseMeters * 1.5).rounded())
        var fixes: [Fix] = []
        var t = 0.0
        while let truth = trueOffset(at: start.addingTimeInterval(t)) {
            let east = truth.east + generator.gaussian(standardDeviation: noiseMeters)
            let north = truth.north + generator.gaussian(standardDeviation: noiseMeters)
            fixes.append(
                Fix(
                    timestamp: start.addingTimeInterval(t), coordinate: coordinate(east: east, north: north),
                    horizontalAccuracy: accuracy))
            t += max(1, intervalSeconds)
        }
        return fixes
    }

    private func length(_ a: Offset, _ b: Offset) -> Double {
        ((b.east - a.east) * (b.east - a.east) + (b.north - a.north) * (b.north - a.north)).squareRoot()
    }
}
