import GeofenceRules
import Foundation
import GeofenceReport
import Testing

/// The synthetic day's report as a browser shows it: rendered by headless Chromium, screenshot
/// decoded and looked at, DOM searched for every place, event and commute.
@Suite(.serialized) struct ReportRenderingTests {
    @Test func syntheticDayReportRendersAMapTrackAndEventsInChromium() async throws {
        let chromium = try Chromium.find()
        let scratch = try ScratchDirectory()
        let page = scratch.file("report.html")
        try ReportHTML.render(try Fixtures.syntheticDayReport()).write(
            toFile: page, atomically: true, encoding: .utf8)
        let blankPage = scratch.file("blank.html")
        try "<!doctype html><body style=\"background:#fafafa\"></body>".write(
            toFile: blankPage, atomically: true, encoding: .utf8)

        let shot = try await offThePool {
            try chromium.screenshot(of: page, width: 1200, height: 2000, in: scratch)
        }
        let image = try PNGImage(shot)
        let blankShot = try await offThePool {
            try chromium.screenshot(of: blankPage, width: 1200, height: 2000, in: scratch)
        }
        let blank = try PNGImage(blankShot)
        #expect(image.width == 1200 && image.height == 2000)
        #expect(blank.distinctColours <= 2)
        #expect(image.distinctColours > 200)
        // The track's blue, the enter green and the exit red are drawn, not just text.
        #expect(image.count(near: (0x1F, 0x6F, 0xD1)) > 500)
        #expect(image.count(near: (0x2E, 0x9E, 0x44)) > 100)
        #expect(image.count(near: (0xD0, 0x36, 0x2B)) > 100)
        #expect(blank.count(near: (0x1F, 0x6F, 0xD1)) == 0)

        // `make screenshot` keeps this very rendering for the README.
        if let keep = ProcessInfo.processInfo.environment["GEOFENCE_REPORT_SCREENSHOT"] {
            try shot.write(to: URL(fileURLWithPath: keep))
        }
    }

    @Test func everyPlaceEventAndCommuteIsDrawnInTheDOM() async throws {
        let chromium = try Chromium.find()
        let scratch = try ScratchDirectory()
        let report = try Fixtures.syntheticDayReport()
        let page = scratch.file("report.html")
        try ReportHTML.render(report).write(toFile: page, atomically: true, encoding: .utf8)
        let dom = try await offThePool { try chromium.dumpDOM(of: page, in: scratch) }
        #expect(dom.contains("<svg class=\"map\""))

        #expect(report.places.map(\.name) == ["home", "work", "lunch", "gym"])
        for place in report.places {
            #expect(dom.contains("<g class=\"place\" data-place=\"\(place.name)\">"), "place \(place.name)")
        }
        let events = report.days.flatMap(\.events)
        #expect(events.filter(\.isCrossingForTest).count == 10)
        for event in events {
            #expect(dom.contains("data-event=\"\(event.id)\""), "event \(event.transition) \(event.place)")
            if event.isCrossingForTest {
                #expect(
                    dom.contains("data-chart-event=\"\(event.id)\""),
                    "chart of \(event.transition) \(event.place)")
            }
        }
        // Morning, evening (abandoned at the gym: a stop) and home from the gym.
        #expect(report.commutes.count == 3)
        for commute in report.commutes {
            #expect(dom.contains("data-commute=\"\(commute.id)\""), "commute \(commute.rule)")
        }
        // Parsed as SVG, each event is one element of its own, not swallowed by the one before.
        #expect(dom.components(separatedBy: " data-event=\"").count - 1 == events.count)
        #expect(dom.components(separatedBy: "<svg class=\"inset\"").count - 1 == 4)
    }
}

extension ReportEvent {
    var isCrossingForTest: Bool { transition == "enter" || transition == "exit" }
}
