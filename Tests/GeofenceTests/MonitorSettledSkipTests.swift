import Foundation
import Testing

@testable import Geofence

/// Conditions settled far outside are skipped together while the fixes stay near where that was
/// proved (``SettledSkip``); that must change nothing the monitor says or keeps, in every sampling
/// regime.
///
/// Each walk is ingested by two engines: one as it is, and one saved and restored before every
/// fix. A restored engine starts with nothing covered, so it weighs every condition of every fix
/// on its own path. The events must agree after every fix, and the saved engines at the end; and
/// the first engine must really have skipped conditions, or the comparison proves nothing.
@Suite struct MonitorSettledSkipTests {
    /// How a tracker samples a walk.
    enum Regime: String, CaseIterable, CustomStringConvertible {
        /// A fix a second, walking.
        case everySecondWalking
        /// A fix a second, driving at 15 m/s.
        case everySecondDriving
        /// A fix every 30 minutes (every gap is longer than the hysteresis allows).
        case everyHalfHour
        /// A fix whenever the device has moved 100 m (OwnTracks' significant-change mode).
        case distanceTriggered
        /// A fix a second with accuracies from 3 m to 2 km, some missing, and some naming regions.
        case messyAccuracy
        /// A fix a second, standing ten minutes at a time at home, the gym and the park (the
        /// fixes scattered by tens of metres, now and then by a hundred) and cycling between.
        case dwelling

        var description: String { rawValue }
    }

    /// A small deterministic generator (the tests need the same walk every run).
    struct Generator {
        var state: UInt64
        mutating func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
    }

    /// A walk through a 6 km box that passes places now and then, sampled by `regime`.
    static func fixes(_ regime: Regime, seed: UInt64) -> [Fix] {
        var random = Generator(state: seed)
        if regime == .dwelling { return dwellingFixes(&random) }
        let speed = regime == .everySecondDriving || regime == .distanceTriggered ? 15.0 : 1.5
        // Half-hourly fixes over eight days; the others over an hour and a half.
        let seconds = regime == .everyHalfHour ? 400 * 1800 : 5400
        var east = -2500.0, north = -2500.0, heading = 0.7
        var fixes: [Fix] = []
        var lastSent = (east, north)
        for second in 0..<seconds {
            heading += (random.next() - 0.5) * 0.4
            east = min(3000, max(-3000, east + speed * cos(heading)))
            north = min(3000, max(-3000, north + speed * sin(heading)))
            let t = Double(second)
            switch regime {
            case .everySecondWalking, .everySecondDriving:
                fixes.append(Map.fix(t, east, north, accuracy: 5 + 10 * random.next()))
            case .everyHalfHour:
                // Faster, so that half-hourly fixes land in different places.
                if second % 1800 == 0 {
                    for _ in 0..<9 {
                        east = min(3000, max(-3000, east + 200 * (random.next() - 0.5)))
                    }
                    fixes.append(Map.fix(t, east, north))
                }
            case .distanceTriggered:
                let moved = hypot(east - lastSent.0, north - lastSent.1)
                if moved >= 100 || second == 0 {
                    lastSent = (east, north)
                    var fix = Map.fix(t, east, north, accuracy: 12)
                    fix.silentWithinMeters = 100
                    fixes.append(fix)
                }
            case .messyAccuracy:
                let draw = random.next()
                let accuracy: Double? = draw < 0.05 ? nil : draw < 0.1 ? 2000 : 3 + 40 * random.next()
                var fix = Map.fix(t, east, north, accuracy: accuracy)
                if random.next() < 0.01 { fix.regions = [] }
                if random.next() < 0.005 { fix.regions = ["home"] }
                fixes.append(fix)
            case .dwelling:
                break  // made whole by dwellingFixes, above
            }
        }
        return fixes
    }

