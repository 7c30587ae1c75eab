import Foundation
import Geofence

/// Writes a ``Report`` as one self-contained HTML page: inline CSS and SVG and a few lines of
/// inline script to choose the day; nothing is fetched, so it works offline and from a file.
public enum ReportHTML {
    /// The whole page.
    public static func render(_ report: Report) -> String {
        let clock = LocalClock(timeZone: report.timeZone)
        var out = ""
        out.reserveCapacity(1 << 20)
        out += "<!doctype html><html lang=en><head><meta charset=utf-8>"
        out += "<meta name=viewport content=\"width=device-width\"><title>geofence report</title>"
        out += "<style>\(style)</style></head><body>"
        out += "<header><h1>geofence report</h1><p class=src>\(HTMLText.escape(report.source)) · "
        out += "times in \(HTMLText.escape(report.timeZone.identifier))</p></header>"
        summary(report, into: &out)
        let detailed = report.days.filter(\.isDetailed)
        let shown = detailed.max { $0.events.count < $1.events.count }?.label
        if !detailed.isEmpty {
            out += "<nav><label>Day <select id=daypick>"
            for day in detailed {
                out +=
                    "<option value=\"\(day.label)\"\(day.label == shown ? " selected" : "")>\(day.label) · "
                out += "\(day.fixCount) fixes · \(day.eventCount) events</option>"
            }
            out += "</select></label> <button id=prev>◀</button> <button id=next>▶</button>"
            out += " <span class=small>\(report.days.count) days with data"
            if detailed.count < report.days.count {
                out +=
                    "; the oldest \(report.days.count - detailed.count) are counted in the list below, not drawn"
            }
            out += "</span></nav>"
        }
        for day in detailed {
            render(day, report: report, clock: clock, hidden: day.label != shown, into: &out)
        }
        overview(report.days, into: &out)
        CommutesHTML(commutes: report.commutes, clock: clock).render(into: &out)
        out += "<script>\(script)</script></body></html>\n"
        return out
    }

    private static func render(
        _ day: ReportDay, report: Report, clock: LocalClock, hidden: Bool, into out: inout String
    ) {
        out += "<section class=day data-day=\"\(day.label)\"\(hidden ? " hidden" : "")>"
        out += "<h2>\(day.label)</h2><p class=small>\(day.fixCount) fixes, \(day.keptCount) kept"
        if day.track.reduce(0, { $0 + $1.count }) < day.keptCount {
            out += " (the track is simplified to \(day.track.reduce(0) { $0 + $1.count }) points)"
        }
        out += ", \(day.dropped.count + day.droppedNotDrawn) dropped"
        if day.droppedNotDrawn > 0 { out += " (\(day.dropped.count) of them marked)" }
        out += ", \(day.eventCount) events"
        if day.events.count < day.eventCount { out += " (an even sample of \(day.events.count) drawn)" }
        out += ", \(day.actionCount) actions, \(day.gaps.count) gaps in the data</p>"
        out += "<div class=pair><div>"
        MapSVG(day: day, places: report.places, clock: clock).render(into: &out)
        out +=
            "<p class=legend><span class=k-track></span>track <span class=k-drop>×</span>dropped fix (hover: why) "
        out += "<span class=k-enter></span>enter band <span class=k-exit></span>exit band "
        out += "<span class=k-stay></span>stay <span class=k-ev></span>event, where it was decided</p>"
        // Close-ups of the places visited, where the margin bands are metres wide on screen.
        let visited = report.places.filter { place in day.events.contains { $0.place == place.name } }
        if !visited.isEmpty {
            out += "<div class=insets>"
            for place in visited {
                out += "<figure><figcaption>\(HTMLText.escape(place.name))</figcaption>"
                MapSVG(day: day, places: report.places, clock: clock, focus: place, width: 180, height: 180)
                    .render(into: &out)
                out += "</figure>"
            }
            out += "</div>"
        }
        out += "</div>"
        out +=
            "<div class=events><h3>Events</h3><table class=list><tr><th>crossing</th><th>place</th><th></th>"
        out += "<th>confirmed</th><th>latency</th></tr>"
        for event in day.events {
            out += "<tr><td>\(clock.time(event.date))</td><td>\(HTMLText.escape(event.place))</td>"
            out += "<td>\(HTMLText.escape(event.transition))</td><td>\(clock.time(event.confirmedAt))</td>"
            out += "<td>\(HTMLText.duration(event.latencySeconds))</td></tr>"
        }
        out += "</table><h3>Actions</h3><table class=list><tr><th>time</th><th>rule</th><th>action</th>"
        out += "<th>outcome</th></tr>"
        for action in day.actions {
            out += "<tr><td>\(clock.time(action.date))</td><td>\(HTMLText.escape(action.rule))</td>"
            out += "<td>\(action.kind) on \(HTMLText.escape(action.transition))"
            out += "\(action.place.map { " " + HTMLText.escape($0) } ?? "")</td>"
            out += "<td class=\(action.outcome.rawValue)>\(outcomeText(action.outcome))</td></tr>"
        }
        out += "</table></div></div><h3>Timeline</h3>"
        TimelineSVG(day: day, places: report.places, clock: clock).render(into: &out)
        if !day.charts.isEmpty {
            out +=
                "<h3>Why the fence fired</h3><p class=legend>signed distance (line) with its evidence band "
            out +=
                "distance ± k·accuracy (shaded); a fix is evidence of inside when the whole band is below the "
            out += "enter margin (green zone), of outside when it is above the exit margin (red zone). "
            out += "<span class=k-first></span>first evidence <span class=k-cross></span>estimated crossing "
            out += "<span class=k-confirm></span>confirmation</p><div class=charts>"
            for chart in day.charts { CrossingChartSVG(chart: chart, clock: clock).render(into: &out) }
            out += "</div>"
        } else if !report.summary.hasFixes, !day.events.isEmpty {
            out +=
                "<p class=note>No distance charts: the store keeps no fixes. Replay the recorded input with "
            out += "<code>geofence report RULES INPUT</code> to see why each fence fired.</p>"
        }
        out += "</section>"
    }

