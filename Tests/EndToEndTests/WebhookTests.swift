import Foundation
import TestSupport
import Testing

@testable import GeofenceRuntime

/// A tiny HTTP server in the test process (the receiver's own libmicrohttpd server) that records
/// what geofence posts and answers 503 to the first request of each Idempotency-Key, 200 after.
private final class WebhookReceiver: Sendable {
    let requests = Locked<[HTTPRequest]>([])
    private let server = Locked<HTTPServer?>(nil)

    init() throws {
        let started = try HTTPServer(address: try HTTPAddress("127.0.0.1:0")) { [self] request in
            let seenBefore = self.requests.withLock { list in
                defer { list.append(request) }
                return list.contains { $0.header("idempotency-key") == request.header("idempotency-key") }
            }
            return seenBefore ? .json(200, "{}") : .text(503, "try again")
        }
        server.withLock { $0 = started }
    }

    var port: Int { server.withLock { $0?.port ?? 0 } }

    func stop() { server.withLock { $0?.stop() } }
}

extension EndToEnd {
    /// Each enter of home is POSTed as JSON with its action id as the Idempotency-Key; the first
    /// attempt of each is refused (503) and retried from the outbox until it succeeds; a reminder
    /// goes to its channel as text (ntfy's form), and the hook of the same rule gets the reminder
    /// as GEOFENCE_MESSAGE.
    @Test func webhooksAndReminderChannelsDeliverWithRetries() throws {
        let scratch = try TemporaryDirectory("webhook")
        let server = try WebhookReceiver()
        defer { server.stop() }
        try scratch.write(
            "rules.yaml",
            "timezone: Europe/London\n" + DayFixtures.places + """

                channels:
                  phone: { post: "http://127.0.0.1:\(server.port)/ntfy/jane", body: text }
                rules:
                  - { name: arrived home, on: enter home, post: "http://127.0.0.1:\(server.port)/hook?token=secret" }
                  - name: milk
                    on: enter work
                    remind: Buy milk
                    repeat: true
                    to: phone
                    run: ["./message.sh", "messages.txt"]

                """)
        try scratch.write(
            "message.sh", "#!/bin/sh\nprintf '%s\\n' \"$GEOFENCE_MESSAGE\" >> \"$1\"\n", executable: true)
        let day = try DayFixtures.day(in: scratch)
        try scratch.write("day.ndjson", day.joined(separator: "\n") + "\n")
        let replayed = try DayFixtures.replay(
            rules: scratch.file("rules.yaml"), input: scratch.file("day.ndjson"), in: scratch)
        func ids(_ action: String, rule: String) -> [String] {
            replayed.compactMap {
                $0["type"] as? String == "action" && $0["action"] as? String == action
                    && $0["rule"] as? String == rule
                    ? $0["id"] as? String : nil
            }
        }
        let posts = ids("post", rule: "arrived home")
        let reminders = ids("remind", rule: "milk")
        try #require(!posts.isEmpty && !reminders.isEmpty)

        let result = try GeofenceProcess.run(
            [
                "run", "rules.yaml", "--input", "day.ndjson", "--history", "--fire-history", "--state",
                scratch.file("state"),
            ],
            in: scratch.path, name: "run")
        #expect(result.status == 0, "stderr:\n\(result.stderr)")

        let received = server.requests.withLock { $0 }
        let hooks = received.filter { $0.path == "/hook" }
        // Each post twice: refused once, then accepted, always with the same key.
        #expect(hooks.compactMap { $0.header("idempotency-key") }.sorted() == (posts + posts).sorted())
        let body = try #require(
            try hooks.first.flatMap {
                try JSONSerialization.jsonObject(with: Data($0.body)) as? [String: Any]
            })
        #expect(body["place"] as? String == "home" && body["transition"] as? String == "enter")
        #expect((body["title"] as? String)?.hasSuffix("entered home") == true)
        #expect(hooks.first?.argument("token") == "secret")
        #expect(!result.stderr.contains("token=secret"), "a URL's query reached the log:\n\(result.stderr)")

        let notes = received.filter { $0.path == "/ntfy/jane" }
        #expect(Set(notes.compactMap { $0.header("idempotency-key") }) == Set(reminders))
        #expect(notes.allSatisfy { String(decoding: $0.body, as: UTF8.self) == "Buy milk" })
        #expect(notes.allSatisfy { $0.contentType == "text/plain" })

        #expect(
            TemporaryDirectory.lines(scratch.file("messages.txt"))
                == Array(repeating: "Buy milk", count: reminders.count))
        let store = try Store(directory: scratch.file("state"))
        defer { store.close() }
        for id in posts + reminders {
            let action = try #require(try store.action(id: id))
            #expect(
                action.status == .done && action.attempts == 2, "\(id): \(action.status) \(action.attempts)")
        }
    }

    /// A rule naming a channel that is not defined is an error of the rules file, with its line.
    @Test func anUnknownChannelIsARulesError() throws {
        let scratch = try TemporaryDirectory("channel")
        try scratch.write(
            "rules.yaml",
            "timezone: Europe/London\n" + DayFixtures.places + """

                channels:
                  phone: { post: "https://ntfy.sh/x", body: text }
                rules:
                  - { name: milk, on: enter work, remind: Buy milk, to: phonr }

                """)
        let result = try GeofenceProcess.run(["check", "rules.yaml"], in: scratch.path, name: "check")
        #expect(result.status != 0)
        #expect(result.stderr.contains("unknown channel \"phonr\""), "\(result.stderr)")
        #expect(result.stderr.contains("phone"), "\(result.stderr)")
    }
}
