import Geofence
import Foundation

/// One day as rows against the clock: per place the satisfied intervals and its events, the
/// stays, the actions with their outcome, and the data with its gaps.
struct TimelineSVG {
    let day: ReportDay
    let places: [ReportPlace]
    let clock: LocalClock
    static let width = 1000.0
    static let labelWidth = 90.0
    static let rowHeight = 22.0

    func render(into out: inout String) {
        let n = HTMLText.number
        let rows = places.map(\.name) + ["stays", "actions", "data"]
        let height = Double(rows.count) * Self.rowHeight + 22
        let start = day.start.timeIntervalSince1970
        let span = max(1, day.end.timeIntervalSince(day.start))
        let plot = Self.width - Self.labelWidth - 8
        func x(_ date: Date) -> Double {
            Self.labelWidth + min(max(0, (date.timeIntervalSince1970 - start) / span), 1) * plot
        }
        func rowY(_ index: Int) -> Double { Double(index) * Self.rowHeight + 4 }
        out +=
            "<svg class=timeline viewBox=\"0 0 \(Int(Self.width)) \(Int(height))\" width=\(Int(Self.width))"
        out += " height=\(Int(height)) role=img aria-label=\"timeline of \(day.label)\">"
        out += "<rect class=bg width=100% height=100% />"
        for hour in Swift.stride(from: 0, through: 24, by: 3) {
            let hx = Self.labelWidth + Double(hour) / 24 * plot
            out += "<path class=grid d=\"M\(n(hx)) 0V\(n(height - 18))\"/>"
            out +=
                "<text class=axis x=\(n(hx)) y=\(n(height - 5)) text-anchor=middle>\(String(format: "%02d:00", hour))</text>"
        }
        for (index, name) in rows.enumerated() {
            out += "<text class=rowlabel x=4 y=\(n(rowY(index) + 14))>\(HTMLText.escape(name))</text>"
        }
        for (index, place) in places.enumerated() {
            let y = rowY(index)
            let name = HTMLText.escape(place.name)
            for interval in day.satisfied[place.name] ?? [] {
                out +=
                    "<rect class=sat data-timeline-place=\"\(name)\" x=\(n(x(interval.start))) y=\(n(y + 2))"
                out +=
                    " width=\(n(max(1, x(interval.end) - x(interval.start)))) height=14><title>inside \(name) "
                out += "\(clock.time(interval.start)) to \(clock.time(interval.end))</title></rect>"
            }
            for event in day.events where event.place == place.name {
                out += "<path class=\"tick \(HTMLText.escape(event.transition))\" d=\"M\(n(x(event.date))) "
                out +=
                    "\(n(y))v18\"><title>\(HTMLText.escape(event.transition)) \(clock.time(event.date))</title></path>"
            }
        }
        let staysY = rowY(places.count)
        for stay in day.stays {
            let from = stay.arrival ?? day.start
            let to = stay.departure ?? day.end
            out += "<rect class=visit x=\(n(x(from))) y=\(n(staysY + 4)) width=\(n(max(2, x(to) - x(from))))"
            out +=
                " height=10><title>stay \(clock.time(from)) to \(stay.departure.map(clock.time) ?? "open")</title></rect>"
        }
        let actionsY = rowY(places.count + 1)
        for action in day.actions {
            let detail = action.detail.map { ": " + HTMLText.escape($0) } ?? ""
            out += "<circle class=\"act \(action.outcome.rawValue)\" data-action=\"\(action.id)\""
            out += " cx=\(n(x(action.date))) cy=\(n(actionsY + 9)) r=5><title>\(clock.time(action.date)) "
            out +=
                "\(HTMLText.escape(action.rule)) (\(action.kind), on \(HTMLText.escape(action.transition))): "
            out += "\(action.outcome.rawValue)\(detail)</title></circle>"
        }
        let dataY = rowY(places.count + 2)
        if let first = day.track.first?.first?.date, let last = day.track.last?.last?.date {
            out +=
                "<rect class=cover x=\(n(x(first))) y=\(n(dataY + 6)) width=\(n(max(1, x(last) - x(first))))"
            out += " height=6><title>fixes \(clock.time(first)) to \(clock.time(last))</title></rect>"
        }
        for gap in day.gaps {
            out +=
                "<rect class=gap x=\(n(x(gap.start))) y=\(n(dataY + 2)) width=\(n(max(2, x(gap.end) - x(gap.start))))"
            out += " height=14><title>no fix \(clock.time(gap.start)) to \(clock.time(gap.end)) "
            out += "(\(HTMLText.duration(gap.duration)))</title></rect>"
        }
        out += "</svg>"
    }
}
