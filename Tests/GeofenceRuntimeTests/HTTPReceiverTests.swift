import Foundation
import TestSupport
import Testing

@testable import GeofenceRuntime

/// `curl` (installed by `make setup`) against an in-process receiver: what a phone sees.
private func curl(_ arguments: [String], in directory: TemporaryDirectory) throws -> (
    status: Int, body: String
) {
    try curl(arguments, inPath: directory.path)
}

private func curl(_ arguments: [String], inPath directory: String) throws -> (status: Int, body: String) {
    let output = directory + "/curl-\(UUID().uuidString).out"
    let child = Process()
    child.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    child.arguments = ["-s", "-m", "60", "-o", output, "-w", "%{http_code}"] + arguments
    let pipe = Pipe()
    child.standardOutput = pipe
    child.standardError = FileHandle.nullDevice
    try child.run()
    let written = pipe.fileHandleForReading.readDataToEndOfFile()
    child.waitUntilExit()
    let body = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    return (Int(String(decoding: written, as: UTF8.self)) ?? -1, body)
}

/// Everything the receiver handed to the run, and what it answers for the delivery.
private final class Deliveries: Sendable {
    let posts = Locked<[TrackerPost]>([])
    let answer = Locked<HTTPReceiver.Delivery>(.committed)

    func deliver(_ post: TrackerPost) -> HTTPReceiver.Delivery {
        posts.withLock { $0.append(post) }
        return answer.withLock { $0 }
    }
}

/// A status code that arrives on another thread.
private final class Answer: Sendable {
    let status = Locked<Int?>(nil)
}

@Suite(.serialized)
struct HTTPReceiverTests {
    private func receiver(
        _ deliveries: Deliveries, credentials: HTTPCredentials? = nil, limits: HTTPServer.Limits = .init(),
        deliver: HTTPReceiver.Deliver? = nil
    ) throws -> HTTPReceiver {
        var settings = HTTPReceiver.Settings(address: try HTTPAddress("127.0.0.1:0"))
        settings.credentials = credentials
        settings.limits = limits
        return try HTTPReceiver(
            settings: settings, deliver: deliver ?? { deliveries.deliver($0) }, note: { _, _ in })
    }

    /// An OwnTracks phone in HTTP mode posts JSON with its user and device in headers and gets a
    /// JSON array back; the run received the location as the device USER/DEVICE.
    @Test func anOwnTracksPostIsDeliveredAndAnsweredWithAJSONArray() throws {
        let directory = try TemporaryDirectory()
        let deliveries = Deliveries()
        let receiver = try receiver(deliveries)
        defer { receiver.stop() }
        let answer = try curl(
            [
                "-H", "Content-Type: application/json", "-H", "X-Limit-U: jane", "-H", "X-Limit-D: phone",
                "--data-binary", #"{"_type":"location","lat":51.5,"lon":-0.12,"tst":1700000000}"#,
                "http://127.0.0.1:\(receiver.port)/pub",
            ], in: directory)
        #expect(answer.status == 200)
        #expect(answer.body == "[]")
        let posts = deliveries.posts.withLock { $0 }
        #expect(posts.count == 1)
        #expect(posts.first?.lines.first?.contains(#""topic":"owntracks/jane/phone""#) == true)
    }

    /// The phone is answered only after the run has committed the post: while the delivery
    /// waits, curl has no answer; once it returns, curl gets its 200.
    @Test func theAnswerWaitsForTheCommit() throws {
        let directory = try TemporaryDirectory()
        let deliveries = Deliveries()
        let gate = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        let receiver = try receiver(deliveries) { post in
            entered.signal()
            gate.wait()
            return deliveries.deliver(post)
        }
        defer { receiver.stop() }
        let result = Answer()
        let path = directory.path
        let port = receiver.port
        let thread = Thread {
            let answer = try? curl(
                ["http://127.0.0.1:\(port)/?id=car&lat=1&lon=2&timestamp=1700000000"], inPath: path)
            result.status.withLock { $0 = answer?.status ?? -1 }
        }
        thread.start()
        #expect(entered.wait(timeout: .now() + 60) == .success)
        usleep(300_000)
        let early = result.status.withLock { $0 }
        #expect(early == nil, "answered before the commit")
        gate.signal()
        for _ in 0..<6000 where result.status.withLock({ $0 }) == nil { usleep(10_000) }
        #expect(result.status.withLock { $0 } == 200)
    }

