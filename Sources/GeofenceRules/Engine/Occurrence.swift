public import Foundation
public import Geofence

/// Something that happened to one device, as the rules see it: a crossing, a visit, the passing
/// of time, or an engine event.
public struct Occurrence: Sendable, Hashable {
    /// What happened.
    public enum Kind: Sendable, Hashable {
        /// The person arrived at the place (a real crossing, not a first determination).
        case enter
        /// The person left the place.
        case exit
        /// The place's state was determined for the first time (at start, or for a new place): not a
        /// crossing, so enter and exit rules do not fire, but a stay inside starts for dwell.
        case determined(inside: Bool)
        /// A visit started at the place.
        case visitStart
        /// A visit at the place ended.
        case visitEnd
        /// Time has reached `date` (a fix was accepted); lets dwell and commute limits fire.
        case tick
        /// An engine life-cycle event.
        case lifecycle(LifecycleKind)
    }

    /// What happened.
    public var kind: Kind
    /// The place it happened at, for crossings and visits.
    public var place: String?
    /// When it happened: for crossings the estimated real crossing time.
    public var date: Date
    /// Where the person was, if known (the deciding fix or the visit's centre).
    public var coordinate: Coordinate?
    /// The accuracy of that position, in metres.
    public var accuracy: Double?
    /// The device it happened to.
    public var device: String
    /// Free text for engine events (which input paused, why it failed).
    public var detail: String?

    /// Makes an occurrence.
    public init(
        kind: Kind, place: String? = nil, date: Date, coordinate: Coordinate? = nil, accuracy: Double? = nil,
        device: String, detail: String? = nil
    ) {
        self.kind = kind
        self.place = place
        self.date = date
        self.coordinate = coordinate
        self.accuracy = accuracy
        self.device = device
        self.detail = detail
    }
}

/// A commute: from leaving one place to arriving at another, or abandoned on the way.
public struct CommuteRecord: Sendable, Hashable, Codable {
    /// How it ended.
    public enum Status: String, Sendable, Codable {
        /// Arrived at the destination.
        case completed
        /// Came back to the start first, or took longer than the rule's maximum.
        case abandoned
    }

    /// A stable identifier, the same in every replay of the same data.
    public var id: String
    /// The commute rule.
    public var rule: String
    /// The device.
    public var device: String
    /// The place left.
    public var from: String
    /// The place to reach.
    public var to: String
    /// When the person left `from` (the estimated crossing time).
    public var start: Date
    /// When they arrived at `to`; `nil` when abandoned.
    public var end: Date?
    /// Why it was abandoned.
    public var reason: String?
    /// How it ended.
    public var status: Status
    /// The time spent in the stops it was allowed (the rule's `stops:`); `nil` when there was none.
    public var stoppedSeconds: Double?

    /// Seconds from start to end, for completed commutes.
    public var durationSeconds: Double? { end.map { $0.timeIntervalSince(start) } }

    private enum CodingKeys: String, CodingKey {
        case id, rule, device, from, to, start, end, reason, status, durationSeconds, stoppedSeconds
    }

    /// Encodes the value in the form `init(from:)` reads.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(rule, forKey: .rule)
        try container.encode(device, forKey: .device)
        try container.encode(from, forKey: .from)
        try container.encode(to, forKey: .to)
        try container.encode(start, forKey: .start)
        try container.encodeIfPresent(end, forKey: .end)
        try container.encodeIfPresent(durationSeconds, forKey: .durationSeconds)
        try container.encode(status, forKey: .status)
        try container.encodeIfPresent(reason, forKey: .reason)
        try container.encodeIfPresent(stoppedSeconds, forKey: .stoppedSeconds)
    }

    /// Makes a record.
    public init(
        id: String, rule: String, device: String, from: String, to: String, start: Date, end: Date?,
        reason: String?,
        status: Status, stoppedSeconds: Double? = nil
    ) {
        (self.id, self.rule, self.device, self.from, self.to) = (id, rule, device, from, to)
        (self.start, self.end, self.reason, self.status) = (start, end, reason, status)
        self.stoppedSeconds = stoppedSeconds
    }

    /// Decodes and checks a value written by `encode(to:)`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id),
            rule: try container.decode(String.self, forKey: .rule),
            device: try container.decode(String.self, forKey: .device),
            from: try container.decode(String.self, forKey: .from),
            to: try container.decode(String.self, forKey: .to),
            start: try container.decode(Date.self, forKey: .start),
            end: try container.decodeIfPresent(Date.self, forKey: .end),
            reason: try container.decodeIfPresent(String.self, forKey: .reason),
            status: try container.decode(Status.self, forKey: .status),
            stoppedSeconds: try container.decodeIfPresent(Double.self, forKey: .stoppedSeconds))
    }
}