    /// Every day in one table: the aggregate view of a long input, and a way to pick a day.
    private static func overview(_ days: [ReportDay], into out: inout String) {
        guard days.count > 1 else { return }
        out +=
            "<details id=alldays><summary>All \(days.count) days</summary><table class=list><tr><th>day</th>"
        out += "<th>fixes</th><th>kept</th><th>events</th><th>actions</th><th>gaps</th></tr>"
        for day in days {
            let name = day.isDetailed ? "<a href=\"#\" data-go=\"\(day.label)\">\(day.label)</a>" : day.label
            out +=
                "<tr><td>\(name)</td><td>\(day.fixCount)</td><td>\(day.keptCount)</td><td>\(day.eventCount)</td>"
            out += "<td>\(day.actionCount)</td><td>\(day.isDetailed ? String(day.gaps.count) : "")</td></tr>"
        }
        out += "</table></details>"
    }

    private static func outcomeText(_ outcome: ReportAction.Outcome) -> String {
        switch outcome {
        case .notRun: "not run (replay)"
        case .pending: "pending"
        case .succeeded: "done"
        case .failed: "failed"
        case .timedOut: "timed out"
        }
    }

    private static func summary(_ report: Report, into out: inout String) {
        let s = report.summary
        out += "<section id=summary><h2>Summary</h2><div class=pair>"
        if s.hasFixes {
            out +=
                "<table class=list><tr><th colspan=2>fixes</th></tr><tr><td>records read</td><td>\(s.recordsRead)</td></tr>"
            out +=
                "<tr><td>fixes read</td><td>\(s.fixesRead)</td></tr><tr><td>kept</td><td>\(s.fixesKept)</td></tr>"
            for reason in FixFilter.Reason.allCases {
                guard let count = s.dropped[reason] else { continue }
                out += "<tr><td>dropped: \(reason.rawValue)</td><td>\(count)</td></tr>"
            }
            out += "<tr><td>unreadable lines</td><td>\(s.unreadable)</td></tr></table>"
        }
        let transitions = ["enter", "exit", "determined", "dwell"]
        out += "<table class=list><tr><th>place</th>"
        for transition in transitions { out += "<th>\(transition)</th>" }
        out += "</tr>"
        let known = report.places.map(\.name)
        for place in known + s.eventsPerPlace.keys.sorted().filter({ !known.contains($0) }) {
            out += "<tr><td>\(HTMLText.escape(place))</td>"
            for transition in transitions { out += "<td>\(s.eventsPerPlace[place]?[transition] ?? 0)</td>" }
            out += "</tr>"
        }
        out +=
            "</table><table class=list><tr><th colspan=2>hooks</th></tr><tr><td>run</td><td>\(s.hooksRun)</td></tr>"
        out +=
            "<tr><td>failed</td><td>\(s.hooksFailed)</td></tr><tr><td>timed out</td><td>\(s.hooksTimedOut)</td></tr>"
        out +=
            "<tr><td>not run\(s.hasFixes ? " (replay executes nothing)" : " (pending)")</td><td>\(s.hooksNotRun)</td></tr>"
        out += "<tr><td>commutes</td><td>\(report.commutes.count)</td></tr></table></div></section>"
    }

