import Foundation
import Geofence
import GeofenceInput
import GeofenceSimulation

// Micro-benchmarks of the geometry. Run with `make bench` (a release build); figures go in the
// README's benchmark table as ns per call.

/// Times `body` over `iterations` calls after a warm-up, returning nanoseconds per call.
func nanosecondsPerCall(iterations: Int, _ body: (Int) -> Double) -> (ns: Double, checksum: Double) {
    var checksum = 0.0
    for i in 0..<min(iterations, 10_000) { checksum += body(i) }
    let clock = ContinuousClock()
    let elapsed = clock.measure {
        for i in 0..<iterations { checksum += body(i) }
    }
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    return (seconds * 1e9 / Double(iterations), checksum)
}

let center = try Coordinate(latitude: 51.5007, longitude: -0.1246)

// `geofence-bench --export DIR` writes the monitor workload (below) for the reference benchmark in
// Benchmarks/reference.py, which runs the same geometry with shapely, and stops.
if let flag = CommandLine.arguments.firstIndex(of: "--pipeline"), flag + 2 < CommandLine.arguments.count {
    let rounds = flag + 3 < CommandLine.arguments.count ? Int(CommandLine.arguments[flag + 3]) ?? 5 : 5
    try printPipelineFigures(
        rulesPath: CommandLine.arguments[flag + 1], inputPath: CommandLine.arguments[flag + 2], rounds: rounds
    )
    exit(0)
}
if CommandLine.arguments.contains("--regimes") {
    try printSamplingRegimes()
    exit(0)
}
if let flag = CommandLine.arguments.firstIndex(of: "--export"), flag + 1 < CommandLine.arguments.count {
    try exportMonitorWorkload(to: CommandLine.arguments[flag + 1])
    // `--export DIR --workloads` also writes the inputs of the whole-command figures of `make bench`.
    if CommandLine.arguments.contains("--workloads") {
        try exportBenchWorkloads(to: CommandLine.arguments[flag + 1], devices: 10_000, stayDays: 10)
    }
    exit(0)
}
// Fixes scattered over a 10 km box around the centre, fixed seed.
var generator = SeededGenerator(seed: 42)
var points: [Coordinate] = []
for _ in 0..<4096 {
    let dLat = Double.random(in: -0.045...0.045, using: &generator)
    let dLon = Double.random(in: -0.07...0.07, using: &generator)
    points.append(try Coordinate(latitude: center.latitude + dLat, longitude: center.longitude + dLon))
}
let circle = try CircularCondition(center: center, radiusMeters: 150)
// A 64-vertex star-shaped polygon about 1 km across.
var ring: [Coordinate] = []
let metresPerDegreeLongitude = 111_200 * cos(center.latitude * .pi / 180)
for i in 0...64 {
    let angle = Double(i % 64) / 64 * 2 * .pi
    let r: Double = i % 2 == 0 ? 500 : 350
    let latitude: Double = center.latitude + r * sin(angle) / 111_200
    let longitude: Double = center.longitude + r * cos(angle) / metresPerDegreeLongitude
    ring.append(try Coordinate(latitude: latitude, longitude: longitude))
}
let polygon = try PolygonCondition(polygons: [[ring]])