/// An action a rule decided to take, with everything needed to carry it out later and to
/// recognise it again.
public struct FiredAction: Sendable, Hashable, Codable {
    /// What to do: the rule's action as it fired (see ``RuleAction``).
    public typealias Kind = RuleAction

    /// Unique per action: the event id, a slash, the action's index in the rule.
    public var id: String
    /// The event id, the same for every action of one firing and across re-deliveries
    /// (`GEOFENCE_EVENT_ID`).
    public var eventId: String
    /// The rule that fired.
    public var rule: String
    /// What to do.
    public var kind: Kind
    /// What fired it: enter, exit, dwell, visit-start, visit-end, commute, commute-abandoned, or an
    /// engine event.
    public var transition: Transition
    /// The place, where there is one.
    public var place: String?
    /// When the triggering thing happened.
    public var date: Date
    /// Where the person was, if known.
    public var latitude: Double?
    /// Where the person was, if known.
    public var longitude: Double?
    /// Accuracy of that position in metres.
    public var accuracy: Double?
    /// The device.
    public var device: String
    /// A reminder's message, or an engine event's detail.
    public var message: String?
    /// The commute, for commute rules.
    public var commute: CommuteRecord?

    /// Makes an action.
    public init(
        id: String, eventId: String, rule: String, kind: Kind, transition: Transition, place: String?,
        date: Date,
        latitude: Double?, longitude: Double?, accuracy: Double?, device: String, message: String?,
        commute: CommuteRecord?
    ) {
        (self.id, self.eventId, self.rule, self.kind, self.transition) = (id, eventId, rule, kind, transition)
        (self.place, self.date, self.latitude, self.longitude) = (place, date, latitude, longitude)
        (self.accuracy, self.device, self.message, self.commute) = (accuracy, device, message, commute)
    }

    /// Encodes flat: `"action": "run"` with the kind's own fields (`arguments`, `timeoutSeconds`)
    /// beside it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: PayloadKey.self)
        try container.encode(id, forKey: "id")
        try container.encode(eventId, forKey: "eventId")
        try container.encode(rule, forKey: "rule")
        try container.encode(kind.name, forKey: "action")
        try kind.kind.encodePayload(to: &container)
        try container.encode(transition, forKey: "transition")
        try container.encodeIfPresent(place, forKey: "place")
        try container.encode(date, forKey: "date")
        try container.encodeIfPresent(latitude, forKey: "latitude")
        try container.encodeIfPresent(longitude, forKey: "longitude")
        try container.encodeIfPresent(accuracy, forKey: "accuracy")
        try container.encode(device, forKey: "device")
        try container.encodeIfPresent(message, forKey: "message")
        try container.encodeIfPresent(commute, forKey: "commute")
    }

    /// Decodes and checks a value written by `encode(to:)`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: PayloadKey.self)
        id = try container.decode(String.self, forKey: "id")
        eventId = try container.decode(String.self, forKey: "eventId")
        rule = try container.decode(String.self, forKey: "rule")
        message = try container.decodeIfPresent(String.self, forKey: "message")
        let name = try container.decode(String.self, forKey: "action")
        guard let type = ActionKindList.all.first(where: { $0.name.rawValue == name }) else {
            throw DecodingError.dataCorruptedError(
                forKey: "action", in: container, debugDescription: "unknown action \(name)")
        }
        kind = try type.init(payload: container, message: message).action
        let transitionName = try container.decode(String.self, forKey: "transition")
        guard let transition = Transition(rawValue: transitionName) else {
            throw DecodingError.dataCorruptedError(
                forKey: "transition", in: container, debugDescription: "unknown transition \(transitionName)")
        }
        self.transition = transition
        place = try container.decodeIfPresent(String.self, forKey: "place")
        date = try container.decode(Date.self, forKey: "date")
        latitude = try container.decodeIfPresent(Double.self, forKey: "latitude")
        longitude = try container.decodeIfPresent(Double.self, forKey: "longitude")
        accuracy = try container.decodeIfPresent(Double.self, forKey: "accuracy")
        device = try container.decode(String.self, forKey: "device")
        commute = try container.decodeIfPresent(CommuteRecord.self, forKey: "commute")
    }
}

