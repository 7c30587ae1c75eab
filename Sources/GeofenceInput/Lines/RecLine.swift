import Foundation

/// OwnTracks Recorder `.rec` lines.
///
/// The Recorder writes each message it stores as `printf("%s\t%-18s\t%s\n", isotime, reltopic,
/// payload)`: the time (`tst` of the payload, else the time of receipt) as `YYYY-MM-DDTHH:MM:SSZ`,
/// the topic relative to `owntracks/USER/DEVICE` padded with spaces to 18 characters (`*` for
/// the base topic, e.g. `event` or `info` for sub-topics), and the payload as received.
enum RecLine {
    struct Parts {
        var seconds: Double
        var topic: String
        var payloadStart: Int
        var payloadEnd: Int
    }

    struct Problem: Error {
        var column: Int
        var message: String
        var kind: RecordError.Kind
    }

    /// Whether the line starts with a time and a tab, the shape no JSON or CSV line has.
    static func looksLikeOne(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        guard let tab = firstTab(bytes, start, end), tab - start >= 16 else { return false }
        return TimeText.parse(bytes, start, tab, zone: utc) != nil
    }

    static func split(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Result<Parts, Problem>
    {
        guard let firstTab = firstTab(bytes, start, end),
            let secondTab = self.firstTab(bytes, firstTab + 1, end)
        else {
            return .failure(
                Problem(
                    column: 1, message: "an OwnTracks Recorder line is time<TAB>topic<TAB>payload",
                    kind: .malformed))
        }
        guard let seconds = TimeText.parse(bytes, start, firstTab, zone: utc) else {
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<firstTab]), as: UTF8.self)
            return .failure(
                Problem(column: 1, message: "\"\(text)\" is not an ISO 8601 time", kind: .invalidField))
        }
        guard TimeBounds.contains(seconds) else {
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<firstTab]), as: UTF8.self)
            return .failure(
                Problem(column: 1, message: "\"\(text)\" \(TimeBounds.reason(seconds))", kind: .invalidField))
        }
        let topic = String(
            decoding: UnsafeBufferPointer(rebasing: bytes[firstTab + 1..<secondTab]), as: UTF8.self
        )
        .trimmingCharacters(in: .whitespaces)
        var payloadStart = secondTab + 1
        while payloadStart < end, LineBytes.isSpace(bytes[payloadStart]) { payloadStart += 1 }
        return .success(Parts(seconds: seconds, topic: topic, payloadStart: payloadStart, payloadEnd: end))
    }

    private static let utc = LocalZone(.gmt)

    private static func firstTab(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int? {
        var index = start
        while index < end {
            if bytes[index] == UInt8(ascii: "\t") { return index }
            index += 1
        }
        return nil
    }
}
