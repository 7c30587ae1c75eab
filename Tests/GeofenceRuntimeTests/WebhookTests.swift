import Foundation
import TestSupport
import Testing

@testable import GeofenceRuntime

/// A tiny local HTTP server for one test: answers each POST with the next status of a script
/// (the last one repeats), after an optional delay, and records what it was sent.
private final class ScriptedServer: Sendable {
    let requests = Locked<[HTTPRequest]>([])
    private let statuses: Locked<[Int]>
    private let delaySeconds: Double
    private let server = Locked<HTTPServer?>(nil)

    init(statuses: [Int], delaySeconds: Double = 0) throws {
        self.statuses = Locked(statuses)
        self.delaySeconds = delaySeconds
        let started = try HTTPServer(address: try HTTPAddress("127.0.0.1:0")) { [self] request in
            requests.withLock { $0.append(request) }
            if delaySeconds > 0 { usleep(UInt32(delaySeconds * 1_000_000)) }
            let status = self.statuses.withLock { list in
                list.count > 1 ? list.removeFirst() : list.first ?? 200
            }
            return .json(status, #"{"ok":\#(status < 300)}"#)
        }
        server.withLock { $0 = started }
    }

    var url: String { "http://127.0.0.1:\(server.withLock { $0?.port ?? 0 })/hook?token=secret" }

    func stop() { server.withLock { $0?.stop() } }
}

@Suite(.serialized)
struct WebhookTests {
    private let fields: [HookEnvironment.Field: String] = [
        .eventID: "ev-1/0", .rule: "arrived", .transition: "enter", .place: "home", .device: "jane/phone",
        .time: "2026-03-03T08:00:00Z", .latitude: "51.5", .longitude: "-0.12", .accuracy: "12",
    ]

    /// A JSON post carries the hook's fields, a readable title and message, and the action id
    /// as its Idempotency-Key.
    @Test func aJSONPostCarriesTheFieldsAndTheIdempotencyKey() throws {
        let server = try ScriptedServer(statuses: [200])
        defer { server.stop() }
        let request = WebhookMessage.request(
            url: server.url, text: false, headers: ["Authorization": "Bearer x"], timeoutSeconds: 10,
            fields: fields)
        let result = WebhookClient.post(request)
        #expect(result.succeeded, "\(result.summary)")
        let received = try #require(server.requests.withLock { $0.first })
        #expect(received.method == "POST" && received.path == "/hook")
        #expect(received.header("idempotency-key") == "ev-1/0")
        #expect(received.header("authorization") == "Bearer x")
        #expect(received.contentType == "application/json")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(received.body)) as? [String: Any])
        #expect(object["event_id"] as? String == "ev-1/0")
        #expect(object["place"] as? String == "home")
        #expect(object["latitude"] as? Double == 51.5)
        #expect(object["title"] as? String == "jane/phone entered home")
        #expect(object["message"] as? String == "jane/phone entered home at 2026-03-03T08:00:00Z")
    }

    /// A text post (for ntfy) is the message alone, with the title in a header; a reminder's
    /// message is the text.
    @Test func aTextPostIsTheMessageWithATitleHeader() throws {
        let server = try ScriptedServer(statuses: [200])
        defer { server.stop() }
        var reminder = fields
        reminder[.message] = "Buy milk"
        #expect(
            WebhookClient.post(
                WebhookMessage.request(
                    url: server.url, text: true, headers: [:], timeoutSeconds: 10, fields: reminder)
            ).succeeded)
        let received = try #require(server.requests.withLock { $0.first })
        #expect(String(decoding: received.body, as: UTF8.self) == "Buy milk")
        #expect(received.header("title") == "jane/phone entered home")
    }

    /// No answer within the timeout is a failure worth retrying, and is reported as a timeout.
    @Test func aSlowServerTimesOut() throws {
        let server = try ScriptedServer(statuses: [200], delaySeconds: 3)
        defer { server.stop() }
        let result = WebhookClient.post(
            WebhookMessage.request(
                url: server.url, text: false, headers: [:], timeoutSeconds: 0.5, fields: fields))
        #expect(result.status == nil)
        #expect(result.isWorthRetrying)
        #expect(result.summary.lowercased().contains("timeout"), "\(result.summary)")
    }

