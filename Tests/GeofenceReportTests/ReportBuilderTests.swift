import Foundation
import Geofence
import GeofenceInput
import GeofenceReport
import GeofenceRules
import Testing
import GeofenceSimulation

@Suite struct ReportBuilderTests {
    @Test func syntheticDaySummaryCountsFixesEventsAndCommutes() throws {
        let report = try Fixtures.syntheticDayReport()
        #expect(report.summary.fixesRead == 901)
        #expect(report.summary.fixesKept + report.summary.dropped.values.reduce(0, +) == 901)
        #expect(report.summary.eventsPerPlace["work"]?["enter"] == 2)
        #expect(report.summary.eventsPerPlace["home"]?["exit"] == 1)
        #expect(report.summary.hooksNotRun == 0)
        #expect(report.days.map(\.label) == ["2026-03-03"])
        // The evening commute is abandoned at the gym (a stop); the way home is its own commute.
        #expect(report.commutes.map(\.rule) == ["morning commute", "evening commute", "home from the gym"])
        #expect(report.commutes.map(\.status) == [.completed, .abandoned, .completed])
        // Three commute logs (the abandoned one's too), the gym's log and the parcel reminder.
        #expect(report.days[0].actions.count == 5)
        #expect(report.days[0].actions.allSatisfy { $0.outcome == .notRun })
    }

    @Test func everyCrossingHasAChartWhoseEvidenceLiesBetweenCrossingAndConfirmation() throws {
        let day = try #require(try Fixtures.syntheticDayReport().days.first)
        #expect(day.charts.count == 10)
        for chart in day.charts {
            let first = try #require(chart.firstEvidence, "\(chart.event.transition) \(chart.event.place)")
            #expect(first >= chart.event.date)
            #expect(first <= chart.event.confirmedAt)
            #expect(chart.window.contains(chart.event.date) && chart.window.contains(chart.event.confirmedAt))
            #expect(chart.points.count >= 3)
            // The first evidence is a fix on the new side beyond margin plus k·accuracy.
            let point = try #require(chart.points.first { $0.date == first })
            let side = chart.hysteresis.evidence(signedDistance: point.distance, accuracy: point.accuracy)
            #expect(side == (chart.event.transition == "enter" ? .inside : .outside))
        }
        let leaveHome = try #require(
            day.charts.first { $0.event.place == "home" && $0.event.transition == "exit" })
        #expect(leaveHome.event.latencySeconds.rounded() == 137)
    }

    @Test func droppedFixesAreMarkedWithTheirReason() throws {
        var fixes = SyntheticDay().fixes()
        let jump = fixes[500]
        // 50 km north one second later: no one moves that fast.
        fixes.insert(
            Fix(
                timestamp: jump.timestamp + 1,
                coordinate: try Coordinate(
                    latitude: jump.coordinate.latitude + 0.45, longitude: jump.coordinate.longitude),
                horizontalAccuracy: 10), at: 501)
        fixes.insert(fixes[400], at: 401)
        var vague = fixes[300]
        vague.timestamp += 1
        vague.horizontalAccuracy = 500
        fixes.insert(vague, at: 301)
        var builder = ReportBuilder(rules: try Fixtures.rules())
        for fix in fixes { builder.add(.fix(fix)) }
        let report = builder.finish(source: "a day with three bad fixes")
        #expect(report.summary.dropped == [.tooFast: 1, .duplicate: 1, .inaccurate: 1])
        let dropped = report.days.flatMap(\.dropped)
        #expect(Set(dropped.map(\.reason)) == [.tooFast, .duplicate, .inaccurate])
        #expect(dropped.first { $0.reason == .inaccurate }?.accuracy == 500)
        let page = ReportHTML.render(report)
        #expect(page.contains("data-reason=duplicate"))
        #expect(page.contains("data-reason=inaccurate"))
        // The jump 50 km away is dropped, counted, and kept off the map rather than shrinking it.
        #expect(!page.contains("data-reason=tooFast"))
        #expect(page.contains("<td>dropped: tooFast</td><td>1</td>"))
        #expect(page.contains("1 dropped fixes lie off this map"))
    }

    @Test func staysAreDetectedEvenWhenTheRulesAskForNoVisits() throws {
        let rules = try Fixtures.rules()
        #expect(rules.visitConfiguration == nil)
        let day = try #require(try Fixtures.syntheticDayReport().days.first)
        // Home in the morning, work, lunch, work again, the gym, home in the evening.
        #expect(day.stays.count >= 5)
        #expect(day.stays.allSatisfy { $0.arrival != nil })
    }

    @Test func aPauseLongerThanMaxGapIsShownAsAGap() throws {
        let fixes = SyntheticDay().fixes().filter {
            let hour = Calendar.london.component(.hour, from: $0.timestamp)
            return hour < 13 || hour >= 15
        }
        var builder = ReportBuilder(rules: try Fixtures.rules())
        for fix in fixes { builder.add(.fix(fix)) }
        let day = try #require(builder.finish(source: "a hole").days.first)
        #expect(day.gaps.count == 1)
        #expect((day.gaps.first?.duration ?? 0) > 7000)
        #expect(day.track.count == 2)
    }

    @Test func longTracksAreSimplifiedToTheirBudgetKeepingBothEnds() async throws {
        let synthetic = SyntheticDay(intervalSeconds: 1)
        let report = try await offThePool {
            var builder = ReportBuilder(rules: try Fixtures.rules())
            for fix in synthetic.fixes() { builder.add(.fix(fix)) }
            return builder.finish(source: "a day at 1 Hz")
        }
        let day = try #require(report.days.first)
        #expect(day.keptCount > 50_000)
        let drawn = day.track.reduce(0) { $0 + $1.count }
        #expect(drawn <= 4000 + day.track.count)
        #expect(drawn >= 300)
        #expect(day.track.first?.first?.date == synthetic.fixes().first?.timestamp)
    }
}

extension Calendar {
    static var london: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/London") ?? .gmt
        return calendar
    }
}
