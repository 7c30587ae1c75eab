import Foundation

/// How `geofence run --nats` finds its streams, shares partitions and keeps snapshots.
///
/// Fixes are published by trackers (or NATS's MQTT gateway) on `owntracks.USER.DEVICE`; the
/// server's subject mapping (see ``subjectMapping``) rewrites each to
/// `geofence.fix.P.USER.DEVICE`, P being a hash of USER and DEVICE modulo ``partitions``, so one
/// device is always in one partition and a partition's messages stay in stream order.
public struct NATSSettings: Sendable, Equatable {
    /// Server URLs: one or more, comma-separated on the command line (`nats://HOST:PORT`).
    public var servers: [String]
    /// How many partitions the server's mapping makes; the first engine records it in the bucket
    /// and later engines refuse to start with another count.
    public var partitions: Int = 8
    /// This engine's name in leases and logs; unique among the engines sharing the partitions.
    public var engineID: String
    /// How long a lease lasts without renewal before another engine may take the partition.
    public var leaseSeconds: Double = 10
    /// How often a partition's changed device states are written to the bucket.
    public var snapshotSeconds: Double = 5
    /// Copies of the streams and the bucket the cluster keeps (3 on a three-node cluster).
    public var replicas: Int = 1
    /// How long JetStream remembers an event or action id, to drop a repeat after a fail-over.
    public var duplicateWindowSeconds: Double = 3600

    /// The stream the fixes are stored in.
    public var fixStream = "GEOFENCE_FIXES"
    /// The subject prefix the mapping writes fixes to (`PREFIX.P.USER.DEVICE`).
    public var fixPrefix = "geofence.fix"
    /// The stream committed events and actions are published to.
    public var outputStream = "GEOFENCE_OUT"
    /// The subject prefix of committed output: `PREFIX.event.USER.DEVICE`, `PREFIX.action.USER.DEVICE`.
    public var outputPrefix = "geofence.out"
    /// The key-value bucket holding leases, members and snapshots.
    public var bucket = "GEOFENCE"

    /// Settings for `servers`, with this engine called `engineID`.
    public init(servers: [String], engineID: String) {
        self.servers = servers
        self.engineID = engineID
    }

    /// Reads `nats://HOST:PORT[,nats://HOST:PORT...]` (a missing scheme means nats://, a missing
    /// port 4222).
    public static func servers(fromURL text: String) throws -> [String] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty }) else {
            throw NATSError("reading --nats", message: "no server in '\(text)'")
        }
        return try parts.map { part in
            var url = part.contains("://") ? part : "nats://" + part
            guard let components = URLComponents(string: url), let scheme = components.scheme,
                ["nats", "tls"].contains(scheme), let host = components.host, !host.isEmpty
            else {
                throw NATSError(
                    "reading --nats",
                    message: "'\(part)' is not a NATS URL (nats://HOST:PORT or tls://HOST:PORT)")
            }
            if components.port == nil { url += ":4222" }
            return url
        }
    }

    /// The server configuration line that partitions the OwnTracks subjects for these settings:
    /// `owntracks.USER.DEVICE` to `geofence.fix.{{partition(N,1,2)}}.USER.DEVICE`.
    public var subjectMapping: String {
        "\"owntracks.*.*\": \"\(fixPrefix).{{partition(\(partitions),1,2)}}.{{wildcard(1)}}.{{wildcard(2)}}\""
    }

    /// The subjects of one partition's fixes.
    func fixFilter(partition: Int) -> String { "\(fixPrefix).\(partition).>" }

    /// The durable consumer reading one partition (the same name for every engine that owns it).
    func consumerName(partition: Int) -> String { "geofence-p\(partition)" }
}

/// Where a fix came from, read off its subject `geofence.fix.P.USER.DEVICE`.
struct FixSubject: Sendable, Equatable {
    /// The partition the mapping put it in.
    var partition: Int
    /// The device, `USER/DEVICE`, as geofence names OwnTracks devices.
    var device: String

    /// The MQTT topic the same message has on OwnTracks's broker, for the decoder.
    var ownTracksTopic: String { "owntracks/\(device)" }

    /// A fix subject's parts.
    init(partition: Int, device: String) {
        self.partition = partition
        self.device = device
    }

    /// Reads `subject` under `prefix`, or `nil` if it is not a fix subject.
    init?(_ subject: String, prefix: String) {
        guard subject.hasPrefix(prefix + ".") else { return nil }
        let tokens = subject.dropFirst(prefix.count + 1).split(
            separator: ".", omittingEmptySubsequences: false)
        guard tokens.count == 3, let partition = Int(tokens[0]), partition >= 0, !tokens[1].isEmpty,
            !tokens[2].isEmpty
        else { return nil }
        self.partition = partition
        device = "\(tokens[1])/\(tokens[2])"
    }
}

/// Subjects and keys built from device names, which may hold characters NATS subjects and keys
/// refuse.
enum NATSNames {
    /// `PREFIX.KIND.USER.DEVICE` for `USER/DEVICE`; a device of another shape becomes one token.
    /// Characters a subject token cannot hold (`.`, `*`, `>`, spaces) become `_`.
    static func outputSubject(prefix: String, kind: String, device: String) -> String {
        let parts = device.split(separator: "/", omittingEmptySubsequences: false)
        let tokens = parts.count == 2 && !parts.contains(where: \.isEmpty) ? parts.map(String.init) : [device]
        return ([prefix, kind] + tokens.map(token)).joined(separator: ".")
    }

    private static func token(_ text: String) -> String {
        let cleaned = String(
            text.unicodeScalars.map { scalar -> Character in
                switch scalar {
                case ".", "*", ">", " ", "\t", "\r", "\n": "_"
                default: Character(scalar)
                }
            })
        return cleaned.isEmpty ? "_" : cleaned
    }

    /// A key-value key token for `device`: base64url without padding (keys allow only
    /// `[-/_=.a-zA-Z0-9]`), so every device name has exactly one key and back.
    static func keyToken(device: String) -> String {
        Data(device.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The device a ``keyToken(device:)`` stands for, or `nil` if it is none.
    static func device(keyToken token: String) -> String? {
        var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).flatMap { String(data: $0, encoding: .utf8) }
    }
}
