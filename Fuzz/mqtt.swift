import Foundation
import GeofenceInput

@testable import GeofenceRuntime

/// The secret the encrypted inputs are sealed with, and the keys that open them.
private let secret = "fuzz secret"
private let keys = (try? OwnTracksKeys(text: "\(secret)\n", source: "fuzz")) ?? OwnTracksKeys()
/// Topics as brokers deliver them: a device's, its event subtopic, too short, empty, odd bytes.
private let topics = [
    "owntracks/jane/phone", "owntracks/jane/phone/event", "owntracks/jane/phone/waypoints", "owntracks",
    "", "owntracks/j\"a\\n\u{0}e/ph\u{2028}one",
]

/// libFuzzer entry: one MQTT message as `MQTTInput` reads it. The first byte picks the topic (low
/// bits) and whether the rest is sealed with the key first (high bit), so that decrypted payloads
/// are fuzzed too, not only ones that fail to open; the payload is opened with ``OwnTracksKeys``,
/// given its topic by ``OwnTracksMessage/line(payload:topic:)`` and decoded by the OwnTracks
/// ``StreamDecoder``, as the run does. It must return, never trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMQTT(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let topic = topics[Int(data[0] & 0x7F) % topics.count]
    var payload = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    if data[0] & 0x80 != 0 { payload = OwnTracksKeys.seal(payload, secret: secret) }
    switch keys.open(payload, device: OwnTracksMessage.device(topic: topic)) {
    case .plain: break
    case .decrypted(let clear): payload = clear
    case .noKey, .failed: return 0
    }
    var decoder = StreamDecoder(format: .owntracks, source: "mqtt", timeZone: .gmt)
    let line = OwnTracksMessage.line(payload: payload, topic: topic)
    _ = decoder.decode(line, number: 1).count + decoder.finish().count
    return 0
}