/// Stable identifiers from content, so that the same input always gives the same ids (replay and
/// at-least-once delivery rely on it): 128 bits of FNV-1a over the parts as if joined with U+001F
/// between them, as 32 hex digits. The parts are hashed as they are added, so an id costs no
/// joined text, no array of parts and no text for a time.
struct StableID {
    private var a: UInt64 = 0xcbf2_9ce4_8422_2325
    private var b: UInt64 = 0x6c62_272e_07bb_0142
    private var isEmpty = true

    /// Adds a part.
    mutating func add(_ part: String) {
        separate()
        var part = part
        part.withUTF8 { bytes in for byte in bytes { mix(byte) } }
    }

    /// Adds a time as a part: its Unix milliseconds, rounded, in decimal digits (`-` first when
    /// negative). Readers bound every time (GeofenceInput's TimeBounds), but an id must not trap on
    /// a date built some other way (an API caller's `Date.distantFuture`, a decoded state): one
    /// too large for 64 bits is added as `%.0f` writes it.
    mutating func add(milliseconds date: Date) {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        guard let whole = Int64(exactly: milliseconds) else {
            return add(String(format: "%.0f", milliseconds))
        }
        separate()
        if whole < 0 { mix(UInt8(ascii: "-")) }
        // The digits are found from the last, two at a time by constant divisions
        // (multiplications), into memory read without bounds checks, and mixed from the first:
        // dividing by a power of ten held in a variable, twice a digit, was a hardware division
        // each time, a thirteen-digit time costing hundreds of cycles.
        var rest = whole.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            guard let digits = buffer.baseAddress else { return }
            var start = 20
            while rest >= 100 {
                let pair = UInt8(truncatingIfNeeded: rest % 100)
                rest /= 100
                let tens = pair / 10
                digits[start - 1] = UInt8(ascii: "0") + pair - 10 * tens
                digits[start - 2] = UInt8(ascii: "0") + tens
                start -= 2
            }
            if rest >= 10 {
                let tens = UInt8(truncatingIfNeeded: rest / 10)
                digits[start - 1] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest) - 10 * tens
                digits[start - 2] = UInt8(ascii: "0") + tens
                start -= 2
            } else {
                digits[start - 1] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest)
                start -= 1
            }
            for index in start..<20 { mix(digits[index]) }
        }
    }

    /// The id: the two hashes as 32 lowercase hexadecimal digits, each zero-padded to 16.
    var text: String {
        String(unsafeUninitializedCapacity: Self.textLength) { buffer in
            write(into: buffer)
            return Self.textLength
        }
    }

    /// The length of ``text``.
    static let textLength = 32

    /// Writes ``text`` into the first ``textLength`` bytes of `buffer`, eight digits at a time.
    func write(into buffer: UnsafeMutableBufferPointer<UInt8>) {
        precondition(buffer.count >= Self.textLength, "room for the id's digits")
        guard let base = buffer.baseAddress else { return }
        let raw = UnsafeMutableRawPointer(base)
        raw.storeBytes(of: Self.hexDigits(a >> 32).littleEndian, toByteOffset: 0, as: UInt64.self)
        raw.storeBytes(of: Self.hexDigits(a & 0xFFFF_FFFF).littleEndian, toByteOffset: 8, as: UInt64.self)
        raw.storeBytes(of: Self.hexDigits(b >> 32).littleEndian, toByteOffset: 16, as: UInt64.self)
        raw.storeBytes(of: Self.hexDigits(b & 0xFFFF_FFFF).littleEndian, toByteOffset: 24, as: UInt64.self)
    }

    /// The eight hexadecimal digits of the 32 bits of `value`, the first (most significant) in
    /// the lowest byte.
    @inline(__always)
    private static func hexDigits(_ value: UInt64) -> UInt64 {
        // Each nibble moved into a byte of its own, the lowest nibble into the lowest byte...
        var nibbles = (value | value << 16) & 0x0000_FFFF_0000_FFFF
        nibbles = (nibbles | nibbles << 8) & 0x00FF_00FF_00FF_00FF
        nibbles = (nibbles | nibbles << 4) & 0x0F0F_0F0F_0F0F_0F0F
        // ...then the bytes turned round, so that the most significant comes first.
        nibbles = nibbles.byteSwapped
        // '0' + n, and 39 more ('a' - '0' - 10) where n is 10 or more (n + 6 carries into 0x10).
        let letters = ((nibbles &+ 0x0606_0606_0606_0606) & 0x1010_1010_1010_1010) >> 4
        return nibbles &+ 0x3030_3030_3030_3030 &+ letters &* 39
    }

    private mutating func separate() {
        if !isEmpty { mix(0x1F) }
        isEmpty = false
    }

    private mutating func mix(_ byte: UInt8) {
        a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        b = (b ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 ^ (a >> 29)
    }
}