    private static let style = """
        body{font:13px/1.4 system-ui,sans-serif;margin:16px;color:#222;background:#fafafa}
        h1{font-size:20px;margin:0}h2{font-size:16px;margin:18px 0 6px;border-bottom:1px solid #ccc}
        h3{font-size:13px;margin:10px 0 4px}.src,.small,.note{color:#666}.small{font-size:11px}
        nav{margin:10px 0;position:sticky;top:0;background:#fafafa;padding:4px 0}
        .pair{display:flex;gap:16px;flex-wrap:wrap;align-items:flex-start}.pair .legend{max-width:560px}
        table.list,table.wk{border-collapse:collapse}td,th{padding:1px 8px;text-align:left;border-bottom:1px solid #e4e4e4}
        .charts,.insets{display:flex;flex-wrap:wrap;gap:10px}.insets{max-width:580px;margin-top:6px}figure{margin:0}figcaption{font-size:11px;max-width:460px}
        svg text{font:10px system-ui,sans-serif;fill:#333}.bg{fill:#fff;stroke:#ddd}
        .fence{fill:#eef3ff;stroke:#3557a7;stroke-width:1.5}.exitband{fill:none;stroke:#e8887a;opacity:.45}
        .enterband{fill:none;stroke:#5cb85c;opacity:.5}.label{font-weight:600;text-anchor:middle}
        .track{fill:none;stroke:#1f6fd1;stroke-width:1.6;stroke-linejoin:round}
        .drop{stroke:#c0392b;stroke-width:1.5}.stay{fill:#8e44ad22;stroke:#8e44ad;stroke-dasharray:3 2}
        .ev{stroke:#fff;stroke-width:1.5}.ev.enter,.tick.enter{fill:#2e9e44;stroke:#2e9e44}
        .ev.exit,.tick.exit{fill:#d0362b;stroke:#d0362b}.ev.determined,.tick.determined{fill:#888;stroke:#888}
        .ev.dwell,.tick.dwell{fill:#2a7fb8;stroke:#2a7fb8}.tick{stroke-width:2}
        .scale path{fill:none;stroke:#222;stroke-width:1.5}
        .zin{fill:#5cb85c22}.zout{fill:#e8887a22}.band{fill:#1f6fd133}.dist{fill:none;stroke:#1f6fd1;stroke-width:1.5}
        .zero{stroke:#222}.enterm{stroke:#2e9e44;stroke-dasharray:4 3}.exitm{stroke:#d0362b;stroke-dasharray:4 3}
        .entermt{fill:#2e9e44}.exitmt{fill:#d0362b}
        .first{stroke:#e67e22;stroke-width:2;stroke-dasharray:5 3}.cross{stroke:#8e44ad;stroke-width:2}
        .confirm{stroke:#222;stroke-width:2;stroke-dasharray:2 2}
        .grid{stroke:#eee}.rowlabel{font-weight:600}.sat{fill:#5cb85c66}.visit{fill:#8e44ad88}
        .cover{fill:#bbb}.gap{fill:#d0362b55}.act{stroke:#222;stroke-width:1}.act.notRun{fill:#ddd}
        .act.succeeded{fill:#2e9e44}.act.failed{fill:#d0362b}.act.timedOut{fill:#e67e22}.act.pending{fill:#f1c40f}
        td.failed,td.timedOut{color:#d0362b;font-weight:600}
        .cm{stroke:#fff}.cma{stroke-width:1.5}.c0{fill:#1f6fd1;stroke:#1f6fd1}.c1{fill:#d35400;stroke:#d35400}
        .c2{fill:#2e9e44;stroke:#2e9e44}.c3{fill:#8e44ad;stroke:#8e44ad}.c4{fill:#7f8c8d;stroke:#7f8c8d}.c5{fill:#c0392b;stroke:#c0392b}
        circle.cm{stroke:#fff}.whisker,.median{stroke:#222;stroke-width:1.5}.box{fill:#1f6fd155}
        .legend span{display:inline-block;width:14px;height:4px;margin:0 3px 2px 8px;vertical-align:middle}
        .k-track{background:#1f6fd1}.k-drop{color:#c0392b;width:auto!important;height:auto!important}
        .k-enter{background:#5cb85c}.k-exit{background:#e8887a}.k-stay{background:#8e44ad}.k-ev{background:#2e9e44}
        .k-first{background:#e67e22}.k-cross{background:#8e44ad}.k-confirm{background:#222}
        """

    private static let script = """
        (function(){var s=document.getElementById('daypick');if(!s)return;
        function show(){document.querySelectorAll('section.day').forEach(function(d){d.hidden=d.dataset.day!==s.value})}
        s.onchange=show;function step(n){var i=s.selectedIndex+n;if(i>=0&&i<s.options.length){s.selectedIndex=i;show()}}
        document.getElementById('prev').onclick=function(){step(-1)};document.getElementById('next').onclick=function(){step(1)};
        document.querySelectorAll('a[data-go]').forEach(function(a){a.onclick=function(e){e.preventDefault();s.value=a.dataset.go;show();s.scrollIntoView()}})})();
        """
}
