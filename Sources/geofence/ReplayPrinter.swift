import Foundation
import Geofence
import GeofenceRules

/// Prints what the pipeline produced: NDJSON, one object a line with a `type` (event, visit,
/// action, commute, dropped), or a table for a person in the rules' time zone.
struct ReplayPrinter: Sendable {
    let table: Bool
    let timeZone: TimeZone
    /// Whether to print actions; `run` prints them itself when it carries them out.
    var includeActions = true
    /// Where lines wait for ``flush()`` when the printer is buffered; `nil` writes each at once
    /// (a live run, whose reader watches the output as it happens).
    private var buffer: OutputBuffer?

    private var output: FileHandle { .standardOutput }

    /// Makes a printer; a `buffered` one writes only when a buffer fills or at ``flush()``, so
    /// that replaying many events costs a write for many lines, not one each.
    init(table: Bool, timeZone: TimeZone, includeActions: Bool = true, buffered: Bool = false) {
        self.table = table
        self.timeZone = timeZone
        self.includeActions = includeActions
        self.buffer = buffered ? OutputBuffer() : nil
    }

    /// Writes what a buffered printer holds.
    func flush() {
        buffer?.flush(to: output)
    }

    func header() {
        guard table else { return }
        write(pad("time (\(DisplayZone.name(timeZone)))", 19) + "  " + pad("device", 9) + "  what")
    }

    /// Ends a table with a summary line (the confirmation latency); NDJSON gets none.
    func footer(_ text: String) {
        guard table else { return }
        write(text)
    }

    func print(_ result: PipelineOutput) {
        if let lines = lines(of: result) { write(lines) }
    }

    /// The lines ``print(_:)`` writes for `result`, as UTF-8, joined by newlines (without the
    /// last); `nil` when it writes nothing. Touches nothing but its arguments, so outputs can be
    /// rendered on several threads at once and written, in order, on one. Bytes, not a string:
    /// they go to the output as they are, where a string of a fleet's twenty events a record was
    /// checked as UTF-8 and copied again.
    func lines(of result: PipelineOutput) -> [UInt8]? {
        guard !result.isEmpty else { return nil }
        // One buffer for all the lines: a fleet's first determinations are twenty events for one
        // fix.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(result.placeEvents.count * 300)
        func newLine() {
            if !bytes.isEmpty { bytes.append(UInt8(ascii: "\n")) }
        }
        func add(_ line: String) {
            newLine()
            bytes.append(contentsOf: line.utf8)
        }
        // The output's events are of one fix or visit: their lines share its coordinate's text.
        var reuse = EventLineReuse()
        for event in result.placeEvents {
            if table {
                add(row(event))
                continue
            }
            newLine()
            do {
                try EngineJSON.appendLine("event", event, to: &bytes, reusing: &reuse)
            } catch {
                bytes.append(contentsOf: ReplayPrinter.unencodable("event").utf8)
            }
        }
        for visit in result.visits {
            add(
                table
                    ? row(visit, device: result.device)
                    : json("visit", VisitLine(visit, device: result.device)))
        }
        for commute in result.commutes {
            add(table ? row(commute) : json("commute", commute))
        }
        for action in result.actions where includeActions {
            add(table ? row(action) : json("action", action))
        }
        // `run` leaves actions out, so an output with only actions (an engine event) prints nothing.
        guard !bytes.isEmpty else { return nil }
        // Kept until the records around it are rendered too (a chunk of them at a time, see
        // `ReplayCommand.outputChunk`): the buffer, reserved by a guess and doubled when a line
        // passes it, is given back for a copy of the lines' own size. Returned as it was, the
        // 10,000-device replay's peak memory was 4.5 MB higher.
        guard bytes.capacity - bytes.count > 256 else { return bytes }
        return bytes.withUnsafeBufferPointer { lines in
            [UInt8](unsafeUninitializedCapacity: lines.count) { copy, count in
                count = copy.initialize(fromContentsOf: lines)
            }
        }
    }

    /// The line `--verbose` prints for a fix the filter dropped; like ``lines(of:)``, safe on any
    /// thread.
    func droppedText(_ fix: Fix, reason: FixFilter.Reason) -> String {
        let line = DroppedLine(
            time: fix.timestamp, latitude: fix.coordinate.latitude, longitude: fix.coordinate.longitude,
            accuracy: fix.horizontalAccuracy, reason: reason.rawValue)
        return table ? "\(clock(fix.timestamp))  dropped fix: \(reason.rawValue)" : json("dropped", line)
    }

    /// Writes `text` and a newline: at once, or into the buffer (a record's lines, unbuffered, go
    /// out in one write).
    func write(_ text: String) {
        write(Array(text.utf8))
    }

    /// Writes `lines` (UTF-8) and a newline, as ``write(_:)-(String)`` writes a text.
    func write(_ lines: [UInt8]) {
        guard let buffer else {
            var data = Data(lines)
            data.append(UInt8(ascii: "\n"))
            return output.write(data)
        }
        buffer.append(lines)
        if buffer.count >= OutputBuffer.limit { buffer.flush(to: output) }
    }

