/// The member names the NDJSON and OwnTracks readers look at; every other member is skipped.
///
/// Looking names up in this fixed set while scanning avoids making a `String` for each key, which
/// is most of what a general JSON decoder spends its time on for small flat objects.
enum JSONKey: Int, CaseIterable {
    // At most 64 keys: a scan marks the slots it filled in the bits of one word.
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

    /// A name as up to 24 bytes in three integers (little-endian, zero past its end) and its
    /// length: two names are the same exactly when these are.
    private struct Packed: Equatable {
        var length: Int
        var words: (UInt64, UInt64, UInt64)

        static func == (a: Packed, b: Packed) -> Bool {
            a.length == b.length && a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2
        }

        init(length: Int, words: (UInt64, UInt64, UInt64)) {
            self.length = length
            self.words = words
        }

        /// The name in `bytes[start..<end]`, which must be 1 to 24 bytes long.
        init(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int) {
            let length = end - start
            self.length = length
            // Whole words are loaded where the buffer has them (a name is followed by at least its
            // quote, colon and value, so it nearly always does) and the bytes past the name masked
            // off; near the buffer's end the bytes are copied one by one.
            if let base = bytes.baseAddress, start + (length + 7) & ~7 <= bytes.count {
                func word(_ index: Int) -> UInt64 {
                    let count = length - 8 * index
                    guard count > 0 else { return 0 }
                    let loaded = (base + start + 8 * index).loadUnaligned(as: UInt64.self)
                    guard count < 8 else { return loaded }
                    // The name's first bytes are the low ones of the little-endian value.
                    return (UInt64(littleEndian: loaded) & (1 << UInt64(8 * count) - 1)).littleEndian
                }
                words = (word(0), word(1), word(2))
                return
            }
            var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
            withUnsafeMutableBytes(of: &words) { out in
                out.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
            }
            self.words = words
        }

        /// The slot of a name in a table of `1 << bits` slots, for the multiplier `multiplier`.
        func slot(_ multiplier: UInt64, bits: Int) -> Int {
            let mixed = words.0 ^ (words.1 &* 31) ^ (words.2 &* 961) ^ UInt64(length)
            return Int((mixed &* multiplier) >> UInt64(64 - bits))
        }
    }

    /// The longest name a lookup can match, in bytes (the table packs at most 24).
    private static let longest = 24

    /// A perfect hash of the names: `slots` has a place for each name that no other shares, found
    /// by trying multipliers until none collide, so a lookup is one multiplication and one
    /// comparison, with nothing to count references of.
    private struct Table {
        static let bits = 8
        var multiplier: UInt64 = 0
        var slots: [(Packed, Int8)]

        init() {
            let names = JSONKey.allCases.map { key -> Packed in
                let bytes = Array(key.name.utf8)
                return bytes.withUnsafeBytes { Packed($0, 0, bytes.count) }
            }
            var candidate: UInt64 = 0x9E37_79B9_7F4A_7C15
            let empty = (Packed(length: 0, words: (0, 0, 0)), Int8(-1))
            while true {
                var slots = [(Packed, Int8)](repeating: empty, count: 1 << Table.bits)
                var collided = false
                for (index, name) in names.enumerated() {
                    let slot = name.slot(candidate, bits: Table.bits)
                    if slots[slot].1 >= 0 {
                        collided = true
                        break
                    }
                    slots[slot] = (name, Int8(index))
                }
                if !collided {
                    multiplier = candidate
                    self.slots = slots
                    return
                }
                // The next odd multiplier (a step of the golden-ratio sequence).
                candidate = (candidate &+ 0x9E37_79B9_7F4A_7C15) | 1
            }
        }
    }

    private static let table = Table()

    /// The key spelled by the unescaped bytes `bytes[start..<end]`, if it is one of ours.
    static func lookUp(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> JSONKey? {
        let length = end - start
        guard length > 0, length <= longest else { return nil }
        let name = Packed(UnsafeRawBufferPointer(bytes), start, end)
        let table = JSONKey.table
        let (packed, index) = table.slots[name.slot(table.multiplier, bits: Table.bits)]
        guard index >= 0, packed == name else { return nil }
        return JSONKey(rawValue: Int(index))
    }

    /// The key with this name, for keys written with escapes (rare enough to take the slow way).
    static func lookUp(name: String) -> JSONKey? {
        JSONKey.allCases.first { $0.name == name }
    }
}
