import Geofence
import Foundation

/// "Why the fence fired": the signed distance to one place around one crossing, the evidence band
/// (distance ± k·accuracy) against the enter and exit margins, and the first evidence, the
/// estimated crossing and the confirmation marked, with the latency written.
struct CrossingChartSVG {
    let chart: CrossingChart
    let clock: LocalClock
    static let width = 460.0
    static let height = 210.0
    static let left = 46.0
    static let right = 10.0
    static let top = 10.0
    static let bottom = 24.0

    func render(into out: inout String) {
        let event = chart.event
        let h = chart.hysteresis
        let k = h.accuracyWeight
        let place = HTMLText.escape(event.place)
        let evidence = chart.firstEvidence.map { "first evidence \(clock.time($0)) · " } ?? ""
        out += "<figure class=chart data-chart-event=\"\(event.id)\" data-chart-place=\"\(place)\">"
        out += "<figcaption><b>\(HTMLText.escape(event.transition)) \(place)</b> · crossing "
        out += "\(clock.time(event.date)) · \(evidence)confirmed \(clock.time(event.confirmedAt)) · "
        out += "<b>latency \(HTMLText.duration(event.latencySeconds))</b></figcaption>"
        guard !chart.points.isEmpty else {
            out += "<p class=note>No fixes around this event (a visit decided it).</p></figure>"
            return
        }
        var low = min(-h.enterMarginMeters, 0)
        var high = max(h.exitMarginMeters, 0)
        for point in chart.points {
            low = min(low, point.distance - k * point.accuracy)
            high = max(high, point.distance + k * point.accuracy)
        }
        // Far from the fence nothing is decided: keep the scale where the margins are readable.
        let accuracies = chart.points.map(\.accuracy).sorted()
        let typicalAccuracy = accuracies[accuracies.count / 2]
        let limit = max(100, 4 * (max(h.enterMarginMeters, h.exitMarginMeters) + k * typicalAccuracy))
        low = max(low, -limit) - 5
        high = min(high, limit) + 5
        let plotWidth = Self.width - Self.left - Self.right
        let plotHeight = Self.height - Self.top - Self.bottom
        let start = chart.window.start.timeIntervalSince1970
        let span = max(1, chart.window.duration)
        func x(_ date: Date) -> Double { Self.left + (date.timeIntervalSince1970 - start) / span * plotWidth }
        func y(_ metres: Double) -> Double {
            Self.top + (high - min(max(metres, low), high)) / (high - low) * plotHeight
        }
        let n = HTMLText.number
        out += "<svg viewBox=\"0 0 \(Int(Self.width)) \(Int(Self.height))\" width=\(Int(Self.width))"
        out += " height=\(Int(Self.height)) role=img aria-label=\"signed distance to \(place)\">"
        out += "<rect class=bg width=100% height=100% />"
        // Evidence zones: below -enter margin is inside evidence, above +exit margin outside.
        out += "<rect class=zin x=\(n(Self.left)) y=\(n(y(-h.enterMarginMeters))) width=\(n(plotWidth))"
        out += " height=\(n(max(0, y(low) - y(-h.enterMarginMeters)))) />"
        out += "<rect class=zout x=\(n(Self.left)) y=\(n(y(high))) width=\(n(plotWidth))"
        out += " height=\(n(max(0, y(h.exitMarginMeters) - y(high)))) />"
        // The band d ± k·accuracy: upper edge forward, lower edge back.
        out += "<path class=band d=\""
        for (index, point) in chart.points.enumerated() {
            out +=
                (index == 0 ? "M" : "L") + n(x(point.date)) + " " + n(y(point.distance + k * point.accuracy))
        }
        for point in chart.points.reversed() {
            out += "L" + n(x(point.date)) + " " + n(y(point.distance - k * point.accuracy))
        }
        out += "Z\"/><path class=dist d=\""
        for (index, point) in chart.points.enumerated() {
            out += (index == 0 ? "M" : "L") + n(x(point.date)) + " " + n(y(point.distance))
        }
        out += "\"/>"
        line(y: y(0), cls: "zero", label: "boundary", labelX: Self.left + 2, labelY: y(0) - 2, into: &out)
        line(
            y: y(-h.enterMarginMeters), cls: "enterm", label: "enter margin −\(n(h.enterMarginMeters)) m",
            labelX: Self.width - Self.right - 2, labelY: y(-h.enterMarginMeters) + 9, anchor: "end",
            into: &out)
        line(
            y: y(h.exitMarginMeters), cls: "exitm", label: "exit margin +\(n(h.exitMarginMeters)) m",
            labelX: Self.width - Self.right - 2, labelY: y(h.exitMarginMeters) - 2, anchor: "end", into: &out)
        if let first = chart.firstEvidence {
            marker(x: x(first), cls: "first", label: "first evidence", into: &out)
        }
        marker(x: x(event.date), cls: "cross", label: "crossing", into: &out)
        marker(x: x(event.confirmedAt), cls: "confirm", label: "confirmed", into: &out)
        // Axes: metres on the left, local times below.
        for value in [low + 5, 0, high - 5] {
            out +=
                "<text class=axis x=\(n(Self.left - 4)) y=\(n(y(value) + 3)) text-anchor=end>\(Int(value.rounded()))</text>"
        }
        out +=
            "<text class=axis x=\(n(Self.left)) y=\(n(Self.height - 6))>\(clock.time(chart.window.start))</text>"
        out += "<text class=axis x=\(n(Self.width - Self.right)) y=\(n(Self.height - 6)) text-anchor=end>"
        out += "\(clock.time(chart.window.end))</text>"
        out +=
            "<text class=axis x=\(n(Self.left + plotWidth / 2)) y=\(n(Self.height - 6)) text-anchor=middle>"
        out += "metres to the boundary (k = \(n(k)))</text></svg></figure>"
    }

    private func line(
        y: Double, cls: String, label: String, labelX: Double, labelY: Double, anchor: String = "start",
        into out: inout String
    ) {
        let n = HTMLText.number
        out += "<path class=\(cls) d=\"M\(n(Self.left)) \(n(y))H\(n(Self.width - Self.right))\"/>"
        out +=
            "<text class=\"axis \(cls)t\" x=\(n(labelX)) y=\(n(labelY)) text-anchor=\(anchor)>\(label)</text>"
    }

    private func marker(x: Double, cls: String, label: String, into out: inout String) {
        let n = HTMLText.number
        out +=
            "<path class=\(cls) d=\"M\(n(x)) \(n(Self.top))V\(n(Self.height - Self.bottom))\"><title>\(label)</title></path>"
    }
}
