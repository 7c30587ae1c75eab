import Foundation
import Testing

@testable import Geofence
import GeofenceSimulation

/// A walker going in and out of places: one event per real crossing, dated within a fix interval.
@Suite struct MonitorWalkTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var shape: String
        var intervalSeconds: Double
        var noiseMeters: Double
        var testDescription: String {
            "\(shape), a fix every \(Int(intervalSeconds)) s, \(noiseMeters) m noise"
        }
    }

    static let cases: [Case] = ["circle", "polygon"].flatMap { shape in
        [(60.0, 20.0), (20, 8), (5, 2)].map { Case(shape: shape, intervalSeconds: $0.0, noiseMeters: $0.1) }
    }

    /// Two passes through each shape: in and out along one line, then back along another.
    static func walk(for shape: String) -> (Condition, SyntheticWalk) {
        typealias O = SyntheticWalk.Offset
        switch shape {
        case "circle":
            // Through the centre, then back along a chord 100 m north of it: each pass spends
            // over four minutes clearly inside, enough for three fixes a minute apart to confirm.
            let path = [
                O(east: -600, north: 0), O(east: 600, north: 0), O(east: 600, north: 100),
                O(east: -600, north: 100),
            ]
            return (Map.circle(250), SyntheticWalk(origin: Map.origin, start: Map.start, waypoints: path))
        default:
            // Through the foot of an L twice the size of the stationary tests' one, then back
            // through its arm (600 m wide, four minutes inside) and across its notch.
            let l = Map.polygon([(0, 0), (1200, 0), (1200, 600), (600, 600), (600, 1200), (0, 1200)])
            let path = [
                O(east: -300, north: 300), O(east: 1500, north: 300), O(east: 1500, north: 900),
                O(east: -300, north: 900),
            ]
            return (l, SyntheticWalk(origin: Map.origin, start: Map.start, waypoints: path))
        }
    }

    @Test(arguments: cases)
    func reportsEachCrossingOnceAndOnTime(_ c: Case) throws {
        let (condition, walk) = Self.walk(for: c.shape)
        let truth = SyntheticTrace.crossings(of: condition, from: walk.start, to: walk.end) {
            walk.trueCoordinate(at: $0)
        }
        try #require(truth.map(\.entering) == [true, false, true, false])

        let fixes = walk.fixes(intervalSeconds: c.intervalSeconds, noiseMeters: c.noiseMeters, seed: 7)
        var engine = MonitorEngine(name: "walk")
        engine.add(condition, identifier: "place")
        let events = engine.ingest(fixes)
        #expect(engine.filter.droppedTotal == 0)

        // The walk starts outside: the first event is the determination, the rest are crossings.
        try #require(events.first?.state == .unsatisfied)
        let crossings = Array(events.dropFirst())
        try #require(crossings.count == truth.count, "events: \(events)")
        for (event, real) in zip(crossings, truth) {
            #expect(event.kind == .transition)
            #expect(event.state == (real.entering ? .satisfied : .unsatisfied))
            let error = event.date.timeIntervalSince(real.date)
            #expect(abs(error) <= c.intervalSeconds, "dated \(error) s from the true crossing")
            #expect(event.confirmedAt >= event.date)
        }
    }
}