let mask = points.count - 1
let circleResult = nanosecondsPerCall(iterations: 5_000_000) { circle.signedDistance(to: points[$0 & mask]) }
let polygonResult = nanosecondsPerCall(iterations: 500_000) { polygon.signedDistance(to: points[$0 & mask]) }
// The visit detector over 28 consecutive synthetic days (March 2026), a fix every 5 seconds with
// three wild fixes a day: about 300 thousand fixes, nights between days being gaps.
var days: [Fix] = []
for dayOfMonth in 1...28 {
    let outliers = ["09:40", "10:15", "11:05"].compactMap(SyntheticDay.ClockTime.init(parsing:))
    let day = SyntheticDay(day: dayOfMonth, intervalSeconds: 5, outliers: outliers, seed: UInt64(dayOfMonth))
    days += day.fixes()
}
/// Runs the detector over the days `rounds` times, returning the best fixes per second.
func visitDetectorFixesPerSecond(_ days: [Fix], rounds: Int) -> (rate: Double, visits: Int) {
    var best = 0.0
    var visits = 0
    let clock = ContinuousClock()
    for _ in 0..<rounds {
        var detector = VisitDetector()
        var found = 0
        let elapsed = clock.measure {
            for fix in days { found += detector.ingest(fix).count }
            found += detector.finish().count
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        best = max(best, Double(days.count) / seconds)
        visits = found
    }
    return (best, visits)
}
let detectorResult = visitDetectorFixesPerSecond(days, rounds: 5)

print("benchmark                               ns/call")
print(String(format: "signed distance, circle                 %7.1f", circleResult.ns))
print(String(format: "signed distance, polygon of 64 vertices %7.1f", polygonResult.ns))
print("")
print("benchmark                               fixes/s")
print(String(format: "visit detector, synthetic days          %7.0f", detectorResult.rate))
print(
    String(
        format: "(checksum %.0f, %d fixes, %d visits)", circleResult.checksum + polygonResult.checksum,
        days.count, detectorResult.visits))

// Input decoding: the same lines read by LineDecoder and, as the baseline, by JSONDecoder into a
// Decodable struct per line (what the code would do without the hand-written scanner).

/// A fix line as JSONDecoder reads it, for the baseline.
struct DecodableFixLine: Decodable {
    var latitude: Double
    var longitude: Double
    var timestamp: Double
    var horizontalAccuracy: Double?
    var altitude: Double?
    var speed: Double?
    var course: Double?
    var deviceId: String?
}

/// An OwnTracks location as JSONDecoder reads it, for the baseline.
struct DecodableOwnTracksLine: Decodable {
    var _type: String
    var lat: Double
    var lon: Double
    var tst: Double
    var acc: Double?
    var vel: Double?
    var tid: String?
}

/// Lines per second for one pass of `body` over `lines`, best of three passes.
func linesPerSecond(_ lines: [[UInt8]], _ body: ([UInt8]) -> Int) -> (rate: Double, checksum: Int) {
    var best = Double.infinity
    var checksum = 0
    let clock = ContinuousClock()
    for _ in 0..<3 {
        let elapsed = clock.measure {
            for line in lines { checksum &+= body(line) }
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        best = min(best, seconds)
    }
    return (Double(lines.count) / best, checksum)
}

let lineCount = 200_000
var ndjsonLines: [[UInt8]] = []
var ownTracksLines: [[UInt8]] = []
// Coordinates with 7 decimals (about 1 cm), as OwnTracks and most trackers write them.
for i in 0..<lineCount {
    let p = points[i & mask]
    let latitude = String(format: "%.7f", p.latitude)
    let longitude = String(format: "%.7f", p.longitude)
    let ms = 1_700_000_000_000 + i * 1000
    ndjsonLines.append(
        Array(
            """
            {"latitude":\(latitude),"longitude":\(longitude),"timestamp":\(ms),"horizontalAccuracy":\(5 + i % 20),"altitude":\(400 + i % 7).5,"speed":1.4,"course":\(i % 360),"deviceId":"phone"}
            """.utf8))
    ownTracksLines.append(
        Array(
            """
            {"_type":"location","lat":\(latitude),"lon":\(longitude),"tst":\(ms / 1000),"acc":\(5 + i % 20),"vel":5,"batt":80,"tid":"jj","conn":"w","inregions":["home"]}
            """.utf8))
}
let jsonDecoder = JSONDecoder()
let ndjsonBaseline = linesPerSecond(ndjsonLines) { line in
    guard let row = try? jsonDecoder.decode(DecodableFixLine.self, from: Data(line)),
        let coordinate = try? Coordinate(latitude: row.latitude, longitude: row.longitude)
    else { return 0 }
    let fix = Fix(
        timestamp: Date(timeIntervalSince1970: row.timestamp / 1000), coordinate: coordinate,
        horizontalAccuracy: row.horizontalAccuracy, altitude: row.altitude, speed: row.speed,
        course: row.course,
        deviceId: row.deviceId)
    return fix.horizontalAccuracy == nil ? 0 : 1
}
var lineDecoder = LineDecoder(source: "bench")
let ndjsonFast = linesPerSecond(ndjsonLines) { line in
    if case .success(.fix(let fix)?) = lineDecoder.decode(utf8: line, number: 1) {
        return fix.horizontalAccuracy == nil ? 0 : 1
    }
    return 0
}
let ownTracksBaseline = linesPerSecond(ownTracksLines) { line in
    guard let row = try? jsonDecoder.decode(DecodableOwnTracksLine.self, from: Data(line)),
        let coordinate = try? Coordinate(latitude: row.lat, longitude: row.lon)
    else { return 0 }
    let fix = Fix(
        timestamp: Date(timeIntervalSince1970: row.tst), coordinate: coordinate, horizontalAccuracy: row.acc,
        speed: row.vel.map { $0 / 3.6 }, deviceId: row.tid, label: row.tid)
    return fix.horizontalAccuracy == nil ? 0 : 1
}
let ownTracksFast = linesPerSecond(ownTracksLines) { line in
    if case .success(.fix(let fix)?) = lineDecoder.decode(utf8: line, number: 1) {
        return fix.horizontalAccuracy == nil ? 0 : 1
    }
    return 0
}
print("")
print("input decoding (\(lineCount) lines, best of 3)      lines/s")
print(String(format: "NDJSON fix, JSONDecoder baseline        %10.0f", ndjsonBaseline.rate))
print(String(format: "NDJSON fix, LineDecoder                 %10.0f", ndjsonFast.rate))
print(String(format: "OwnTracks location, JSONDecoder baseline %9.0f", ownTracksBaseline.rate))
print(String(format: "OwnTracks location, LineDecoder         %10.0f", ownTracksFast.rate))
print(
    "(checksum \(ndjsonBaseline.checksum + ndjsonFast.checksum + ownTracksBaseline.checksum + ownTracksFast.checksum))"
)

// The monitor: one million fixes at 1 Hz, a random walk at walking to cycling speed in a 10 km
// box, against 20 places (10 circles of 100-500 m, 10 star polygons of 64 vertices, 0.7-1 km
// across), through the fix filter and the hysteresis, as `replay` runs them (NOTES.md gives the
// same workload's reference figures for shapely).
func monitorWorkload() throws -> (engine: MonitorEngine, fixes: [Fix]) {
    var random = SeededGenerator(seed: 2026)
    var engine = MonitorEngine(name: "bench")
    let frameOrigin = SyntheticDay(origin: center)
    for index in 0..<20 {
        let east = Double.random(in: -4500...4500, using: &random)
        let north = Double.random(in: -4500...4500, using: &random)
        let place = frameOrigin.coordinate(east: east, north: north)
        if index < 10 {
            let radius = Double.random(in: 100...500, using: &random)
            engine.add(
                .circle(try CircularCondition(center: place, radiusMeters: radius)), identifier: "c\(index)")
        } else {
            var star: [Coordinate] = []
            for vertex in 0...64 {
                let angle = Double(vertex % 64) / 64 * 2 * .pi
                let r: Double = vertex % 2 == 0 ? 500 : 350
                star.append(
                    frameOrigin.coordinate(east: east + r * cos(angle), north: north + r * sin(angle)))
            }
            engine.add(.polygon(try PolygonCondition(polygons: [[star]])), identifier: "p\(index)")
        }
    }
    var fixes: [Fix] = []
    fixes.reserveCapacity(1_000_000)
    var east = 0.0, north = 0.0, heading = 0.0
    let start = Date(timeIntervalSince1970: 1_772_521_200)
    for second in 0..<1_000_000 {
        heading += random.gaussian(standardDeviation: 0.2)
        let speed = 1.5 + 3 * abs(sin(Double(second) / 3600))
        east = min(5000, max(-5000, east + speed * cos(heading)))
        north = min(5000, max(-5000, north + speed * sin(heading)))
        let noisyEast = east + random.gaussian(standardDeviation: 5)
        let noisyNorth = north + random.gaussian(standardDeviation: 5)
        fixes.append(
            Fix(
                timestamp: start.addingTimeInterval(Double(second)),
                coordinate: frameOrigin.coordinate(east: noisyEast, north: noisyNorth), horizontalAccuracy: 8)
        )
    }
    return (engine, fixes)
}

let workload = try monitorWorkload()
var monitorEvents = 0
var monitorDropped = 0
let monitorElapsed = ContinuousClock().measure {
    var engine = workload.engine
    var events: [Event] = []
    events.reserveCapacity(64)
    for fix in workload.fixes {
        if engine.ingest(fix, arrivedAt: nil, into: &events) != nil { monitorDropped += 1 }
        monitorEvents += events.count
        events.removeAll(keepingCapacity: true)
    }
}
let monitorSeconds =
    Double(monitorElapsed.components.seconds) + Double(monitorElapsed.components.attoseconds) * 1e-18
print("")
print("monitor, 1,000,000 fixes x 20 places (10 circles, 10 polygons of 64 vertices)")
print(
    String(
        format: "  %.0f fixes/s (%.2f s, %d events, %d fixes dropped by the filter)",
        Double(workload.fixes.count) / monitorSeconds, monitorSeconds, monitorEvents, monitorDropped))

// The same geometry without the monitor: the signed distance of every fix to every place, which is
// what the shapely reference computes (the monitor skips most polygon tests by a bounding disc).
var rawChecksum = 0.0
let rawFixes = workload.fixes.prefix(200_000)
let rawConditions = workload.engine.identifiers.compactMap { workload.engine.record(for: $0)?.condition }
let rawElapsed = ContinuousClock().measure {
    for fix in rawFixes {
        for condition in rawConditions { rawChecksum += condition.signedDistance(to: fix.coordinate) }
    }
}
let rawSeconds = Double(rawElapsed.components.seconds) + Double(rawElapsed.components.attoseconds) * 1e-18
print(
    String(
        format: "  signed distances only, every fix to every place: %.0f fixes/s (checksum %.0f)",
        Double(rawFixes.count) / rawSeconds, rawChecksum))

/// Writes the monitor workload as `places.json` and `fixes.csv` for Benchmarks/reference.py.
func exportMonitorWorkload(to directory: String) throws {
    let (engine, fixes) = try monitorWorkload()
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    var places: [[String: Any]] = []
    for identifier in engine.identifiers {
        guard let condition = engine.record(for: identifier)?.condition else { continue }
        switch condition {
        case .circle(let circle):
            places.append([
                "type": "circle", "latitude": circle.center.latitude, "longitude": circle.center.longitude,
                "radius": circle.radiusMeters,
            ])
        case .polygon(let polygon):
            let rings = polygon.polygons.map { $0.map { $0.map { [$0.longitude, $0.latitude] } } }
            places.append(["type": "polygon", "polygons": rings])
        }
    }
    let json = try JSONSerialization.data(withJSONObject: [
        "center": [center.latitude, center.longitude], "places": places,
    ])
    try json.write(to: URL(fileURLWithPath: directory + "/places.json"))
    var csv = "latitude,longitude\n"
    csv.reserveCapacity(fixes.count * 40)
    for fix in fixes { csv += "\(fix.coordinate.latitude),\(fix.coordinate.longitude)\n" }
    try Data(csv.utf8).write(to: URL(fileURLWithPath: directory + "/fixes.csv"))
    print("wrote \(places.count) places and \(fixes.count) fixes to \(directory)")
}
