/// When `geofence run` commits the history it has gathered: records of files read from the
/// backlog (or with `--history`), which wait in one pending batch instead of being committed with
/// each read of the file.
///
/// A commit costs the same whether it holds a hundred records or a hundred thousand: each changed
/// device's saved state is encoded and written, and the transaction is flushed to disk. So history
/// is committed by time and count: once the batch holds ``maxRecords`` records, or has gathered for
/// ``minimumSeconds``, stretched when commits are slow (with many devices, each commit saves every
/// device seen) so that committing takes at most about ``commitShare`` of the time, up to
/// ``maximumSeconds``. A live record never waits for this: the runner commits it at once.
struct HistoryCommitPolicy: Sendable, Equatable {
    /// The most records in one commit: bounds what a restart after SIGKILL reads again, and the
    /// pending batch's memory.
    var maxRecords = 1_000_000
    /// How long history is gathered into one commit, at least.
    var minimumSeconds = 1.0
    /// How long history is gathered into one commit, at most, however slow the commits.
    var maximumSeconds = 30.0
    /// The share of the time that commits of history may take.
    var commitShare = 0.1

    /// Whether a batch of `records` records, gathered for `gatheredSeconds`, is to be committed
    /// now, when the last commit took `lastCommitSeconds`.
    func isDue(records: Int, gatheredSeconds: Double, lastCommitSeconds: Double) -> Bool {
        if records >= maxRecords { return true }
        let stretched = lastCommitSeconds * (1 - commitShare) / commitShare
        return gatheredSeconds >= min(maximumSeconds, max(minimumSeconds, stretched))
    }
}
