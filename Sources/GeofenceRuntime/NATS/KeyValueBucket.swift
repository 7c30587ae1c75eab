import CNATS
import Foundation

/// A JetStream key-value bucket: leases and snapshots live here, each key with a revision that
/// compare-and-set updates check.
final class KeyValueBucket: @unchecked Sendable {
    /// `kvStore *`.
    private let store: OpaquePointer
    /// The bucket's name.
    let name: String

    /// A key's value and the revision that wrote it.
    struct Entry: Sendable, Equatable {
        var key: String
        var value: [UInt8]
        var revision: UInt64
    }

    init(store: OpaquePointer, name: String) {
        self.store = store
        self.name = name
    }

    deinit {
        kvStore_Destroy(store)
    }

    /// The value of `key`, or `nil` if it has none (never written, or deleted).
    func get(_ key: String) throws(NATSError) -> Entry? {
        var entry: OpaquePointer?
        let status = kvStore_Get(&entry, store, key)
        if status == NATS_NOT_FOUND { return nil }
        try check(status, "reading \(key) from \(name)")
        guard let entry else { return nil }
        defer { kvEntry_Destroy(entry) }
        return Self.entry(entry)
    }

    /// Writes `key` whatever its revision; returns the new revision.
    @discardableResult
    func put(_ key: String, _ value: [UInt8]) throws(NATSError) -> UInt64 {
        var revision: UInt64 = 0
        let status = value.withUnsafeBytes {
            kvStore_Put(&revision, store, key, $0.baseAddress, Int32($0.count))
        }
        try check(status, "writing \(key) to \(name)")
        return revision
    }

    /// Writes `key` only if it has no value; returns the new revision, or `nil` if it has one.
    func create(_ key: String, _ value: [UInt8]) throws(NATSError) -> UInt64? {
        var revision: UInt64 = 0
        let status = value.withUnsafeBytes {
            kvStore_Create(&revision, store, key, $0.baseAddress, Int32($0.count))
        }
        if status == NATS_OK { return revision }
        // The library reports "key exists" as a plain error; tell it from a failure by looking.
        if try get(key) != nil { return nil }
        try check(status, "creating \(key) in \(name)")
        return nil
    }

    /// Writes `key` only if its revision is still `revision`; returns the new revision, or `nil`
    /// if someone else wrote it since.
    func update(_ key: String, _ value: [UInt8], revision: UInt64) throws(NATSError) -> UInt64? {
        var newRevision: UInt64 = 0
        let status = value.withUnsafeBytes {
            kvStore_Update(&newRevision, store, key, $0.baseAddress, Int32($0.count), revision)
        }
        if status == NATS_OK { return newRevision }
        if let current = try get(key), current.revision != revision { return nil }
        if try get(key) == nil { return nil }
        try check(status, "updating \(key) in \(name)")
        return nil
    }

    /// The subject a put of `key` is published on (`$KV.BUCKET.KEY`), for writing many keys at
    /// once through ``JetStream/publishAsync(subject:payload:messageID:)``.
    func subject(_ key: String) -> String { "$KV.\(name).\(key)" }

    /// Deletes `key` (a delete marker; a later ``create(_:_:)`` succeeds).
    func delete(_ key: String) throws(NATSError) {
        try check(kvStore_Delete(store, key), "deleting \(key) from \(name)")
    }

    /// Every key matching `filter` with its value, found without a watcher: the keys from the
    /// bucket's stream info, then each read directly (answered by any replica).
    ///
    /// A watcher would stream them through an ephemeral consumer instead, but while a node of the
    /// cluster is lost about a third of new ephemeral consumers are placed on it and never
    /// answer (see ``JetStream/subjects(in:matching:)``): the members could not be listed nor a
    /// partition's snapshot read just when a takeover is needed. One direct read a key costs a
    /// round trip each (a partition of a few hundred devices restores in well under a second).
    /// A key deleted between the two steps is left out.
    func lookUp(matching filter: String, in jetStream: JetStream) throws(NATSError) -> [Entry] {
        let prefix = subject("")
        var result: [Entry] = []
        for subject in try jetStream.subjects(in: "KV_" + name, matching: self.subject(filter))
        where subject.hasPrefix(prefix) {
            if let entry = try get(String(subject.dropFirst(prefix.count))) { result.append(entry) }
        }
        return result
    }

    private static func entry(_ entry: OpaquePointer) -> Entry {
        let length = Int(kvEntry_ValueLen(entry))
        var value: [UInt8] = []
        if length > 0, let data = kvEntry_Value(entry) {
            value = Array(UnsafeRawBufferPointer(start: data, count: length))
        }
        return Entry(
            key: String(cString: kvEntry_Key(entry)), value: value, revision: kvEntry_Revision(entry))
    }
}
