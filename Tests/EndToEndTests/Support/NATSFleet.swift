import Foundation
import Geofence
@testable import GeofenceRuntime
import TestSupport
import Testing
import GeofenceSimulation

#if canImport(Glibc)
    import Glibc
#endif

/// A fleet of synthetic phones for the NATS tests: each device's synthetic day (its own seed) as
/// OwnTracks messages on `owntracks.USER.DEVICE`, and what one `geofence replay` of all of them
/// says must come out.
struct NATSFleet {
    /// The rules: the synthetic day's places, a logged action on every enter and exit.
    static let rules =
        "timezone: Europe/London\n" + DayFixtures.places + "\nrules:\n"
        + DayFixtures.triggers.map { "  - { name: \($0) log, on: \($0), log: true }\n" }.joined()

    /// One message: its device's subject, its payload and the line replay reads for it.
    struct Message {
        var subject: String
        var payload: String
        var line: String
        var timestamp: Date
    }

    /// Every device's messages, in time order across the fleet (a device's stay in its order).
    let messages: [Message]
    let devices: [String]

    /// `count` devices `user0/phone` ... each with the synthetic day of seed 100+i at
    /// `intervalSeconds`, up to `untilHour` (the whole day, 07:00-22:00, by default; 14 keeps the
    /// morning: leaving home, arriving at work, lunch there and back, 4 crossings or more each).
    init(count: Int, intervalSeconds: Double, untilHour: Int = 22) {
        var all: [Message] = []
        var devices: [String] = []
        for index in 0..<count {
            let user = "user\(index)"
            devices.append("\(user)/phone")
            let day = SyntheticDay(
                year: 2026, month: 3, day: 3, intervalSeconds: intervalSeconds, noiseMeters: 20, outliers: [],
                seed: UInt64(100 + index))
            for fix in day.fixes() where fix.timestamp <= day.date(.init(untilHour, 0)) {
                let seconds = Int64(fix.timestamp.timeIntervalSince1970.rounded(.down))
                let payload =
                    #"{"_type":"location","lat":\#(fix.coordinate.latitude),"lon":\#(fix.coordinate.longitude),"tst":\#(seconds),"acc":\#(fix.horizontalAccuracy ?? 10)}"#
                let line = OwnTracksMessage.line(
                    payload: Array(payload.utf8), topic: "owntracks/\(user)/phone")
                all.append(
                    Message(
                        subject: "owntracks.\(user).phone", payload: payload, line: line,
                        timestamp: Date(timeIntervalSince1970: Double(seconds))))
            }
        }
        // Stable: a device's own messages keep their order.
        messages = all.enumerated().sorted {
            ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset)
        }.map(\.element)
        self.devices = devices
    }

    /// What `geofence replay` prints for all the messages, one object a line.
    func replayed(in scratch: TemporaryDirectory) throws -> [[String: Any]] {
        try scratch.write("fleet.ndjson", messages.map(\.line).joined(separator: "\n") + "\n")
        let result = try GeofenceProcess.run(
            ["replay", "rules.yaml", "fleet.ndjson", "--format", "owntracks"], in: scratch.path,
            name: "replay")
        guard result.status == 0 else { throw HarnessError("replay failed: \(result.stderr)") }
        return try result.stdout.split(separator: "\n").map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            else {
                throw HarnessError("replay printed a line that is not an object: \(line)")
            }
            return object
        }
    }

    /// Publishes `range` of the messages through JetStream (the server maps each subject into its
    /// partition) and waits until the stream has stored every one. Each message carries its index
    /// as `Nats-Msg-Id`, so a range published again after a failure (a cluster electing leaders
    /// refuses or times out some publishes) stores only what was missing.
    func publish(_ range: Range<Int>, to url: String) throws {
        let jetStream = try JetStream(servers: try NATSSettings.servers(fromURL: url), name: "e2e publisher")
        defer { jetStream.close() }
        let before = try Self.retrying { try jetStream.streamState(Self.stream).messages }
        // A hang guard for a cluster that never recovers, not a timing expectation.
        let deadline = Date().addingTimeInterval(300)
        // Each device's fixes (one subject each) are stored in their order, as a tracker sends
        // them: what the cluster refuses while it elects a leader is sent again, from the first
        // of each device's not stored.
        var left = range.map { index in
            let message = messages[index]
            return JetStream.Outgoing(
                subject: message.subject, payload: Array(message.payload.utf8), id: "fix-\(index)",
                group: message.subject)
        }
        var attempt = 0
        while true {
            attempt += 1
            let outcome = jetStream.publishInOrder(left)
            guard let failure = outcome.failure else { break }
            left = zip(left, outcome.stored).compactMap { $1 ? nil : $0 }
            guard Date() < deadline else {
                throw HarnessError(
                    "publishing messages \(range) failed \(attempt) times, \(left.count) not stored, lastly: \(failure)"
                )
            }
            usleep(500_000)
        }
        let after = try Self.retrying { try jetStream.streamState(Self.stream).messages }
        guard after - before == UInt64(range.count) else {
            throw HarnessError("the stream stored \(after - before) of \(range.count) messages published")
        }
    }

    /// `body`'s result, tried again for up to `seconds` while the servers fail in a way that
    /// passes (a timeout, no leader yet: a loaded cluster answers API requests late, and one that
    /// lost a node elects new leaders). A hang guard, not a timing expectation.
    static func retrying<Value>(seconds: Double = 300, _ body: () throws -> Value) throws -> Value {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            do {
                return try body()
            } catch let error as NATSError where error.isTransient && Date() < deadline {
                usleep(250_000)
            }
        }
    }

    /// The stream the engines create for fixes.
    static let stream = "GEOFENCE_FIXES"

    /// Waits until `engine` has connected and created the streams.
    static func waitUntilReady(_ engine: GeofenceProcess) throws {
        try waitUntil("the engine to connect\n\(engine.stderr)", seconds: 60) {
            engine.stderr.contains("connected to")
        }
    }
}