    /// Ten minutes standing at each of home, the gym, the park and home again, cycled between at
    /// 5 m/s: the stands' fixes scatter about 15 m, one in fifty by up to 150 m.
    static func dwellingFixes(_ random: inout Generator) -> [Fix] {
        let stands: [(Double, Double)] = [(0, 0), (2000, 1500), (-2000, 2200), (0, 0)]
        var fixes: [Fix] = []
        var second = 0.0
        var here = stands[0]
        func scatter(_ random: inout Generator) -> Double {
            let wide = random.next() < 0.02
            return (random.next() - 0.5) * (wide ? 300 : 30)
        }
        for next in stands {
            let (dx, dy) = (next.0 - here.0, next.1 - here.1)
            let steps = Int(hypot(dx, dy) / 5)
            for step in 0..<steps {
                let f = Double(step) / Double(steps)
                fixes.append(Map.fix(second, here.0 + f * dx, here.1 + f * dy, accuracy: 10))
                second += 1
            }
            here = next
            for _ in 0..<600 {
                fixes.append(
                    Map.fix(
                        second, here.0 + scatter(&random), here.1 + scatter(&random),
                        accuracy: 5 + 25 * random.next()))
                second += 1
            }
        }
        return fixes
    }

    static let hystereses: [Hysteresis] = [
        .default,
        // Wide margins and a heavy accuracy weight.
        Hysteresis(enterMarginMeters: 80, exitMarginMeters: 120, accuracyWeight: 2),
        // Short gaps: many fixes are not continuous with the one before.
        Hysteresis(confirmationSpanSeconds: 60, maxGapSeconds: 2),
    ]

    /// Places around the walk; the last one has its own hysteresis, so the limits are mixed.
    static func engine(_ hysteresis: Hysteresis) -> MonitorEngine {
        var engine = MonitorEngine(name: "settled")
        engine.add(Map.circle(150), identifier: "home", hysteresis: hysteresis)
        engine.add(Map.lShape, identifier: "office", hysteresis: hysteresis)
        engine.add(Map.circle(200, east: 2000, north: 1500), identifier: "gym", hysteresis: hysteresis)
        engine.add(Map.circle(300, east: -2000, north: 2200), identifier: "park", hysteresis: hysteresis)
        engine.add(
            Map.polygon([(-2600, -600), (-1900, -600), (-1900, 100), (-2600, 100)]), identifier: "school",
            hysteresis: hysteresis)
        engine.add(
            Map.circle(120, east: 2500, north: -2500), identifier: "shop",
            hysteresis: Hysteresis(exitMarginMeters: 10, accuracyWeight: 0.5, maxGapSeconds: 600))
        return engine
    }

    /// Weighs `fix` in `restored` after saving and restoring it (a restored engine starts with
    /// nothing covered, so it weighs every condition), and expects the events to be `got`, those
    /// of `skipping` for the same fix; with `savedToo`, expects the two engines to save the same.
    static func expectAsRestored(
        _ got: [Event], fix: Fix, skipping: MonitorEngine, restored: inout MonitorEngine, savedToo: Bool,
        _ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        restored = try JSONDecoder().decode(MonitorEngine.self, from: JSONEncoder().encode(restored))
        #expect(got == restored.ingest(fix), comment, sourceLocation: sourceLocation)
        if savedToo { try expectSameSaved(skipping, restored, comment, sourceLocation: sourceLocation) }
    }

    /// Expects two engines to save the same state, keys sorted.
    static func expectSameSaved(
        _ one: MonitorEngine, _ other: MonitorEngine, _ comment: Comment,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(try encoder.encode(one) == encoder.encode(other), comment, sourceLocation: sourceLocation)
    }