    /// A delivery that could not be committed is answered 503 with Retry-After, so the phone
    /// keeps the fix and posts it again.
    @Test func anUncommittedPostIsAnswered503() throws {
        let directory = try TemporaryDirectory()
        let deliveries = Deliveries()
        deliveries.answer.withLock { $0 = .notCommitted("the store cannot be written") }
        let receiver = try receiver(deliveries)
        defer { receiver.stop() }
        let answer = try curl(
            ["-d", "lat=1&lon=2&time=2024-05-01T10:00:00Z", "http://127.0.0.1:\(receiver.port)/"],
            in: directory)
        #expect(answer.status == 503)
        #expect(answer.body.contains("the store cannot be written"))
    }

    /// With credentials, a post without them is refused 401 and never delivered; basic auth
    /// and a token are accepted.
    @Test func postsWithoutCredentialsAreRefused() throws {
        let directory = try TemporaryDirectory()
        let deliveries = Deliveries()
        let credentials = try HTTPCredentials(text: "jane:pw\nabcdefghijklmnop0123\n", source: "auth")
        let receiver = try receiver(deliveries, credentials: credentials)
        defer { receiver.stop() }
        let url = "http://127.0.0.1:\(receiver.port)/?lat=1&lon=2&timestamp=1700000000"
        #expect(try curl([url], in: directory).status == 401)
        #expect(try curl(["-u", "jane:wrong", url], in: directory).status == 401)
        #expect(deliveries.posts.withLock { $0.isEmpty })
        #expect(try curl(["-u", "jane:pw", url], in: directory).status == 200)
        #expect(
            try curl(["-H", "Authorization: Bearer abcdefghijklmnop0123", url], in: directory).status == 200)
        #expect(deliveries.posts.withLock { $0.map(\.lines) }.count == 2)
        // The basic-auth user names the device when the request does not.
        #expect(deliveries.posts.withLock { $0.first?.lines.first?.contains(#""deviceId":"jane""#) } == true)
    }

    /// A body over the bound is refused 413 and never delivered; a body that cannot be read is
    /// refused 400 with the reason.
    @Test func oversizedAndUnreadableBodiesAreRefused() throws {
        let directory = try TemporaryDirectory()
        let deliveries = Deliveries()
        var limits = HTTPServer.Limits()
        limits.bodyBytes = 1000
        let receiver = try receiver(deliveries, limits: limits)
        defer { receiver.stop() }
        let big =
            #"{"_type":"location","lat":1,"lon":2,"tst":1700000000,"pad":""#
            + String(repeating: "x", count: 5000) + "\"}"
        let url = "http://127.0.0.1:\(receiver.port)/"
        #expect(try curl(["--data-binary", big, url], in: directory).status == 413)
        let bad = try curl(
            ["--data-binary", #"{"_type":"location","lat":1,"tst":1700000000}"#, url], in: directory)
        #expect(bad.status == 400)
        #expect(bad.body.contains("lon"), "\(bad.body)")
        #expect(deliveries.posts.withLock { $0.isEmpty })
    }

    /// Listening beyond this machine without credentials is refused before anything binds.
    @Test func aPublicAddressNeedsCredentials() throws {
        #expect(throws: HTTPServerError.self) {
            _ = try HTTPReceiver(
                settings: .init(address: try HTTPAddress("0.0.0.0:0")), deliver: { _ in .committed },
                note: { _, _ in })
        }
    }
}
