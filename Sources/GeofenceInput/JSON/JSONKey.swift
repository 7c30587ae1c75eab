/// The member names the NDJSON and OwnTracks readers look at; every other member is skipped.
///
/// Looking names up in this fixed set while scanning avoids making a `String` for each key, which
/// is most of what a general JSON decoder spends its time on for small flat objects.
enum JSONKey: Int, CaseIterable {
    case type, ownTracksType, latitude, longitude, lat, lon, timestamp, time, tst
    case horizontalAccuracy, accuracy, acc, altitude, alt, verticalAccuracy, vac
    case speed, vel, course, bearing, cog, floor, deviceId, deviceIdSnake, label, tid, topic
    case arrival, departure, event, desc, wtst, trigger, monitoringMode, inregions

    /// The member name as written in JSON.
    var name: String { JSONKey.names[rawValue] }

    private static let names: [String] = [
        "type", "_type", "latitude", "longitude", "lat", "lon", "timestamp", "time", "tst",
        "horizontalAccuracy", "accuracy", "acc", "altitude", "alt", "verticalAccuracy", "vac",
        "speed", "vel", "course", "bearing", "cog", "floor", "deviceId", "device_id", "label", "tid",
        "topic", "arrival", "departure", "event", "desc", "wtst", "t", "m", "inregions",
    ]

    /// One entry per key: its length and first eight bytes packed into an integer, so that a
    /// lookup is a scan of plain integers with no reference counting, and a byte comparison only
    /// for the rest of a longer name.
    private struct Entry {
        var length: Int
        var prefix: UInt64
        var bytes: [UInt8]
        var key: JSONKey
    }

    private static let entries: [Entry] = JSONKey.allCases.map { key in
        let bytes = Array(key.name.utf8)
        var prefix: UInt64 = 0
        for (index, byte) in bytes.prefix(8).enumerated() { prefix |= UInt64(byte) << (8 * UInt64(index)) }
        return Entry(length: bytes.count, prefix: prefix, bytes: bytes, key: key)
    }

    /// The key spelled by the unescaped bytes `bytes[start..<end]`, if it is one of ours.
    static func lookUp(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> JSONKey? {
        let length = end - start
        var prefix: UInt64 = 0
        for index in 0..<min(length, 8) { prefix |= UInt64(bytes[start + index]) << (8 * UInt64(index)) }
        return entries.withUnsafeBufferPointer { table in
            for entry in table where entry.length == length && entry.prefix == prefix {
                if length <= 8 { return entry.key }
                var same = true
                for index in 8..<length where entry.bytes[index] != bytes[start + index] {
                    same = false
                    break
                }
                if same { return entry.key }
            }
            return nil
        }
    }

    /// The key with this name, for keys written with escapes (rare enough to take the slow way).
    static func lookUp(name: String) -> JSONKey? {
        JSONKey.allCases.first { $0.name == name }
    }
}
