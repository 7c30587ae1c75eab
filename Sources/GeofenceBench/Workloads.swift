import Foundation
import Geofence
import GeofenceSimulation

// The inputs `make bench` runs the `geofence` commands on (Benchmarks/bench.py drives them and the
// reference libraries in one session). All are made from fixed seeds, so every run of the bench
// measures the same bytes.

/// The 20 places of the monitor workload as a rules file: circles by centre and radius, polygons
/// as WKT (longitude latitude), and one rule so that the rules have something to fire.
func rulesText(for engine: MonitorEngine) -> String {
    var text = "# The bench's 20 places: 10 circles, 10 star polygons of 64 vertices (geofence-bench).\n"
    text += "places:\n"
    for identifier in engine.identifiers {
        guard let condition = engine.record(for: identifier)?.condition else { continue }
        switch condition {
        case .circle(let circle):
            text +=
                "  \(identifier): { center: [\(circle.center.latitude), \(circle.center.longitude)], "
                + "radius: \(circle.radiusMeters) }\n"
        case .polygon(let polygon):
            let rings = polygon.polygons[0].map { ring in
                "(" + ring.map { "\($0.longitude) \($0.latitude)" }.joined(separator: ", ") + ")"
            }
            text += "  \(identifier): { wkt: \"POLYGON (\(rings.joined(separator: ", ")))\" }\n"
        }
    }
    text += "rules:\n  - { name: arrived, on: enter c0, log: true }\n"
    return text
}

/// One fix as an NDJSON line of this project's schema (Unix milliseconds, exact coordinates).
func ndjsonLine(_ fix: Fix, device: String?) -> String {
    let milliseconds = Int64((fix.timestamp.timeIntervalSince1970 * 1000).rounded())
    var line = "{\"timestamp\":\(milliseconds),\"latitude\":\(fix.coordinate.latitude),"
    line += "\"longitude\":\(fix.coordinate.longitude)"
    if let accuracy = fix.horizontalAccuracy { line += ",\"horizontalAccuracy\":\(accuracy)" }
    if let device { line += ",\"deviceId\":\"\(device)\"" }
    return line + "}\n"
}

/// Writes `text` pieces to a file as they come, so that a million lines need no string of a
/// hundred megabytes.
struct LineFile {
    private let handle: FileHandle
    private var buffer = ""

    init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        self.handle = handle
    }

    mutating func write(_ text: String) {
        buffer += text
        if buffer.utf8.count > 1 << 20 { flush() }
    }

    mutating func flush() {
        handle.write(Data(buffer.utf8))
        buffer = ""
    }

    mutating func close() {
        flush()
        try? handle.close()
    }
}

/// Random walks for `devices` devices of `fixesPerDevice` fixes each at 1 Hz in the monitor
/// workload's 10 km box, interleaved in time (every device's first fix, then every device's
/// second...), as a server receiving many phones sees them.
func writeManyDevices(devices: Int, fixesPerDevice: Int, to path: String) throws {
    var random = SeededGenerator(seed: 7)
    let frame = SyntheticDay(origin: SyntheticDay.defaultOrigin)
    var positions = (0..<devices).map { _ in
        (
            east: Double.random(in: -4500...4500, using: &random),
            north: Double.random(in: -4500...4500, using: &random),
            heading: Double.random(in: 0..<(2 * .pi), using: &random)
        )
    }
    let start = Date(timeIntervalSince1970: 1_772_521_200)
    var file = try LineFile(path: path)
    for second in 0..<fixesPerDevice {
        for device in 0..<devices {
            var p = positions[device]
            p.heading += random.gaussian(standardDeviation: 0.2)
            p.east = min(5000, max(-5000, p.east + 3 * cos(p.heading)))
            p.north = min(5000, max(-5000, p.north + 3 * sin(p.heading)))
            positions[device] = p
            let fix = Fix(
                timestamp: start.addingTimeInterval(Double(second)),
                coordinate: frame.coordinate(
                    east: p.east + random.gaussian(standardDeviation: 5),
                    north: p.north + random.gaussian(standardDeviation: 5)),
                horizontalAccuracy: 8)
            file.write(ndjsonLine(fix, device: String(format: "d%05d", device)))
        }
    }
    file.close()
}

/// Consecutive synthetic days (from 2026-03-02, at most 28) at 1 Hz, as NDJSON for `geofence stays` and as
/// CSV for trackintel (user, time, latitude, longitude).
func writeStayDays(days: Int, ndjson: String, csv: String) throws {
    var lines = try LineFile(path: ndjson)
    var rows = try LineFile(path: csv)
    rows.write("user_id,tracked_at,latitude,longitude\n")
    let formatter = ISO8601DateFormatter()
    for offset in 0..<min(days, 28) {
        let day = SyntheticDay(day: 2 + offset, intervalSeconds: 1, seed: UInt64(offset + 1))
        for fix in day.fixes() {
            lines.write(ndjsonLine(fix, device: nil))
            rows.write(
                "0,\(formatter.string(from: fix.timestamp)),\(fix.coordinate.latitude),"
                    + "\(fix.coordinate.longitude)\n")
        }
    }
    lines.close()
    rows.close()
}

/// Writes the workloads of `make bench` into `directory`.
func exportBenchWorkloads(to directory: String, devices: Int, stayDays: Int) throws {
    let (engine, fixes) = try monitorWorkload()
    try Data(rulesText(for: engine).utf8).write(to: URL(fileURLWithPath: directory + "/places.yaml"))
    var file = try LineFile(path: directory + "/fixes.ndjson")
    for fix in fixes { file.write(ndjsonLine(fix, device: nil)) }
    file.close()
    try writeManyDevices(
        devices: devices, fixesPerDevice: fixes.count / devices, to: directory + "/devices.ndjson")
    try writeManyDevices(devices: 1000, fixesPerDevice: 1000, to: directory + "/devices-1k.ndjson")
    try writeStayDays(days: stayDays, ndjson: directory + "/stays.ndjson", csv: directory + "/stays.csv")
    print("wrote the replay, many-device and stay workloads to \(directory)")
}
