import Foundation
import Geofence

/// Every fix of the device shown, kept or dropped, in columns: a million fixes take about 30 MB
/// here instead of the 200 bytes each of a `Fix`.
struct FixTable {
    /// Seconds since 1970.
    var times: [Double] = []
    var coordinates: [Coordinate] = []
    /// Metres; NaN when the fix had none.
    var accuracies: [Float] = []
    /// The index of the filter's reason in `FixFilter.Reason.allCases`, or -1 when kept.
    var reasons: [Int8] = []

    var count: Int { times.count }

    mutating func append(_ fix: Fix, dropped reason: FixFilter.Reason?) {
        times.append(fix.timestamp.timeIntervalSince1970)
        coordinates.append(fix.coordinate)
        accuracies.append(fix.horizontalAccuracy.map(Float.init) ?? .nan)
        reasons.append(reason.flatMap { FixFilter.Reason.allCases.firstIndex(of: $0) }.map(Int8.init) ?? -1)
    }

    func reason(at index: Int) -> FixFilter.Reason? {
        reasons[index] < 0 ? nil : FixFilter.Reason.allCases[Int(reasons[index])]
    }

    func accuracy(at index: Int) -> Double? {
        accuracies[index].isNaN ? nil : Double(accuracies[index])
    }

    /// The table in time order (input is usually in order already; a stable sort keeps ties).
    func sortedByTime() -> FixTable {
        if zip(times, times.dropFirst()).allSatisfy({ $0 <= $1 }) { return self }
        let order = times.indices.sorted { times[$0] < times[$1] || (times[$0] == times[$1] && $0 < $1) }
        var sorted = FixTable()
        sorted.times = order.map { times[$0] }
        sorted.coordinates = order.map { coordinates[$0] }
        sorted.accuracies = order.map { accuracies[$0] }
        sorted.reasons = order.map { reasons[$0] }
        return sorted
    }

    /// The first index whose time is at or after `time` (binary search; the table is sorted).
    func firstIndex(atOrAfter time: Double) -> Int {
        var low = 0
        var high = times.count
        while low < high {
            let middle = (low + high) / 2
            if times[middle] < time { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
