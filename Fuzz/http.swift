import Foundation
import GeofenceInput

@testable import GeofenceRuntime

/// The secret encrypted OwnTracks bodies are sealed with, and the keys that open them.
private let secret = "fuzz secret"
private let keys = (try? OwnTracksKeys(text: "\(secret)\n", source: "fuzz")) ?? OwnTracksKeys()

/// The receiver `run --http` uses, on a loopback port it never reads: requests are handed to its
/// ``HTTPReceiver/handle(_:)`` directly, and each delivered post is decoded as ``HTTPInput``
/// decodes it for the run.
private let receiver: HTTPReceiver? = {
    guard let address = try? HTTPAddress("127.0.0.1:0") else { return nil }
    return try? HTTPReceiver(
        settings: HTTPReceiver.Settings(address: address), keys: keys,
        deliver: { post in
            var decoder = StreamDecoder(lines: LineDecoder(format: .auto, source: "http", timeZone: .gmt))
            for (index, line) in post.lines.enumerated() { _ = decoder.decode(line, number: index + 1) }
            _ = decoder.finish()
            return .committed
        }, note: { _, _ in })
}()

/// libFuzzer entry: one request to the HTTP receiver. The first byte picks how the rest arrives:
/// as the body of an OwnTracks post (with `X-Limit-U`/`X-Limit-D` headers), of a post naming no
/// one (Overland, Traccar Client), as a query string (OsmAnd, GPSLogger, Traccar before 9, split
/// as a form body is), or as an OwnTracks body sealed with the key first, so that decrypted
/// bodies are fuzzed too. It must return, never trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0, let receiver else { return 0 }
    var body = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    var headers = ["content-type": "application/json"]
    var query: [(name: String, value: String)] = []
    switch data[0] % 4 {
    case 0: headers["x-limit-u"] = "jane"; headers["x-limit-d"] = "phone"
    case 1: break
    case 2:
        query = HTTPRequest.formArguments(String(decoding: body, as: UTF8.self))
        body = []
        headers = [:]
    default:
        headers["x-limit-u"] = "jane"; headers["x-limit-d"] = "phone"
        body = OwnTracksKeys.seal(body, secret: secret)
    }
    let request = HTTPRequest(method: "POST", path: "/pub", query: query, headers: headers, body: body)
    _ = receiver.handle(request).status
    return 0
}