/// The output stream as a test reads it.
enum NATSOutput {
    /// The instant an output object's `confirmedAt` or `date` names (ISO 8601 with milliseconds,
    /// as geofence writes them), or nil.
    static func date(from text: String) -> Date? {
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return parser.date(from: text)
    }

    /// Every message of `stream` from its start, as JSON objects in stream order.
    ///
    /// The reader's own consumer is created again, from the next sequence it lacks, whenever
    /// creating or fetching fails: after a node is killed the cluster elects new leaders, and
    /// requests time out meanwhile. Gives up (throws) only after `seconds`, a hang guard.
    static func read(url: String, stream: String = "GEOFENCE_OUT", seconds: Double = 300) throws -> [[String:
        Any]]
    {
        let jetStream = try JetStream(servers: try NATSSettings.servers(fromURL: url), name: "e2e reader")
        defer { jetStream.close() }
        let total = try NATSFleet.retrying(seconds: seconds) { try jetStream.streamState(stream).messages }
        var objects: [[String: Any]] = []
        // The output stream never deletes, so its sequences run 1...total.
        var next: UInt64 = 1
        var consumer: (name: String, subscription: PullConsumer)?
        var lastFailure = ""
        let deadline = Date().addingTimeInterval(seconds)
        defer {
            if let consumer { try? jetStream.deleteConsumer(stream: stream, name: consumer.name) }
        }
        while next <= total {
            guard Date() < deadline else {
                throw HarnessError(
                    "read \(objects.count) of \(total) output messages in \(Int(seconds)) s; last failure: \(lastFailure)"
                )
            }
            do {
                if consumer == nil {
                    let name = "e2e-reader-\(UUID().uuidString.prefix(8))"
                    consumer = (
                        name,
                        try jetStream.pullConsumer(
                            stream: stream, durable: name, filter: "geofence.out.>", startSequence: next,
                            ackWaitSeconds: 600, maxAckPending: 100_000, replicas: 1)
                    )
                }
                for message in try consumer!.subscription.fetch(maximum: 1000, waitSeconds: 1)
                where message.streamSequence >= next {
                    guard
                        let object = try JSONSerialization.jsonObject(with: Data(message.payload))
                            as? [String: Any]
                    else { throw HarnessError("output message \(message.streamSequence) is not an object") }
                    objects.append(object)
                    next = message.streamSequence + 1
                }
            } catch let error as NATSError {
                lastFailure = "\(error)"
                if let old = consumer {
                    old.subscription.unsubscribe()
                    try? jetStream.deleteConsumer(stream: stream, name: old.name)
                }
                consumer = nil
                usleep(500_000)
            }
        }
        return objects
    }

    /// How many messages the output stream holds.
    static func count(url: String, stream: String = "GEOFENCE_OUT") throws -> UInt64 {
        let jetStream = try JetStream(servers: try NATSSettings.servers(fromURL: url), name: "e2e counter")
        defer { jetStream.close() }
        return (try? jetStream.streamState(stream).messages) ?? 0
    }

    /// The ids of objects of `type`, grouped by device, in order.
    static func idsByDevice(_ objects: [[String: Any]], type: String) -> [String: [String]] {
        objects.reduce(into: [:]) { result, object in
            guard object["type"] as? String == type, let id = object["id"] as? String,
                let device = object["device"] as? String
            else { return }
            result[device, default: []].append(id)
        }
    }
}
