import Foundation
import GeofenceInput
import Synchronization

/// The HTTP receiver as an input of `geofence run` (`--http`): each request's positions are put
/// on the queue with a ``CommitTicket``, and the request is answered when the run resolves it.
///
/// It never ends by itself. There is no position to store: a phone whose post was not answered
/// 200 keeps the fix and posts it again.
final class HTTPInput: RunInput {
    let name = "http"
    private let settings: HTTPReceiver.Settings
    private let history: Bool
    private let keys: OwnTracksKeys
    /// How long a request waits for its commit before it is answered 503.
    private let commitSeconds: Double
    private let receiver = Locked<HTTPReceiver?>(nil)
    private let outstanding = Locked<[ObjectIdentifier: CommitTicket]>([:])
    private let posts = Atomic<Int64>(0)

    init(settings: HTTPReceiver.Settings, history: Bool, keys: OwnTracksKeys, commitSeconds: Double = 30) {
        self.settings = settings
        self.history = history
        self.keys = keys
        self.commitSeconds = commitSeconds
    }

    /// Every line is told apart by itself: OwnTracks JSON and the project's NDJSON arrive mixed.
    func decoder(format: InputFormat, timeZone: TimeZone) -> StreamDecoder {
        // Lines as the receiver checked them (``LineDecoder``, each told apart on its own).
        StreamDecoder(lines: LineDecoder(format: .auto, source: name, timeZone: timeZone))
    }

    /// Binds the address and starts serving; throws if it cannot.
    func start(into queue: RecordQueue) throws {
        let name = self.name
        let live = !history
        let started = try HTTPReceiver(
            settings: settings, keys: keys,
            deliver: { [self] post in
                let ticket = CommitTicket()
                let key = ObjectIdentifier(ticket)
                outstanding.withLock { $0[key] = ticket }
                defer { _ = outstanding.withLock { $0.removeValue(forKey: key) } }
                let number = posts.add(1, ordering: .relaxed).newValue
                guard
                    queue.put(
                        .posted(input: name, lines: post.lines, number: number, live: live, ticket: ticket))
                else { return .notCommitted("geofence is stopping; post again later") }
                return ticket.wait(seconds: commitSeconds)
            },
            note: { level, message in queue.put(.note(input: name, message: message, level: level)) })
        receiver.withLock { $0 = started }
        let scheme = "http://\(HTTPAddress.hostText(settings.address.host)):\(started.port)"
        let guarded = settings.credentials == nil ? "no credentials (loopback only)" : "credentials required"
        queue.put(.note(input: name, message: "listening on \(scheme) (\(guarded))", level: .info))
    }

    /// Answers waiting requests 503 (their lines may never be committed now) and stops the server.
    func stop() {
        let waiting = outstanding.withLock { Array($0.values) }
        for ticket in waiting { ticket.resolve(.notCommitted("geofence is stopping; post again later")) }
        let running = receiver.withLock { current in
            defer { current = nil }
            return current
        }
        running?.stop()
    }
}
