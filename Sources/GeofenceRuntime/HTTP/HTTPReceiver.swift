import Foundation
import GeofenceInput
import Synchronization

/// `geofence run --http ADDRESS:PORT`: the receiver phones post to directly, without a broker.
///
/// Each request is authenticated, read (``TrackerPost``), every line checked with a
/// ``LineDecoder``, and then handed to the run through `deliver`, which returns only once the
/// store has committed what the lines caused. Only then does the phone get its 200: a phone that
/// was answered 200 never loses a fix, and one that was not (503 while the run stops or the store
/// fails) keeps the fix and posts it again.
final class HTTPReceiver: @unchecked Sendable {
    /// How the receiver is set up.
    struct Settings: Sendable {
        /// Where it listens.
        var address: HTTPAddress
        /// Who may post; `nil` lets anyone who can reach the address post (loopback only).
        var credentials: HTTPCredentials?
        /// Body and connection bounds.
        var limits = HTTPServer.Limits()
        /// The zone for times written without one.
        var timeZone: TimeZone = .gmt
    }

    /// What became of a post handed to the run.
    enum Delivery: Sendable, Equatable {
        /// The store committed it.
        case committed
        /// It was not committed (the run is stopping, or the store failed); the phone should retry.
        case notCommitted(String)
    }

    /// Hands a post's lines to the run and blocks until they are committed or cannot be.
    typealias Deliver = @Sendable (TrackerPost) -> Delivery
    /// Where the receiver reports what it notices (refused posts, unreadable bodies).
    typealias Note = @Sendable (LogEntry.Level, String) -> Void

    private let settings: Settings
    private let keys: OwnTracksKeys
    private let warnedKeyless = OnceEach()
    private let deliver: Deliver
    private let note: Note
    private let closing = Atomic(false)
    private let warnedUnnamed = Atomic(false)
    private var server: HTTPServer?

    /// The port it listens on.
    var port: Int { server?.port ?? settings.address.port }

    /// Checks the settings, binds the address and starts serving. Throws if the address is not
    /// loopback and no credentials are given, or it cannot be bound.
    init(
        settings: Settings, keys: OwnTracksKeys = OwnTracksKeys(), deliver: @escaping Deliver,
        note: @escaping Note
    ) throws(HTTPServerError) {
        guard settings.credentials != nil || settings.address.isLoopback else {
            throw HTTPServerError(
                "--http \(settings.address) is reachable from other machines: give --http-auth FILE (USER:PASSWORD or TOKEN lines), or listen on 127.0.0.1 behind a proxy"
            )
        }
        self.settings = settings
        self.keys = keys
        self.deliver = deliver
        self.note = note
        server = try HTTPServer(address: settings.address, limits: settings.limits) { [weak self] request in
            self?.handle(request) ?? .text(503, "stopping")
        }
    }

    /// Refuses new posts (503) and stops the server; posts waiting for a commit must have been
    /// released by the run first.
    func stop() {
        closing.store(true, ordering: .sequentiallyConsistent)
        server?.stop()
    }

    /// Answers one request.
    func handle(_ request: HTTPRequest) -> HTTPResponse {
        if closing.load(ordering: .sequentiallyConsistent) {
            return HTTPReceiver.retryLater("geofence is stopping; post again later")
        }
        var user: String?
        if let credentials = settings.credentials {
            switch credentials.check(request) {
            case .user(let name): user = name
            case .token: break
            case .refused:
                note(.warning, "refused a \(request.method) to \(request.path): no valid credentials")
                var response = HTTPResponse.text(401, "credentials needed (basic authentication or a token)")
                response.headers["WWW-Authenticate"] = "Basic realm=\"geofence\""
                return response
            }
        }
        let post: TrackerPost
        do {
            post = try TrackerPost.read(request, user: user, keys: keys)
            try check(post)
        } catch {
            note(.warning, "\(request.method) \(request.path): \(error); answered 400")
            return .text(400, error.message)
        }
        if let device = post.keylessDevice, warnedKeyless.first(device) {
            note(.warning, OwnTracksKeys.keylessWarning(device: device))
        }
        if post.unnamedOwnTracksDevice, !warnedUnnamed.exchange(true, ordering: .relaxed) {
            note(
                .warning,
                "an OwnTracks post names no user (no X-Limit-U header, no basic authentication): its device is only its tracker id; set the user and device id in the app"
            )
        }
        switch deliver(post) {
        case .committed: return post.reply
        case .notCommitted(let reason): return HTTPReceiver.retryLater(reason)
        }
    }

    /// Decodes every line as the run will, so that a line the run could not read is refused
    /// here, with a 400 naming the field, rather than answered 200 and dropped.
    private func check(_ post: TrackerPost) throws(TrackerPostError) {
        var decoder = LineDecoder(source: "post", timeZone: settings.timeZone)
        for (index, line) in post.lines.enumerated() {
            if case .failure(let failure) = decoder.decode(line, number: index + 1) {
                throw TrackerPostError("\(post.kind.rawValue): \(failure)")
            }
        }
    }

    private static func retryLater(_ reason: String) -> HTTPResponse {
        var response = HTTPResponse.text(503, reason)
        response.headers["Retry-After"] = "30"
        return response
    }
}