    /// Log lines never show a URL's query or user information, where tokens live.
    @Test func urlsAreRedactedInLogs() {
        #expect(
            WebhookClient.redacted("https://u:p@gotify.example/message?token=abc")
                == "https://gotify.example/message?...")
    }

    private func store(_ directory: TemporaryDirectory, ids: [String]) throws -> Store {
        let store = try Store(directory: directory.file("state"))
        var step = Step()
        step.actions = ids.map {
            OutboxAction(id: $0, kind: "post", payloadJSON: "{}", createdAt: Date(timeIntervalSince1970: 0))
        }
        try store.commit(step)
        return store
    }

    /// 503 twice, then 200: the post is retried from the outbox, each attempt counted, and
    /// marked done; the receiver saw one Idempotency-Key three times.
    @Test func failuresWorthRetryingAreRetriedUntilTheySucceed() throws {
        let directory = try TemporaryDirectory()
        let store = try store(directory, ids: ["ev-1/0"])
        defer { store.close() }
        let server = try ScriptedServer(statuses: [503, 503, 200])
        defer { server.stop() }
        var policy = WebhookSender.Policy()
        policy.firstDelaySeconds = 0.05
        let sender = WebhookSender(store: store, policy: policy, report: { _, _ in })
        sender.send(
            id: "ev-1/0",
            request: WebhookMessage.request(
                url: server.url, text: false, headers: [:], timeoutSeconds: 10, fields: fields))
        #expect(sender.waitUntilIdle(seconds: 60))
        let action = try #require(try store.action(id: "ev-1/0"))
        #expect(action.status == .done)
        #expect(action.attempts == 3)
        #expect(
            server.requests.withLock { $0.map { $0.header("idempotency-key") } } == [
                "ev-1/0", "ev-1/0", "ev-1/0",
            ])
    }

    /// A 4xx other than 408/425/429 is the request's own fault: failed at once, not repeated.
    /// A server that never answers is tried as often as the policy says, then failed.
    @Test func permanentFailuresAreNotRetriedAndRetriesEnd() throws {
        let directory = try TemporaryDirectory()
        let store = try store(directory, ids: ["a/0", "b/0"])
        defer { store.close() }
        let server = try ScriptedServer(statuses: [404])
        defer { server.stop() }
        var policy = WebhookSender.Policy()
        policy.firstDelaySeconds = 0.05
        policy.attempts = 3
        let sender = WebhookSender(store: store, policy: policy, report: { _, _ in })
        sender.send(
            id: "a/0",
            request: WebhookMessage.request(
                url: server.url, text: false, headers: [:], timeoutSeconds: 10, fields: fields))
        // Nothing listens on a port just closed.
        let closed = try ScriptedServer(statuses: [200])
        let deadURL = closed.url
        closed.stop()
        sender.send(
            id: "b/0",
            request: WebhookMessage.request(
                url: deadURL, text: false, headers: [:], timeoutSeconds: 5, fields: fields))
        #expect(sender.waitUntilIdle(seconds: 60))
        let refused = try #require(try store.action(id: "a/0"))
        #expect(refused.status == .failed && refused.attempts == 1)
        let unreachable = try #require(try store.action(id: "b/0"))
        #expect(unreachable.status == .failed && unreachable.attempts == 3)
        #expect(unreachable.lastError?.contains("after 3 attempts") == true, "\(unreachable.lastError ?? "")")
    }

    /// A post waiting for its retry when the run stops stays unfinished in the outbox, so the
    /// next start sends it again.
    @Test func aStoppedSenderLeavesWaitingPostsInTheOutbox() throws {
        let directory = try TemporaryDirectory()
        let store = try store(directory, ids: ["c/0"])
        defer { store.close() }
        let server = try ScriptedServer(statuses: [503])
        defer { server.stop() }
        var policy = WebhookSender.Policy()
        policy.firstDelaySeconds = 30
        let sender = WebhookSender(store: store, policy: policy, report: { _, _ in })
        sender.send(
            id: "c/0",
            request: WebhookMessage.request(
                url: server.url, text: false, headers: [:], timeoutSeconds: 10, fields: fields))
        for _ in 0..<3000 where server.requests.withLock({ $0.isEmpty }) { usleep(10_000) }
        usleep(200_000)
        #expect(sender.stop(waitingSeconds: 10) == 1)
        #expect(try store.pendingActions().map(\.id) == ["c/0"])
    }
}
