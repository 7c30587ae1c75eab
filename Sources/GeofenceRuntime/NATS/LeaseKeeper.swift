import Foundation

/// The leases this engine holds, renewed on a thread of their own, and the fence that keeps the
/// engine from committing for a partition whose lease it may no longer hold.
///
/// # Why a thread
/// The engine's loop renews nothing while it works through a long batch, waits for a stream to
/// answer, or replays a partition it has just taken: renewals there would let a lease lapse under
/// load, and another engine take a partition that is still being worked on. This thread renews
/// every quarter of a lease time whatever the loop is doing.
///
/// # The fence
/// Another engine may take a partition once it has seen the lease's revision unchanged for a whole
/// lease time on its own clock; it can have seen that revision no earlier than this engine sent the
/// renewal that wrote it. So a lease is safely this engine's until `leaseSeconds` after the start of
/// its last successful renewal. ``mayCommit(_:)`` answers yes only for half of that: the other half
/// is the margin for the work between the check and its end (a commit, waiting for the output
/// stream) and for clocks that run at different rates. With renewals every quarter lease, one failed
/// renewal is harmless and two in a row pause the partition until one succeeds.
final class LeaseKeeper: @unchecked Sendable {
    /// A lease as this engine holds it.
    struct Held: Sendable, Equatable {
        /// The revision of this engine's last write of the lease key.
        var revision: UInt64
        /// When the write that produced ``revision`` was sent (seconds on the engine's monotonic
        /// clock).
        var renewedAt: Double
        /// Whether a renewal found the lease written by another engine.
        var lost = false
    }

    private let bucket: KeyValueBucket
    private let engine: String
    private let leaseSeconds: Double
    private let clock: @Sendable () -> Double
    private let log: RunLog
    private let held = Locked<[Int: Held]>([:])
    /// Held through a renewal round and through a release, so that a release never races a
    /// renewal of the same key (the release's compare-and-set would fail and the lease would have
    /// to expire instead).
    private let round = NSLock()
    private let stopping = Locked(false)
    private let finished = DispatchSemaphore(value: 0)
    private var started = false

    /// How long after a successful renewal's start the engine may still commit.
    var fenceSeconds: Double { leaseSeconds / 2 }

    init(
        bucket: KeyValueBucket, engine: String, leaseSeconds: Double, log: RunLog,
        clock: @escaping @Sendable () -> Double
    ) {
        self.bucket = bucket
        self.engine = engine
        self.leaseSeconds = leaseSeconds
        self.log = log
        self.clock = clock
    }

    // MARK: The thread

    /// Starts renewing the membership and the held leases every quarter of a lease time.
    func start() {
        started = true
        let thread = Thread { [self] in
            while !stopping.withLock({ $0 }) {
                renewAll()
                var slept = 0.0
                while slept < leaseSeconds / 4, !stopping.withLock({ $0 }) {
                    Thread.sleep(forTimeInterval: 0.05)
                    slept += 0.05
                }
            }
            finished.signal()
        }
        thread.name = "geofence lease keeper"
        thread.start()
    }

    /// Stops the thread and waits for its round to end.
    func stop() {
        guard started else { return }
        stopping.withLock { $0 = true }
        finished.wait()
        started = false
    }

    private func renewAll() {
        round.lock()
        defer { round.unlock() }
        renewMembership()
        // Stopping ends the round early: with the servers away each renewal waits for a timeout.
        for partition in held.withLock({ Array($0.keys) }).sorted() where !stopping.withLock({ $0 }) {
            renewHeld(partition)
        }
    }

    /// Writes `member.ENGINE` again: other engines count this one alive while its revision moves.
    func renewMembership() {
        do {
            try bucket.put(PartitionSnapshot.memberKey(engine: engine), Array(engine.utf8))
        } catch {
            log.warning("cannot renew membership: \(error)")
        }
    }

    /// Renews `partition`'s lease (compare-and-set on the revision last written); the caller holds
    /// ``round``.
    private func renewHeld(_ partition: Int) {
        guard let current = held.withLock({ $0[partition] }), !current.lost else { return }
        let sentAt = clock()
        do {
            if let revision = try bucket.update(
                PartitionSnapshot.leaseKey(partition: partition), Array(engine.utf8),
                revision: current.revision)
            {
                held.withLock {
                    $0[partition]?.revision = revision; $0[partition]?.renewedAt = sentAt
                }
            } else {
                held.withLock { $0[partition]?.lost = true }
                log.warning("partition \(partition): lease lost to another engine; dropping it")
            }
        } catch {
            // Cannot tell: keep it. The fence stops commits meanwhile; if the bucket stays away the
            // lease expires and the next renewal finds it taken.
            log.warning("partition \(partition): cannot renew the lease: \(error)")
        }
    }

    // MARK: What the engine's loop asks

    /// Starts keeping `partition`, whose lease this engine wrote at `revision` in a write sent at
    /// `sentAt`.
    func hold(_ partition: Int, revision: UInt64, sentAt: Double) {
        held.withLock { $0[partition] = Held(revision: revision, renewedAt: sentAt) }
    }

    /// Renews `partition` now (before a snapshot: proof the lease is still this engine's just
    /// before writing); returns whether it is.
    func renewNow(_ partition: Int) -> Bool {
        round.lock()
        defer { round.unlock() }
        renewHeld(partition)
        return held.withLock { $0[partition].map { !$0.lost } ?? false }
    }

    /// Stops keeping `partition` and returns the revision to free it with (`nil` if it was lost).
    /// Waits for a renewal round under way to end.
    func release(_ partition: Int, _ free: (UInt64) -> Void) {
        round.lock()
        defer { round.unlock() }
        guard let current = held.withLock({ $0.removeValue(forKey: partition) }), !current.lost else {
            return
        }
        free(current.revision)
    }

    /// Stops keeping `partition` without freeing it (lost, or given up).
    func forget(_ partition: Int) {
        _ = held.withLock { $0.removeValue(forKey: partition) }
    }

    /// Whether the engine may still commit, publish and acknowledge for `partition`: its lease is
    /// held, not lost, and renewed less than ``fenceSeconds`` ago.
    func mayCommit(_ partition: Int) -> Bool {
        guard let current = held.withLock({ $0[partition] }) else { return false }
        return Self.mayCommit(current, now: clock(), fenceSeconds: fenceSeconds)
    }

    /// The fence's rule on its own, for tests.
    static func mayCommit(_ lease: Held, now: Double, fenceSeconds: Double) -> Bool {
        !lease.lost && now - lease.renewedAt < fenceSeconds
    }

    /// The partitions whose lease a renewal found taken by another engine.
    var lost: [Int] { held.withLock { $0.filter(\.value.lost).map(\.key).sorted() } }

    /// The lease of `partition` as held now.
    func lease(_ partition: Int) -> Held? { held.withLock { $0[partition] } }
}
