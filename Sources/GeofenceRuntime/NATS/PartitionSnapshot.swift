import Foundation
import GeofenceRules

/// The format of a partition's snapshot in the bucket: one key per device and one marker.
///
/// `snap.P.DEVICE` holds a ``DeviceRecord``: the device's whole engine state and the stream
/// sequence through which it has applied the partition's messages. `mark.P` holds a ``Marker``,
/// the sequence every device record of the partition covers, written after them. An engine taking
/// the partition over restores every device record, reads the stream from the marker's sequence
/// plus one, and skips, for each device, the messages its record already covers: a snapshot cut
/// short by a crash (some devices written, the marker not) still restores exactly.
enum PartitionSnapshot {
    /// One device's state with the last stream sequence applied to it.
    struct DeviceRecord: Codable, Sendable {
        /// The format's version, to refuse a record a later geofence wrote differently.
        var version = 1
        var device: String
        var sequence: UInt64
        var state: DeviceEngine
    }

    /// The sequence a whole partition's snapshot covers.
    struct Marker: Codable, Sendable, Equatable {
        var version = 1
        var sequence: UInt64
        /// The engine that wrote it, for people reading the bucket.
        var engine: String
    }

    static func deviceKey(partition: Int, device: String) -> String {
        "snap.\(partition).\(NATSNames.keyToken(device: device))"
    }

    static func deviceFilter(partition: Int) -> String { "snap.\(partition).>" }

    static func markerKey(partition: Int) -> String { "mark.\(partition)" }

    static func leaseKey(partition: Int) -> String { "lease.\(partition)" }

    static func memberKey(engine: String) -> String { "member.\(NATSNames.keyToken(device: engine))" }

    static let configKey = "config.partitions"

    static func encode(_ record: DeviceRecord) throws -> [UInt8] {
        Array(try EngineJSON.stateEncoder().encode(record))
    }

    static func encode(_ marker: Marker) throws -> [UInt8] {
        Array(try EngineJSON.stateEncoder().encode(marker))
    }

    /// Reads a device record; throws, naming the key, on a record this version cannot use.
    static func deviceRecord(_ bytes: [UInt8], key: String) throws -> DeviceRecord {
        let record: DeviceRecord
        do {
            record = try EngineJSON.stateDecoder().decode(DeviceRecord.self, from: Data(bytes))
        } catch {
            throw NATSError("reading the snapshot \(key)", message: "\(error)")
        }
        guard record.version == 1 else {
            throw NATSError(
                "reading the snapshot \(key)", message: "format version \(record.version) is not 1")
        }
        return record
    }

    /// Reads a marker; throws, naming the key, on one this version cannot use.
    static func marker(_ bytes: [UInt8], key: String) throws -> Marker {
        let marker: Marker
        do {
            marker = try EngineJSON.stateDecoder().decode(Marker.self, from: Data(bytes))
        } catch {
            throw NATSError("reading the snapshot marker \(key)", message: "\(error)")
        }
        guard marker.version == 1 else {
            throw NATSError("reading \(key)", message: "format version \(marker.version) is not 1")
        }
        return marker
    }

    /// The devices a restored partition holds and the sequence each has applied, with the
    /// sequence reading resumes after.
    struct Restored: Sendable {
        var devices: [String: DeviceEngine] = [:]
        var sequences: [String: UInt64] = [:]
        var resumeAfter: UInt64 = 0
    }

    /// Puts a partition's records together. A record of another partition's key space is an error
    /// (it would mean two partitions claim one device).
    static func restore(marker: Marker?, records: [DeviceRecord]) -> Restored {
        var restored = Restored()
        restored.resumeAfter = marker?.sequence ?? 0
        for record in records {
            restored.devices[record.device] = record.state
            restored.sequences[record.device] = record.sequence
        }
        return restored
    }

    /// Whether a message at `sequence` for `device` is already in the restored state.
    static func covers(_ sequences: [String: UInt64], device: String, sequence: UInt64) -> Bool {
        (sequences[device] ?? 0) >= sequence
    }
}
