import Foundation
import TestSupport
import Testing

@testable import GeofenceRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// NMEA RMC and GGA sentences, one pair a second from 10:00:00 UTC on 1 May 2024, walking north
/// from 51.5007 N 0.1246 W by 0.0001° a second at 1 knot, HDOP 0.9, 35 m above sea level.
func nmeaWalk(seconds: Int) -> String {
    func checksum(_ body: String) -> String {
        String(format: "%02X", body.utf8.reduce(UInt8(0)) { $0 ^ $1 })
    }
    func degreesMinutes(_ value: Double, width: Int) -> String {
        let whole = Int(abs(value))
        let minutes = (abs(value) - Double(whole)) * 60
        return String(format: "%0\(width)d%07.4f", whole, minutes)
    }
    var lines: [String] = []
    for second in 0..<seconds {
        let latitude = 51.5007 + Double(second) * 0.0001
        let time = String(format: "10%02d%02d.00", second / 60, second % 60)
        let position = "\(degreesMinutes(latitude, width: 2)),N,\(degreesMinutes(0.1246, width: 3)),W"
        let rmc = "GPRMC,\(time),A,\(position),1.0,0.0,010524,,,A"
        let gga = "GPGGA,\(time),\(position),1,08,0.9,35.0,M,47.0,M,,"
        lines.append("$\(rmc)*\(checksum(rmc))")
        lines.append("$\(gga)*\(checksum(gga))")
    }
    return lines.joined(separator: "\r\n") + "\r\n"
}

/// `gpsfake` (Debian's gpsd-clients) feeding a log to a private gpsd on a loopback port. Foundation
/// starts a child as the leader of a process group of its own, which the gpsd that gpsfake starts
/// joins: signalling the group stops both.
final class FakeGPSD: @unchecked Sendable {
    let port: Int
    private let log: String
    private var process: Process?

    init(log: String, port: Int) throws {
        self.log = log
        self.port = port
        try start()
    }

    deinit { stop() }

    func start() throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/gpsfake")
        child.arguments = ["-P", String(port), "-q", "-c", "0.1", log]
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = (environment["PATH"] ?? "/usr/bin:/bin") + ":/usr/sbin:/sbin"
        child.environment = environment
        child.standardInput = FileHandle.nullDevice
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        process = child
    }

    /// Stops gpsfake and its gpsd (the whole group; SIGKILL, since a child of Foundation's
    /// Process may start with SIGTERM blocked, swift-corelibs-foundation#4772) and waits for it.
    func stop() {
        guard let process else { return }
        kill(-process.processIdentifier, SIGKILL)
        for _ in 0..<3000 where process.isRunning { usleep(10_000) }
        if !process.isRunning { process.waitUntilExit() }
        self.process = nil
    }

    /// A loopback port nobody listens on.
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw GPSDError("cannot bind a loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// What a reader emitted.
private final class Emitted: Sendable {
    let items = Locked<[GPSDReader.Happening]>([])
    var fixes: [String] {
        items.withLock { $0.compactMap { if case .fix(let line) = $0 { line } else { nil } } }
    }
    var notes: [String] {
        items.withLock { $0.compactMap { if case .note(_, let text) = $0 { text } else { nil } } }
    }

    /// Polls for up to 180 s: a hang guard, not a timing check. A restarted gpsfake can take
    /// seconds to come up on a loaded machine, and the reader's backoff (1 s doubling to 30 s)
    /// may then wait half a minute more before it tries again.
    func waitUntil(_ what: String, _ condition: () -> Bool) throws {
        for _ in 0..<18_000 {
            if condition() { return }
            usleep(10_000)
        }
        throw GPSDError("timed out waiting for \(what): \(notes)")
    }
}

@Suite(.serialized)
struct GPSDReaderTests {
    /// TPV reports from a real gpsd fed NMEA by gpsfake become NDJSON fixes with the time,
    /// position, accuracy, speed and the device; when gpsd goes away and comes back, the reader
    /// reconnects by itself and reads on.
    @Test func tpvReportsBecomeFixesAndARestartedGPSDIsReconnected() throws {
        let directory = try TemporaryDirectory()
        let log = directory.file("walk.nmea")
        try nmeaWalk(seconds: 60).write(toFile: log, atomically: true, encoding: .utf8)
        let port = try FakeGPSD.freePort()
        let gpsd = try FakeGPSD(log: log, port: port)
        defer { gpsd.stop() }
        let emitted = Emitted()
        let reader = GPSDReader(
            address: try GPSDReader.Address("127.0.0.1:\(port)"), device: "boat",
            emit: { happening in emitted.items.withLock { $0.append(happening) } })
        reader.start()
        defer { reader.stop() }
        try emitted.waitUntil("3 fixes") { emitted.fixes.count >= 3 }

        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(emitted.fixes[0].utf8)) as? [String: Any])
        let latitude = try #require(object["latitude"] as? Double)
        #expect(latitude > 51.5006 && latitude < 51.507)
        #expect(abs((object["longitude"] as? Double ?? 0) + 0.1246) < 1e-6)
        let milliseconds = try #require(object["timestamp"] as? Int)
        #expect(milliseconds >= 1_714_557_600_000 && milliseconds < 1_714_557_660_000)
        #expect(object["deviceId"] as? String == "boat")
        // One fix a second, each the cycle's complete report: gpsd's error estimate and the
        // altitude of GGA's 3D fix.
        #expect(object["horizontalAccuracy"] as? Double == 17.1, "\(emitted.fixes[0])")
        #expect(object["altitude"] as? Int == 35, "\(emitted.fixes[0])")
        let times = emitted.fixes.prefix(3).compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["timestamp"] as? Int
        }
        #expect(times.count == 3 && Set(times).count == 3, "\(emitted.fixes.prefix(3))")
        #expect(abs((object["speed"] as? Double ?? 0) - 0.514) < 0.01)
        #expect(emitted.notes.contains("connected to gpsd at 127.0.0.1:\(port)"), "\(emitted.notes)")

        gpsd.stop()
        try emitted.waitUntil("the reader to notice gpsd went away") {
            emitted.notes.contains { $0.contains("closed the connection") }
        }
        let before = emitted.fixes.count
        try gpsd.start()
        try emitted.waitUntil("the reader to reconnect and read on") {
            emitted.notes.contains { $0.hasPrefix("reconnected to gpsd") }
                && emitted.fixes.count >= before + 3
        }
    }

    /// `--gpsd` addresses: nothing is gpsd's own port on loopback; a host alone gets port 2947.
    @Test func gpsdAddressesAreRead() throws {
        #expect(try GPSDReader.Address(nil) == GPSDReader.Address("127.0.0.1:2947"))
        #expect(try GPSDReader.Address("boat.local").port == 2947)
        #expect(throws: GPSDError.self) { try GPSDReader.Address("host:port") }
    }
}
