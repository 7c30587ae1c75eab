/// The member names the NDJSON and OwnTracks readers look at; every other member is skipped.
///
/// Looking names up in this fixed set while scanning avoids making a `String` for each key, which
/// is most of what a general JSON decoder spends its time on for small flat objects.
enum JSONKey: Int, CaseIterable {
    case type, ownTracksType, latitude, longitude, lat, lon, timestamp, time, tst
    case horizontalAccuracy, accuracy, acc, altitude, alt, verticalAccuracy, vac
    case speed, vel, course, bearing, cog, floor, deviceId, deviceIdSnake, label, tid, topic
    case arrival, departure, event, desc, wtst, trigger

    /// The member name as written in JSON.
    var name: String { JSONKey.names[rawValue] }

    private static let names: [String] = [
        "type", "_type", "latitude", "longitude", "lat", "lon", "timestamp", "time", "tst",
        "horizontalAccuracy", "accuracy", "acc", "altitude", "alt", "verticalAccuracy", "vac",
        "speed", "vel", "course", "bearing", "cog", "floor", "deviceId", "device_id", "label", "tid",
        "topic", "arrival", "departure", "event", "desc", "wtst", "t",
    ]

    /// The names' UTF-8 bytes grouped by length, so a lookup compares against only a few.
    private static let byLength: [[(bytes: [UInt8], key: JSONKey)]] = {
        var table = [[(bytes: [UInt8], key: JSONKey)]](repeating: [], count: 20)
        for key in JSONKey.allCases {
            let bytes = Array(key.name.utf8)
            table[bytes.count].append((bytes, key))
        }
        return table
    }()

    /// The key spelled by the unescaped bytes `bytes[start..<end]`, if it is one of ours.
    static func lookUp(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> JSONKey? {
        let length = end - start
        guard length > 0, length < byLength.count else { return nil }
        candidates: for candidate in byLength[length] {
            for offset in 0..<length where candidate.bytes[offset] != bytes[start + offset] {
                continue candidates
            }
            return candidate.key
        }
        return nil
    }

    /// The key with this name, for keys written with escapes (rare enough to take the slow way).
    static func lookUp(name: String) -> JSONKey? {
        JSONKey.allCases.first { $0.name == name }
    }
}