    private func json<Value: Encodable>(_ type: String, _ value: Value) -> String {
        (try? EngineJSON.line(type, value)) ?? ReplayPrinter.unencodable(type)
    }

    /// The line written in place of a record the encoder refuses (a number JSON cannot hold).
    private static func unencodable(_ type: String) -> String {
        "{\"type\":\"\(type)\",\"error\":\"cannot encode\"}"
    }

    // MARK: Table rows

    private func clock(_ date: Date) -> String { EngineJSON.localClock(date, in: timeZone) }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    private func row(_ event: PlaceEvent) -> String {
        let what: String
        switch event.transition {
        case .enter: what = "entered \(event.place)"
        case .exit: what = "left \(event.place)"
        case .determined:
            what = "\(event.state == .satisfied ? "inside" : "outside") \(event.place) (first determination)"
        default: what = "\(event.place): \(event.transition) \(event.state.rawValue)"
        }
        let confirmed = event.confirmedAt.timeIntervalSince(event.date)
        return "\(clock(event.date))  \(pad(event.device, 9))  \(what)"
            + (confirmed.rounded() > 0 ? " (confirmed \(TimeText.duration(confirmed)) later)" : "")
    }

    private func row(_ visit: Visit, device: String) -> String {
        let position = String(format: "%.5f, %.5f", visit.coordinate.latitude, visit.coordinate.longitude)
        if let departure = visit.departure {
            let stayed = visit.duration.map { " after \(TimeText.duration($0))" } ?? ""
            return "\(clock(departure))  \(pad(device, 9))  visit ended at \(position)\(stayed)"
        }
        return "\(clock(visit.arrival ?? .distantPast))  \(pad(device, 9))  visit started at \(position)"
    }

    private func row(_ commute: CommuteRecord) -> String {
        let head = "\(pad(commute.device, 9))  commute \"\(commute.rule)\" \(commute.from) -> \(commute.to)"
        guard let end = commute.end, let duration = commute.durationSeconds else {
            return "\(clock(commute.start))  \(head): abandoned, \(commute.reason ?? "")"
        }
        return
            "\(clock(end))  \(head): left \(clock(commute.start).suffix(8)), arrived \(clock(end).suffix(8)), "
            + TimeText.duration(duration)
    }

    private func row(_ action: FiredAction) -> String {
        let what = action.kind.replayText
        let subject = action.place.map { " \($0)" } ?? ""
        return
            "\(clock(action.date))  \(pad(action.device, 9))    -> [\(action.rule)] \(what) (on \(action.transition)\(subject))"
    }
}

/// A visit as replay prints it.
private struct VisitLine: Encodable {
    var device: String
    var arrival: Date?
    var departure: Date?
    var latitude: Double
    var longitude: Double
    var horizontalAccuracy: Double

    init(_ visit: Visit, device: String) {
        self.device = device
        arrival = visit.arrival
        departure = visit.departure
        latitude = visit.coordinate.latitude
        longitude = visit.coordinate.longitude
        horizontalAccuracy = (visit.horizontalAccuracy * 10).rounded() / 10
    }

    func encode(to encoder: any Encoder) throws {
        // Unknown ends are written as null, not left out.
        enum Keys: String, CodingKey {
            case device, arrival, departure, latitude, longitude, horizontalAccuracy
        }
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(device, forKey: .device)
        try container.encode(arrival, forKey: .arrival)
        try container.encode(departure, forKey: .departure)
        try container.encode(latitude, forKey: .latitude)
        try container.encode(longitude, forKey: .longitude)
        try container.encode(horizontalAccuracy, forKey: .horizontalAccuracy)
    }
}

/// A dropped fix as replay prints it with `--verbose`.
private struct DroppedLine: Encodable {
    var time: Date
    var latitude: Double
    var longitude: Double
    var accuracy: Double?
    var reason: String
}

/// The bytes a buffered ``ReplayPrinter`` has not written yet; used from one thread at a time (the
/// command's), which is why it needs no lock.
final class OutputBuffer: @unchecked Sendable {
    /// How many bytes wait before they are written.
    static let limit = 1 << 16
    private var bytes: [UInt8] = []

    var count: Int { bytes.count }

    func append(_ lines: [UInt8]) {
        bytes.append(contentsOf: lines)
        bytes.append(UInt8(ascii: "\n"))
    }

    func flush(to handle: FileHandle) {
        guard !bytes.isEmpty else { return }
        // Written from where they are: a `Data` made of them copied every byte printed (60 MB
        // for ten thousand devices' first determinations). A write that fails (a full disk) ends
        // the command, as it did inside `write(_: Data)`, but with a message rather than a trap.
        do {
            try handle.write(contentsOf: bytes)
        } catch {
            FileHandle.standardError.write(
                Data("geofence: cannot write the output: \(error.localizedDescription)\n".utf8))
            exit(1)
        }
        bytes.removeAll(keepingCapacity: true)
    }
}
