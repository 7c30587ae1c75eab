import Foundation
import Testing

@testable import Geofence
import GeofenceSimulation

/// The filter's quick plausibility bound must never accept a fix the exact speed rule drops.
@Suite struct FixFilterSpeedTests {
    @Test(arguments: [(51.5, -0.12), (0.3, 0.2), (-70.0, 30.0), (89.0, 10.0), (10.0, 179.999)])
    func theSpeedRuleIsTheExactOneNearTheLimit(latitude: Double, longitude: Double) throws {
        let map = try MetricMap(latitude: latitude, longitude: longitude)
        var random = SeededGenerator(seed: 31)
        let configuration = FixFilter.Configuration()
        let limit = configuration.maxSpeedMetersPerSecond
        var dropped = 0, kept = 0
        for _ in 0..<2000 {
            let seconds: Double = [1.0, 10, 600, 86_000].randomElement(using: &random) ?? 1
            // Distances within a few percent of what the limit allows, either side of it, in any
            // direction.
            let meters = limit * seconds * Double.random(in: 0.9...1.1, using: &random)
            let bearing = Double.random(in: 0..<(2 * .pi), using: &random)
            let a = Fix(timestamp: Date(timeIntervalSince1970: 1_000_000), coordinate: map.at(0, 0), horizontalAccuracy: 5)
            let b = Fix(
                timestamp: a.timestamp.addingTimeInterval(seconds),
                coordinate: map.at(meters * cos(bearing), meters * sin(bearing)), horizontalAccuracy: 5)
            var filter = FixFilter(configuration: configuration)
            _ = filter.evaluate(a, arrivedAt: nil)
            let exact = max(0, a.coordinate.distance(to: b.coordinate) - 10) / seconds > limit
            let reason = filter.reason(for: b, arrivedAt: nil)
            #expect((reason == .tooFast) == exact, "\(meters) m in \(seconds) s")
            if exact { dropped += 1 } else { kept += 1 }
        }
        #expect(dropped > 200)
        #expect(kept > 200)
    }
}
