import Foundation
import Synchronization

/// Reads fixes from gpsd on a thread of its own (libgps blocks): connects, turns each TPV
/// report into a line of the project's NDJSON, and reconnects with a growing delay (1 s doubling
/// to 30 s) whenever gpsd is not there or goes away, as it does when it restarts.
final class GPSDReader: Sendable {
    /// What the reader reports.
    enum Happening: Sendable, Equatable {
        /// A fix, as an NDJSON line.
        case fix(String)
        /// Something to log: connected, lost, cannot reach.
        case note(LogEntry.Level, String)
    }

    /// Where gpsd listens: `HOST:PORT`, `HOST`, or nothing for 127.0.0.1:2947.
    struct Address: Sendable, Equatable, CustomStringConvertible {
        /// The host.
        var host: String
        /// The port.
        var port: Int

        /// Reads `--gpsd`'s optional argument.
        init(_ text: String?) throws(GPSDError) {
            guard let text, !text.isEmpty else {
                host = "127.0.0.1"
                port = 2947
                return
            }
            do {
                let address = try HTTPAddress(text.contains(":") ? text : text + ":2947")
                host = address.host
                port = address.port
            } catch {
                throw GPSDError("--gpsd wants HOST:PORT (127.0.0.1:2947), not '\(text)'")
            }
            guard port > 0 else { throw GPSDError("--gpsd: the port must not be 0") }
        }

        /// `host:port`.
        var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    private let address: Address
    private let device: String
    private let emit: @Sendable (Happening) -> Void
    private let stopped = Atomic(false)
    private let finished = Atomic(false)

    /// Makes a reader whose fixes belong to `device`; nothing happens until ``start()``.
    init(address: Address, device: String, emit: @escaping @Sendable (Happening) -> Void) {
        self.address = address
        self.device = device
        self.emit = emit
    }

    /// Starts the reading thread.
    func start() {
        let thread = Thread { [self] in
            read()
            finished.store(true, ordering: .sequentiallyConsistent)
        }
        thread.name = "geofence gpsd"
        thread.start()
    }

    /// Asks the thread to stop and waits (up to a few seconds) until it has.
    func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        for _ in 0..<500 where !finished.load(ordering: .sequentiallyConsistent) { usleep(10_000) }
    }

    private var isStopped: Bool { stopped.load(ordering: .sequentiallyConsistent) }

    private func read() {
        var delay = 1.0
        var everConnected = false
        var lastFailure: String?
        while !isStopped {
            let client: GPSDClient
            do {
                client = try GPSDClient(host: address.host, port: address.port)
            } catch {
                if error.message != lastFailure {
                    emit(.note(.warning, "\(error.message); retrying with backoff"))
                    lastFailure = error.message
                }
                pause(delay)
                delay = min(30, delay * 2)
                continue
            }
            emit(.note(.info, "\(everConnected ? "reconnected" : "connected") to gpsd at \(address)"))
            everConnected = true
            lastFailure = nil
            delay = 1
            // gpsd reports a cycle more than once as its sentences arrive (RMC gives a 2D fix,
            // GGA then adds the altitude and the error estimate): the last report of a time is
            // kept, and handed on when a report of another time comes or the receiver is quiet.
            var pending: GPSDClient.Report?
            reading: while !isStopped {
                switch client.next(timeoutSeconds: 0.2) {
                case .report(let report):
                    if let held = pending, held.date != report.date { emit(.fix(line(held))) }
                    pending = report
                case .nothing:
                    if let held = pending { emit(.fix(line(held))) }
                    pending = nil
                case .gone:
                    if let held = pending { emit(.fix(line(held))) }
                    emit(
                        .note(.warning, "gpsd at \(address) closed the connection; reconnecting with backoff")
                    )
                    break reading
                }
            }
            if !isStopped { pause(delay) }
        }
    }

    /// Sleeps `seconds` in small steps, so that a stop is not kept waiting.
    private func pause(_ seconds: Double) {
        let end = Date().addingTimeInterval(seconds)
        while !isStopped, Date() < end { usleep(50_000) }
    }

    /// The report as the project's NDJSON.
    func line(_ report: GPSDClient.Report) -> String {
        var line = NDJSONLine()
        line.add("latitude", report.latitude)
        line.add("longitude", report.longitude)
        line.add("timestamp", (report.date.timeIntervalSince1970 * 1000).rounded())
        line.add("horizontalAccuracy", report.accuracyMeters)
        line.add("altitude", report.altitude)
        line.add("speed", report.speed)
        line.add("course", report.course)
        line.add("deviceId", device)
        return line.text
    }
}