    @Test(arguments: Regime.allCases, [UInt64(1), 2])
    func skippingSettledConditionsChangesNothing(regime: Regime, seed: UInt64) throws {
        let fixes = MonitorSettledSkipTests.fixes(regime, seed: seed)
        for hysteresis in MonitorSettledSkipTests.hystereses {
            var skipping = MonitorSettledSkipTests.engine(hysteresis)
            var restored = skipping
            var fixesThatSkipped = 0
            var fixesThatSkippedAPlaceInside = 0
            var events = 0
            for (number, fix) in fixes.enumerated() {
                let got = skipping.ingest(fix)
                // The saved engines are compared now and then too, not only at the end: what a run
                // under way holds (its count, its last evidence) may decide nothing for long.
                try Self.expectAsRestored(
                    got, fix: fix, skipping: skipping, restored: &restored, savedToo: number % 7 == 0,
                    "at \(fix.timestamp), \(hysteresis)")
                if skipping.settledMask != 0 { fixesThatSkipped += 1 }
                let identifiers = skipping.identifiers
                let inside = identifiers.indices.filter {
                    skipping.record(for: identifiers[$0])?.state == .satisfied
                }
                if inside.contains(where: { $0 < 64 && skipping.settledMask & (1 << UInt64($0)) != 0 }) {
                    fixesThatSkippedAPlaceInside += 1
                }
                events += got.count
            }
            try Self.expectSameSaved(skipping, restored, "\(hysteresis)")
            #expect(fixesThatSkipped > 0, "nothing was skipped: \(regime), \(hysteresis)")
            if regime == .dwelling {
                // Standing at a place, its circle is skipped too, not only the places far away.
                #expect(
                    fixesThatSkippedAPlaceInside > 1000, "no place was skipped while inside: \(hysteresis)")
            }
            #expect(events > 0, "the walk decided nothing: \(regime), \(hysteresis)")
        }
    }

    /// A device's first fixes far from every place each extend a run of evidence of outside for
    /// every condition (a fleet starting together holds twenty a device): the skip covers the runs
    /// until they could confirm, counting the fixes it passes over for them. The determinations,
    /// and what is saved along the way, must be those of an engine that weighed every condition of
    /// every fix, at every interval a tracker sends; fixes that must not extend a run on the quick
    /// path (a silent tracker's, a stay, one naming regions) and a fix after a gap come in the
    /// middle of some runs; and a place added, a visit and a claim take the skip's runs back.
    @Test(arguments: [1.0, 4.0, 12.0, 29.0, 60.0])
    func runsFarOutsideAreSkippedUntilTheyCouldConfirm(interval: Double) throws {
        for variant in 0..<5 {
            var skipping = MonitorSettledSkipTests.engine(.default)
            var restored = skipping
            var coveredWhilePending = 0
            var events = 0
            // Ten minutes far from every place, creeping a metre a fix.
            for step in 0..<Int(600 / interval) {
                let t = Double(step) * interval + (variant == 4 && step >= 5 ? 4000 : 0)
                var fix = Map.fix(t, -2500 + Double(step), -2500, accuracy: 10)
                if step == 6 {
                    switch variant {
                    case 1: fix.silentWithinMeters = 50
                    case 2: fix.trigger = .stay
                    case 3: fix.regions = []
                    default: break
                    }
                }
                let got = skipping.ingest(fix)
                if skipping.fixesOwedToRuns > 0 { coveredWhilePending += 1 }
                try Self.expectAsRestored(
                    got, fix: fix, skipping: skipping, restored: &restored, savedToo: true,
                    "at \(t), variant \(variant)")
                events += got.count
                if step == 3 {
                    // Changes other than fixes, in the middle of the runs.
                    var changed: [Event] = []
                    switch variant {
                    case 1:
                        let cafe = Map.circle(80, east: 2800, north: 2800)
                        changed = skipping.add(cafe, identifier: "cafe")
                        #expect(changed == restored.add(cafe, identifier: "cafe"))
                    case 2:
                        let visit = Visit(
                            coordinate: Map.at(2500, 2500), horizontalAccuracy: 20, arrival: nil,
                            departure: nil)
                        changed = skipping.ingest(visit)
                        #expect(changed == restored.ingest(visit))
                    case 3:
                        let date = Map.date(t)
                        changed = skipping.ingestClaim(identifier: "gym", inside: false, at: date)
                        #expect(changed == restored.ingestClaim(identifier: "gym", inside: false, at: date))
                    default: break
                    }
                    events += changed.count
                    try Self.expectSameSaved(skipping, restored, "variant \(variant)")
                }
            }
            // Every place is determined, outside.
            for identifier in skipping.identifiers {
                #expect(
                    skipping.record(for: identifier)?.state == .unsatisfied,
                    "\(identifier), variant \(variant)")
            }
            // Each was determined once, by a fix, the visit or the claim.
            #expect(events == skipping.identifiers.count, "variant \(variant)")
            // A run spans its confirmation time (30 s): fixes closer together than that are
            // skipped while it lasts, and sparser ones never are.
            if interval < 30 {
                #expect(coveredWhilePending > 0, "the runs were never skipped: variant \(variant)")
            } else {
                #expect(coveredWhilePending == 0, "variant \(variant)")
            }
        }
    }

    /// A run that has room enough to be covered only after others were covered (home, 100 m off,
    /// is too near to cover for a first fix 60 m accurate, and far enough for the next ones, 10 m
    /// accurate) joins runs already owed fixes: those are paid first, so that every run covered
    /// together is owed the same fixes.
    @Test func aRunCoveredLateJoinsRunsOwedFixes() throws {
        var skipping = MonitorSettledSkipTests.engine(.default)
        var restored = skipping
        var joined = false
        for step in 0..<90 {
            let fix = Map.fix(Double(step), -250 - 0.5 * Double(step), 0, accuracy: step == 0 ? 60 : 10)
            let maskBefore = skipping.settledMask
            let got = skipping.ingest(fix)
            // Home (index 0) was covered at this fix, which skipped the others (the skip kept them).
            let maskAfter = skipping.settledMask
            if maskBefore != 0, maskBefore & 1 == 0, maskAfter & 1 != 0, maskAfter & maskBefore == maskBefore
            {
                joined = true
            }
            try Self.expectAsRestored(
                got, fix: fix, skipping: skipping, restored: &restored, savedToo: true, "at \(step)")
        }
        #expect(joined, "home never joined the runs the skip owed")
        for identifier in skipping.identifiers {
            #expect(skipping.record(for: identifier)?.state == .unsatisfied, "\(identifier)")
        }
    }

    /// A visit, a claim and a new condition each empty the skip, and it fills again from fixes.
    @Test func anythingButAFixEmptiesTheSkip() throws {
        var engine = MonitorSettledSkipTests.engine(.default)
        let far = (0..<120).map { Map.fix(Double($0), -2500, -2500 + Double($0)) }
        engine.ingest(far)
        #expect(engine.settledMask != 0)
        engine.ingest(
            Visit(coordinate: Map.at(0, 0), horizontalAccuracy: 20, arrival: Map.date(200), departure: nil))
        #expect(engine.settledMask == 0)
        engine.ingest((300..<420).map { Map.fix(Double($0), -2500, -2500) })
        #expect(engine.settledMask != 0)
        engine.ingestClaim(identifier: "gym", inside: true, at: Map.date(500))
        #expect(engine.settledMask == 0)
        engine.ingest(Map.fix(501, -2500, -2500))
        #expect(engine.settledMask != 0)
        engine.add(Map.circle(100, east: 500, north: 500), identifier: "cafe")
        #expect(engine.settledMask == 0)
    }

    /// The bound from degrees that lets a fix skip its point (``SettledSkip/reach(from:_:cosLatitude:to:)``)
    /// is never shorter than the chord the full test measures, anywhere: a metre away or across
    /// the world, near the poles, across the antimeridian, along a meridian (where it is tightest).
    @Test func theReachFromDegreesIsNeverShorterThanTheChord() throws {
        var random = Generator(state: 7)
        var tightest = Double.infinity
        for trial in 0..<50_000 {
            let latitude = -90 + 180 * random.next()
            let longitude = -180 + 360 * random.next()
            // From a millimetre to a thousand kilometres, and every fifth step along a meridian.
            let scale = pow(10, -8 + 9 * random.next())
            let alongMeridian = trial % 5 == 0
            let other = try Coordinate(
                latitude: min(90, max(-90, latitude + scale * (random.next() - 0.5))),
                longitude: alongMeridian
                    ? longitude
                    : (longitude + 180 + scale * (random.next() - 0.5)).truncatingRemainder(dividingBy: 360)
                        .magnitude - 180)
            let anchor = try Coordinate(latitude: latitude, longitude: longitude)
            let chord = EarthPoint(anchor).chord(to: EarthPoint(other))
            let reach = SettledSkip.reach(
                from: latitude, longitude, cosLatitude: abs(cos(latitude * .pi / 180)), to: other)
            #expect(reach >= chord, "from \(anchor) to \(other)")
            if chord > 0 { tightest = min(tightest, reach / chord) }
        }
        // Along a meridian the bound exceeds the chord by the ratio of the largest radius of
        // curvature to the meridian's: a thousandth or so, not more than a hundredth.
        #expect(tightest < 1.01)
    }
}
