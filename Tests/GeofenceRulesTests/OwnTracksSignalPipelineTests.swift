import Foundation
import Testing

@testable import Geofence
@testable import GeofenceInput
@testable import GeofenceRules

/// OwnTracks message streams through the whole pipeline (issue 9): what the phone says about its
/// own regions, visits and silence is used as evidence.
@Suite struct OwnTracksSignalPipelineTests {
    static let yaml = """
        timezone: Europe/London
        places:
          home: { center: [51.5007, -0.1246], radius: 150 }
          work: { center: [51.5007, -0.0526], radius: 150 }
        rules:
          - { name: arrived work, on: enter work, log: true }
          - { name: left home, on: exit home, log: true }

        """

    static func run(_ lines: [String]) throws -> [PlaceEvent] {
        let rules = try RulesLoader.parse(yaml, file: "rules.yaml", baseDirectory: URL(fileURLWithPath: "/"))
            .get()
        var pipeline = Pipeline(rules: rules)
        var decoder = LineDecoder(format: .owntracks, source: "test", timeZone: .gmt)
        var events: [PlaceEvent] = []
        for (index, line) in lines.enumerated() {
            guard case .success(let record?) = decoder.decode(line, number: index + 1) else {
                Issue.record("line \(index + 1) not read")
                continue
            }
            events += pipeline.process(record, arrivedAt: nil)?.placeEvents ?? []
        }
        return events
    }

    static func location(_ tst: Int, _ lon: Double, m: Int = 1, t: String = "t") -> String {
        #"{"_type":"location","lat":51.5007,"lon":\#(lon),"tst":\#(tst),"acc":20,"tid":"ph","m":\#(m),"t":"\#(t)"}"#
    }

    @Test func significantModeWithTheTrackersOwnTransition() throws {
        // Significant mode: a fix at home, a fix at work 40 minutes later, nothing else; the phone
        // also sends its own leave of home and enter of work, named as the places are.
        let lines = [
            Self.location(1_772_524_800, -0.1246),
            Self.location(1_772_525_100, -0.1246),
            #"{"_type":"transition","tst":1772526000,"event":"leave","desc":"home","tid":"ph","wtst":1}"#,
            #"{"_type":"transition","tst":1772527200,"event":"enter","desc":"work","tid":"ph","wtst":2}"#,
            Self.location(1_772_527_300, -0.0526),
        ]
        let events = try Self.run(lines)
        let crossings = events.filter { $0.transition == .enter || $0.transition == .exit }
        #expect(crossings.map { "\($0.place) \($0.transition.rawValue)" } == ["home exit", "work enter"])
        // Dated by the phone's own decisions.
        #expect(crossings.first?.date == Date(timeIntervalSince1970: 1_772_526_000))
        #expect(crossings.last?.date == Date(timeIntervalSince1970: 1_772_527_200))
    }

    /// A location 140 m from home's centre with 50 m accuracy is in the band of its 150 m fence:
    /// evidence of neither side. `inregions` naming home makes it evidence of inside.
    static func nearHome(_ tst: Int, regions: String? = nil) -> String {
        let list = regions.map { #","inregions":\#($0)"# } ?? ""
        return
            #"{"_type":"location","lat":51.5007,"lon":-0.12258,"tst":\#(tst),"acc":50,"tid":"ph","m":-1,"t":"t"\#(list)}"#
    }

    /// At work, then two messages near home 5 minutes apart whose `inregions` names home: the
    /// phone's region monitor says it is home, and two agreeing messages confirm the arrival.
    @Test func inregionsNamingAPlaceIsEvidenceOfInsideWhateverThePosition() throws {
        let start = 1_772_524_800
        let atWork = [Self.location(start, -0.0526, m: -1), Self.location(start + 300, -0.0526, m: -1)]
        let withRegions = try Self.run(
            atWork + [
                Self.nearHome(start + 2400, regions: #"["home"]"#),
                Self.nearHome(start + 2700, regions: #"["home","Gym"]"#),
            ])
        let enter = withRegions.first { $0.place == "home" && $0.transition == .enter }
        #expect(enter?.confirmedAt == Date(timeIntervalSince1970: Double(start + 2700)))
        // The same positions without the list are in the band: home never changes.
        let without = try Self.run(atWork + [Self.nearHome(start + 2400), Self.nearHome(start + 2700)])
        #expect(!without.contains { $0.place == "home" && $0.transition == .enter })
    }

    /// One message is never enough, and a list naming other regions says nothing about home.
    @Test func aSingleInregionsMessageOrOneNamingOtherRegionsDoesNotMoveAPlace() throws {
        let start = 1_772_524_800
        let atWork = [Self.location(start, -0.0526, m: -1), Self.location(start + 300, -0.0526, m: -1)]
        let single = try Self.run(atWork + [Self.nearHome(start + 2400, regions: #"["home"]"#)])
        #expect(!single.contains { $0.place == "home" && $0.transition == .enter })
        let others = try Self.run(
            atWork + [
                Self.nearHome(start + 2400, regions: #"["Gym"]"#),
                Self.nearHome(start + 2700, regions: #"["Gym"]"#),
            ])
        #expect(!others.contains { $0.place == "home" && $0.transition == .enter })
    }

    /// A phone in significant mode: a fix, then a `t: "v"` visit location whose `inregions`
    /// names home confirms at once, even though its position is in the band.
    @Test func aVisitLocationNamingThePlaceInInregionsConfirmsAlone() throws {
        let start = 1_772_524_800
        let visit =
            #"{"_type":"location","lat":51.5007,"lon":-0.12258,"tst":\#(start + 2400),"acc":50,"tid":"ph","m":1,"t":"v","inregions":["home"]}"#
        let events = try Self.run([
            Self.location(start, -0.0526, m: -1), Self.location(start + 300, -0.0526, m: -1), visit,
        ])
        #expect(events.contains { $0.place == "home" && $0.transition == .enter })
    }

    @Test func aTransitionNamingNoPlaceChangesNothing() throws {
        let lines = [
            Self.location(1_772_524_800, -0.1246), Self.location(1_772_525_100, -0.1246),
            #"{"_type":"transition","tst":1772526000,"event":"leave","desc":"Gym","tid":"ph","wtst":1}"#,
        ]
        #expect(try Self.run(lines).allSatisfy { $0.transition == .determined })
    }

    @Test func aVisitLocationConfirmsTheStayAlone() throws {
        // One timer fix at home, then a single "v" location at work: the stay is confirmed by it.
        let lines = [
            Self.location(1_772_524_800, -0.1246, m: -1), Self.location(1_772_525_100, -0.1246, m: -1),
            Self.location(1_772_528_000, -0.0526, m: -1, t: "v"),
        ]
        let events = try Self.run(lines)
        #expect(events.contains { $0.place == "work" && $0.transition == .enter })
    }

    @Test func aSingleTimerFixAtWorkConfirmsNothing() throws {
        let lines = [
            Self.location(1_772_524_800, -0.1246, m: -1), Self.location(1_772_525_100, -0.1246, m: -1),
            Self.location(1_772_528_000, -0.0526, m: -1),
        ]
        let events = try Self.run(lines)
        #expect(!events.contains { $0.place == "work" && $0.transition == .enter })
    }
}
