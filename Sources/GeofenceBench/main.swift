import Foundation
import Geofence

// Micro-benchmarks of the geometry. Run with `make bench` (a release build); figures go in the
// README's benchmark table as ns per call.

/// Times `body` over `iterations` calls after a warm-up, returning nanoseconds per call.
func nanosecondsPerCall(iterations: Int, _ body: (Int) -> Double) -> (ns: Double, checksum: Double) {
    var checksum = 0.0
    for i in 0..<min(iterations, 10_000) { checksum += body(i) }
    let clock = ContinuousClock()
    let elapsed = clock.measure {
        for i in 0..<iterations { checksum += body(i) }
    }
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    return (seconds * 1e9 / Double(iterations), checksum)
}

let center = try Coordinate(latitude: 51.5007, longitude: -0.1246)
// Fixes scattered over a 10 km box around the centre, fixed seed.
var generator = SeededGenerator(seed: 42)
var points: [Coordinate] = []
for _ in 0..<4096 {
    let dLat = Double.random(in: -0.045...0.045, using: &generator)
    let dLon = Double.random(in: -0.07...0.07, using: &generator)
    points.append(try Coordinate(latitude: center.latitude + dLat, longitude: center.longitude + dLon))
}
let circle = try CircularCondition(center: center, radiusMeters: 150)
// A 64-vertex star-shaped polygon about 1 km across.
var ring: [Coordinate] = []
let metresPerDegreeLongitude = 111_200 * cos(center.latitude * .pi / 180)
for i in 0...64 {
    let angle = Double(i % 64) / 64 * 2 * .pi
    let r: Double = i % 2 == 0 ? 500 : 350
    let latitude: Double = center.latitude + r * sin(angle) / 111_200
    let longitude: Double = center.longitude + r * cos(angle) / metresPerDegreeLongitude
    ring.append(try Coordinate(latitude: latitude, longitude: longitude))
}
let polygon = try PolygonCondition(polygons: [[ring]])

let mask = points.count - 1
let circleResult = nanosecondsPerCall(iterations: 5_000_000) { circle.signedDistance(to: points[$0 & mask]) }
let polygonResult = nanosecondsPerCall(iterations: 500_000) { polygon.signedDistance(to: points[$0 & mask]) }
// The visit detector over 28 consecutive synthetic days (March 2026), a fix every 5 seconds with
// three wild fixes a day: about 300 thousand fixes, nights between days being gaps.
var days: [Fix] = []
for dayOfMonth in 1...28 {
    let outliers = ["09:40", "10:15", "11:05"].compactMap(SyntheticDay.ClockTime.init(parsing:))
    let day = SyntheticDay(day: dayOfMonth, intervalSeconds: 5, outliers: outliers, seed: UInt64(dayOfMonth))
    days += day.fixes()
}
/// Runs the detector over the days `rounds` times, returning the best fixes per second.
func visitDetectorFixesPerSecond(_ days: [Fix], rounds: Int) -> (rate: Double, visits: Int) {
    var best = 0.0
    var visits = 0
    let clock = ContinuousClock()
    for _ in 0..<rounds {
        var detector = VisitDetector()
        var found = 0
        let elapsed = clock.measure {
            for fix in days { found += detector.ingest(fix).count }
            found += detector.finish().count
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        best = max(best, Double(days.count) / seconds)
        visits = found
    }
    return (best, visits)
}
let detectorResult = visitDetectorFixesPerSecond(days, rounds: 5)

print("benchmark                               ns/call")
print(String(format: "signed distance, circle                 %7.1f", circleResult.ns))
print(String(format: "signed distance, polygon of 64 vertices %7.1f", polygonResult.ns))
print("")
print("benchmark                               fixes/s")
print(String(format: "visit detector, synthetic days          %7.0f", detectorResult.rate))
print(
    String(
        format: "(checksum %.0f, %d fixes, %d visits)", circleResult.checksum + polygonResult.checksum,
        days.count, detectorResult.visits))
