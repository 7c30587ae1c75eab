import GeofenceRules
import GeofenceInput
import Foundation
import Geofence
import GeofenceReport
import Testing
import GeofenceSimulation

/// A year of data must stay one file a browser opens: measured in bytes, never in seconds.
@Suite struct ReportSizeTests {
    /// A million fixes: 365 synthetic days (home, commute, work, lunch, gym, home; each its own
    /// seed) at one fix every 19.7 s, with every 40th fix repeated at 500 m accuracy so that the
    /// filter drops about 25,000 of them.
    @Test func aYearOfAMillionFixesMakesAFileUnder20MB() async throws {
        let (report, bytes) = try await offThePool { () throws -> (Report, Int) in
            let rules = try Fixtures.rules()
            var builder = ReportBuilder(rules: rules)
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = rules.timeZone
            let first = try Self.require(calendar.date(from: DateComponents(year: 2025, month: 1, day: 1)))
            var count = 0
            var day = 0
            while count < 1_000_000 {
                let date = try Self.require(calendar.date(byAdding: .day, value: day, to: first))
                let parts = calendar.dateComponents([.year, .month, .day], from: date)
                let synthetic = SyntheticDay(
                    year: parts.year ?? 2025, month: parts.month ?? 1, day: parts.day ?? 1,
                    timeZone: rules.timeZone,
                    intervalSeconds: 19.7, seed: UInt64(day + 1))
                for (index, fix) in synthetic.fixes().enumerated() where count < 1_000_000 {
                    builder.add(.fix(fix))
                    count += 1
                    if index % 40 == 39, count < 1_000_000 {
                        var vague = fix
                        vague.timestamp += 1
                        vague.horizontalAccuracy = 500
                        builder.add(.fix(vague))
                        count += 1
                    }
                }
                day += 1
            }
            let report = builder.finish(source: "a generated year")
            return (report, ReportHTML.render(report).utf8.count)
        }
        print("report of \(report.summary.fixesRead) fixes over \(report.days.count) days: \(bytes) bytes")
        #expect(report.summary.fixesRead == 1_000_000)
        #expect(report.summary.dropped[.inaccurate, default: 0] > 20_000)
        #expect(report.days.count >= 350)
        #expect(report.commutes.count > 600)
        #expect(report.days.allSatisfy { !$0.track.isEmpty })
        #expect(bytes < 20_000_000)
    }

    /// Eight years at a fix every half hour: only the newest days are drawn, every day is listed.
    @Test func theOldestDaysOfALongInputAreListedNotDrawn() async throws {
        let report = try await offThePool { () throws -> Report in
            let rules = try Fixtures.rules()
            var builder = ReportBuilder(rules: rules)
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = rules.timeZone
            let first = try Self.require(calendar.date(from: DateComponents(year: 2018, month: 1, day: 1)))
            for day in 0..<3000 {
                let date = try Self.require(calendar.date(byAdding: .day, value: day, to: first))
                let parts = calendar.dateComponents([.year, .month, .day], from: date)
                let synthetic = SyntheticDay(
                    year: parts.year ?? 2018, month: parts.month ?? 1, day: parts.day ?? 1,
                    timeZone: rules.timeZone,
                    intervalSeconds: 1800, seed: UInt64(day + 1))
                for fix in synthetic.fixes() { builder.add(.fix(fix)) }
            }
            return builder.finish(source: "eight generated years")
        }
        #expect(report.days.count == 3000)
        #expect(report.days.filter(\.isDetailed).count == ReportDay.maxDetailedDays)
        #expect(report.days.suffix(ReportDay.maxDetailedDays).allSatisfy { $0.isDetailed })
        #expect(
            report.days.prefix(3000 - ReportDay.maxDetailedDays).allSatisfy {
                !$0.isDetailed && $0.fixCount > 0
            })
        let page = ReportHTML.render(report)
        #expect(page.components(separatedBy: "<section class=day ").count - 1 == ReportDay.maxDetailedDays)
        #expect(page.contains("<td>\(report.days[0].label)</td>"))
        #expect(page.utf8.count < 20_000_000)
    }

    private static func require<T>(_ value: T?) throws -> T {
        guard let value else { throw HarnessError("a calendar date could not be made") }
        return value
    }
}
