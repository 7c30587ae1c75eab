import Foundation

/// Who holds which partition, as one engine sees it, and what that engine should claim or let go.
///
/// Leases and memberships are keys in the bucket (`lease.P` holding the owner's name, or nothing
/// when released; `member.ENGINE`). Their holders rewrite them every third of the lease time, each
/// write a new revision. A key whose revision this engine has seen unchanged for a whole lease time
/// (on its own monotonic clock) has expired: its holder stopped. Judging by revisions seen rather
/// than by times written into values keeps engines on different machines free of clock skew.
///
/// Claims and renewals are compare-and-set on the revision, so two engines never both win one
/// partition, and an engine that lost its lease learns it at its next renewal.
struct LeaseBook: Sendable {
    /// This engine.
    let engine: String
    /// The number of partitions.
    let partitions: Int
    /// How long an unchanged revision means a live holder.
    let leaseSeconds: Double

    /// A lease as last read: the holder (`nil` when released) and its revision.
    struct Lease: Sendable, Equatable {
        var owner: String?
        var revision: UInt64
    }

    private struct Seen: Sendable {
        var revision: UInt64
        var since: Double
    }

    private(set) var leases: [Int: Lease] = [:]
    private var leaseSeen: [Int: Seen] = [:]
    private var memberSeen: [String: Seen] = [:]

    init(engine: String, partitions: Int, leaseSeconds: Double) {
        self.engine = engine
        self.partitions = partitions
        self.leaseSeconds = leaseSeconds
    }

    /// Records what the bucket holds now (`now` in seconds on a monotonic clock): every lease key
    /// and every member key with its revision. Keys absent from the reading are gone.
    mutating func observe(leases current: [Int: Lease], members: [String: UInt64], now: Double) {
        leases = current
        leaseSeen = current.reduce(into: [:]) { seen, item in
            let previous = leaseSeen[item.key]
            seen[item.key] =
                previous?.revision == item.value.revision
                ? previous : Seen(revision: item.value.revision, since: now)
        }
        memberSeen = members.reduce(into: [:]) { seen, item in
            let previous = memberSeen[item.key]
            seen[item.key] =
                previous?.revision == item.value ? previous : Seen(revision: item.value, since: now)
        }
    }

    /// Whether `partition` may be claimed: never leased, released, or held by an engine that has
    /// not renewed it for a lease time.
    func isClaimable(_ partition: Int, now: Double) -> Bool {
        guard let lease = leases[partition], let owner = lease.owner else { return true }
        if owner == engine { return false }
        guard let seen = leaseSeen[partition] else { return true }
        return now - seen.since >= leaseSeconds
    }

    /// The engines alive (this one always counts), sorted.
    func liveMembers(now: Double) -> [String] {
        var live = Set(memberSeen.filter { now - $0.value.since < leaseSeconds }.keys)
        live.insert(engine)
        return live.sorted()
    }

    /// The most partitions one engine should hold: the partitions shared out evenly, rounded up.
    func fairShare(now: Double) -> Int {
        let members = liveMembers(now: now).count
        return (partitions + members - 1) / members
    }

    /// What to do, holding `held`: partitions to let go (beyond the fair share, the highest first,
    /// so that a newcomer gets some) and partitions to try to claim (claimable ones up to the fair
    /// share, starting from an offset given by this engine's place among the members so that
    /// engines starting together try different partitions first).
    func plan(held: Set<Int>, now: Double) -> (release: [Int], claim: [Int]) {
        let share = fairShare(now: now)
        if held.count > share {
            return (Array(held.sorted().suffix(held.count - share).reversed()), [])
        }
        let members = liveMembers(now: now)
        let offset = (members.firstIndex(of: engine) ?? 0) * share
        var claim: [Int] = []
        for step in 0..<partitions where held.count + claim.count < share {
            let partition = (offset + step) % partitions
            if !held.contains(partition), isClaimable(partition, now: now) { claim.append(partition) }
        }
        return ([], claim)
    }
}
