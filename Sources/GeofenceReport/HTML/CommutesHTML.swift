import Foundation
import GeofenceRules

/// The commutes over the whole input: duration by date, median and spread per weekday, and a table.
struct CommutesHTML {
    let commutes: [CommuteRecord]
    let clock: LocalClock
    static let width = 1000.0
    static let height = 240.0

    func render(into out: inout String) {
        out += "<section id=commutes><h2>Commutes</h2>"
        guard !commutes.isEmpty else {
            out += "<p class=note>No commute in this input.</p></section>"
            return
        }
        let completed = commutes.filter { $0.durationSeconds != nil }
        out += "<p>\(completed.count) completed, \(commutes.count - completed.count) abandoned.</p>"
        scatter(into: &out)
        weekdays(completed, into: &out)
        table(into: &out)
        out += "</section>"
    }

    /// Minutes by date: a dot per completed commute, a cross on the axis per abandoned one.
    private func scatter(into out: inout String) {
        let n = HTMLText.number
        let left = 50.0
        let bottom = 24.0
        let plotWidth = Self.width - left - 10
        let plotHeight = Self.height - bottom - 10
        let first = commutes.map(\.start).min() ?? Date()
        let last = commutes.map(\.start).max() ?? first
        let span = max(86400, last.timeIntervalSince(first))
        let longest = max(10, (commutes.compactMap(\.durationSeconds).max() ?? 600) / 60 * 1.1)
        func x(_ date: Date) -> Double { left + date.timeIntervalSince(first) / span * plotWidth }
        func y(_ minutes: Double) -> Double { 10 + plotHeight - minutes / longest * plotHeight }
        out +=
            "<svg class=commutes viewBox=\"0 0 \(Int(Self.width)) \(Int(Self.height))\" width=\(Int(Self.width))"
        out += " height=\(Int(Self.height)) role=img aria-label=\"commute durations by date\">"
        out += "<rect class=bg width=100% height=100% />"
        for fraction in [0.0, 0.25, 0.5, 0.75, 1.0] {
            let minutes = longest * fraction
            out += "<path class=grid d=\"M\(n(left)) \(n(y(minutes)))H\(n(Self.width - 10))\"/>"
            out +=
                "<text class=axis x=\(n(left - 4)) y=\(n(y(minutes) + 3)) text-anchor=end>\(Int(minutes.rounded())) min</text>"
        }
        out += "<text class=axis x=\(n(left)) y=\(n(Self.height - 6))>\(clock.day(first))</text>"
        out +=
            "<text class=axis x=\(n(Self.width - 10)) y=\(n(Self.height - 6)) text-anchor=end>\(clock.day(last))</text>"
        let rules = Array(Set(commutes.map(\.rule))).sorted()
        for commute in commutes {
            let colour = (rules.firstIndex(of: commute.rule) ?? 0) % 6
            let title =
                "\(HTMLText.escape(commute.rule)) \(clock.minute(commute.start)): "
                + (commute.durationSeconds.map { HTMLText.duration($0) }
                    ?? "abandoned (\(HTMLText.escape(commute.reason ?? "")))")
            let cx = n(x(commute.start))
            if let seconds = commute.durationSeconds {
                out +=
                    "<circle class=\"cm c\(colour)\" data-commute=\"\(commute.id)\" cx=\(cx) cy=\(n(y(seconds / 60)))"
                out += " r=4><title>\(title)</title></circle>"
            } else {
                out +=
                    "<path class=\"cma c\(colour)\" data-commute=\"\(commute.id)\" d=\"M\(n(x(commute.start) - 3)) "
                out += "\(n(y(0) - 3))l6 6m0-6l-6 6\"><title>\(title)</title></path>"
            }
        }
        for (index, rule) in rules.enumerated() {
            let lx = left + 10 + Double(index) * 180
            out +=
                "<circle class=\"cm c\(index % 6)\" cx=\(n(lx)) cy=20 r=4 /><text class=axis x=\(n(lx + 8)) y=24>"
            out += "\(HTMLText.escape(rule))</text>"
        }
        out += "</svg>"
    }

    /// Per rule and weekday: count, median, quartiles and extremes, as a table with a small bar
    /// drawing the spread.
    private func weekdays(_ completed: [CommuteRecord], into out: inout String) {
        let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let longest = max(1, completed.compactMap(\.durationSeconds).max() ?? 1)
        out += "<h3>By weekday</h3><table class=wk><tr><th>rule</th><th>day</th><th>n</th><th>median</th>"
        out += "<th>spread (min · quartiles · max)</th><th></th></tr>"
        for rule in Array(Set(completed.map(\.rule))).sorted() {
            for weekday in [2, 3, 4, 5, 6, 7, 1] {
                let durations = completed.filter { $0.rule == rule && clock.weekday($0.start) == weekday }
                    .compactMap(\.durationSeconds).sorted()
                guard !durations.isEmpty else { continue }
                let median = Self.quantile(durations, 0.5)
                let q1 = Self.quantile(durations, 0.25)
                let q3 = Self.quantile(durations, 0.75)
                func bx(_ seconds: Double) -> String { HTMLText.number(seconds / longest * 200) }
                out +=
                    "<tr><td>\(HTMLText.escape(rule))</td><td>\(names[weekday - 1])</td><td>\(durations.count)</td>"
                out += "<td>\(HTMLText.duration(median))</td><td>\(HTMLText.duration(durations[0])) · "
                out +=
                    "\(HTMLText.duration(q1))–\(HTMLText.duration(q3)) · \(HTMLText.duration(durations[durations.count - 1]))</td>"
                out +=
                    "<td><svg width=204 height=14><path class=whisker d=\"M\(bx(durations[0])) 7H\(bx(durations[durations.count - 1]))\"/>"
                out +=
                    "<rect class=box x=\(bx(q1)) y=2 width=\(HTMLText.number(max(1, (q3 - q1) / longest * 200))) height=10 />"
                out += "<path class=median d=\"M\(bx(median)) 1v12\"/></svg></td></tr>"
            }
        }
        out += "</table>"
    }

    private func table(into out: inout String) {
        out += "<h3>Every commute</h3><table class=list><tr><th>date</th><th>rule</th><th>from → to</th>"
        out += "<th>left</th><th>arrived</th><th>duration</th><th>status</th></tr>"
        for commute in commutes {
            out += "<tr data-commute-row=\"\(commute.id)\"><td>\(clock.day(commute.start))</td>"
            out += "<td>\(HTMLText.escape(commute.rule))</td><td>\(HTMLText.escape(commute.from)) → "
            out += "\(HTMLText.escape(commute.to))</td><td>\(clock.time(commute.start))</td>"
            out += "<td>\(commute.end.map(clock.time) ?? "")</td>"
            out += "<td>\(commute.durationSeconds.map { HTMLText.duration($0) } ?? "")</td>"
            out +=
                "<td>\(commute.status.rawValue)\(commute.reason.map { ": " + HTMLText.escape($0) } ?? "")</td></tr>"
        }
        out += "</table>"
    }

    /// The `q` quantile of sorted values, interpolated between neighbours.
    static func quantile(_ sorted: [Double], _ q: Double) -> Double {
        guard sorted.count > 1 else { return sorted.first ?? 0 }
        let position = q * Double(sorted.count - 1)
        let lower = Int(position)
        let upper = min(lower + 1, sorted.count - 1)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
    }
}
