import Foundation
import Geofence
import GeofenceSimulation

/// Prints, as a Markdown table, how the monitor's default hysteresis does on the synthetic day in
/// each sampling regime: crossings found of the ten true ones, dating error and confirmation
/// latency (median and worst over seeds 1-20). `geofence-bench --regimes` runs it; the README's
/// monitor section quotes its output.
func printSamplingRegimes() throws {
    struct Regime {
        var name: String
        var fixes: (SyntheticDay) -> [Fix]
        var baseInterval: Double
    }
    var regimes: [Regime] = [1.0, 5, 10, 15, 30].map { minutes in
        Regime(
            name: "timer, a fix every \(Int(minutes)) min", fixes: { $0.fixes() }, baseInterval: minutes * 60)
    }
    for (meters, keepAlive) in [(100.0, 900.0), (100, 3600), (500, 900), (500, 3600)] {
        let alive = keepAlive == 900 ? "15 min" : "1 h"
        regimes.append(
            Regime(
                name: "a fix per \(Int(meters)) m moved, keep-alive \(alive)",
                fixes: { $0.distanceTriggeredFixes(everyMeters: meters, keepAliveSeconds: keepAlive) },
                baseInterval: 10))
        regimes.append(
            Regime(
                name: "the same, tracker says so (OwnTracks `m`)",
                fixes: {
                    $0.distanceTriggeredFixes(everyMeters: meters, keepAliveSeconds: keepAlive).map {
                        var fix = $0
                        fix.silentWithinMeters = meters
                        return fix
                    }
                }, baseInterval: 10))
    }
    func text(_ seconds: Double) -> String {
        seconds < 90 ? "\(Int(seconds.rounded())) s" : String(format: "%.1f min", seconds / 60)
    }
    func median(_ values: [Double]) -> Double {
        let s = values.sorted()
        guard !s.isEmpty else { return .nan }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
    print(
        "| regime | crossings found (of 10 a day) | dating error median / worst | confirmation latency median / worst |"
    )
    print("|---|---|---|---|")
    for regime in regimes {
        var found = 0, days = 0
        var errors: [Double] = [], latencies: [Double] = []
        for seed in UInt64(1)...20 {
            let day = SyntheticDay(intervalSeconds: regime.baseInterval, seed: seed)
            var engine = MonitorEngine(name: "regimes")
            var truth: [(String, Bool, Date)] = []
            for place in SyntheticDay.Place.allCases {
                let condition = Condition.circle(
                    try CircularCondition(center: day.coordinate(of: place), radiusMeters: 150))
                engine.add(condition, identifier: place.rawValue)
                truth += SyntheticTrace.crossings(
                    of: condition, from: day.date(.init(7, 0)), to: day.date(.init(22, 0))
                ) { date in day.truePosition(at: date).map { day.coordinate(east: $0.east, north: $0.north) }
                }
                .map { (place.rawValue, $0.entering, $0.date) }
            }
            days += 1
            let fixes = regime.fixes(day)
            var events = engine.ingest(fixes)
            events += engine.advance(to: day.date(.init(22, 0)).addingTimeInterval(3600))
            for event in events where !event.isFirstDetermination && event.kind == .transition {
                let candidates = truth.filter {
                    $0.0 == event.identifier && $0.1 == (event.state == .satisfied)
                }
                guard
                    let nearest = candidates.min(by: {
                        abs($0.2.timeIntervalSince(event.date)) < abs($1.2.timeIntervalSince(event.date))
                    })
                else { continue }
                found += 1
                errors.append(abs(event.date.timeIntervalSince(nearest.2)))
                latencies.append(event.confirmedAt.timeIntervalSince(event.date))
            }
        }
        let perDay = Double(found) / Double(days)
        print(
            "| \(regime.name) | \(String(format: "%.1f", perDay)) | \(text(median(errors))) / \(text(errors.max() ?? .nan)) | \(text(median(latencies))) / \(text(latencies.max() ?? .nan)) |"
        )
    }
}
