/// Splits a line as `mosquitto_sub -v` prints it, `owntracks/jane/phone {"_type":"location",...}`:
/// the topic, a space, the payload.
///
/// The payload of an OwnTracks message does not name its device; the topic does. Without `-v`,
/// a pipe from `mosquitto_sub` gives only the tracker id (`tid`), and the phone would be a
/// different device than over MQTT; with `-v`, the topic names it `USER/DEVICE`, as MQTT does.
enum TopicLine {
    /// Where the topic and the payload are in `bytes[start..<end]` (trimmed), when the line is a
    /// topic with at least one `/` and no spaces, a space, then a JSON object.
    static func split(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> (
        topic: String, payloadStart: Int
    )? {
        guard start < end, bytes[start] != UInt8(ascii: "{") else { return nil }
        var i = start
        var sawSlash = false
        while i < end, bytes[i] != UInt8(ascii: " ") {
            let byte = bytes[i]
            // A topic is printable text; a tab or a quote means this is something else (a
            // Recorder line, CSV).
            guard byte > 0x20, byte != UInt8(ascii: "\""), byte != UInt8(ascii: ",") else { return nil }
            if byte == UInt8(ascii: "/") { sawSlash = true }
            i += 1
        }
        guard sawSlash, i < end else { return nil }
        let topicEnd = i
        while i < end, bytes[i] == UInt8(ascii: " ") { i += 1 }
        guard i < end, bytes[i] == UInt8(ascii: "{") else { return nil }
        let topic = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<topicEnd]), as: UTF8.self)
        return (topic, i)
    }
}
