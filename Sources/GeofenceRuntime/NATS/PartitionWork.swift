import Foundation
import GeofenceInput
import GeofenceRules

/// One partition an engine owns: its consumer, its devices' pipeline, and how far it has got.
final class PartitionWork {
    let partition: Int
    /// The partition's consumer; `nil` while it must be created again (tried each turn).
    var consumer: PullConsumer?
    /// Fetches that failed in a row since the last that did not.
    var fetchFailures = 0
    /// The warnings a turn may give again and again while the cluster is unwell.
    var fetchWarning = RepeatedWarning()
    var publishWarning = RepeatedWarning()
    /// The devices of this partition; other partitions' devices are never here.
    var pipeline: Pipeline
    var decoder: LineDecoder
    /// For each device restored from a snapshot, the last stream sequence its state covers.
    var restoredSequences: [String: UInt64]
    /// The last stream sequence whose effects are in ``pipeline``.
    var applied: UInt64
    /// The sequence the bucket's snapshot covers.
    var snapshotSequence: UInt64
    /// Devices changed since the last snapshot.
    var dirty: Set<String> = []
    /// The last consumer sequence delivered: a jump means a delivery was lost (a server went away
    /// mid-fetch), and the consumer is re-created after ``applied``.
    var lastConsumerSequence: UInt64 = 0
    /// Output committed to the local store but not yet stored by the output stream, and the
    /// messages that produced it, acknowledged only once it is.
    var unpublished: [Publication] = []
    var unacknowledged: [JetStreamMessage] = []
    /// When the partition was taken (for the first-event log line that fail-over time is read from).
    let takenAt: Date
    var reportedFirstEvent = false

    /// One committed event, commute or action for the output stream: its id is the
    /// `Nats-Msg-Id` JetStream drops a repeat by, its group the device (a device's output is
    /// stored in its order).
    typealias Publication = JetStream.Outgoing

    init(
        partition: Int, consumer: PullConsumer, pipeline: Pipeline,
        decoder: LineDecoder,
        restored: PartitionSnapshot.Restored
    ) {
        self.partition = partition
        self.consumer = consumer
        self.pipeline = pipeline
        self.decoder = decoder
        restoredSequences = restored.sequences
        applied = restored.resumeAfter
        snapshotSequence = restored.resumeAfter
        takenAt = Date()
    }
}
