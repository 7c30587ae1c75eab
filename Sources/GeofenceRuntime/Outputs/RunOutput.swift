import Foundation
import GeofenceRules

/// What a batch committed to the store, as outputs receive it: the typed events, visits and
/// actions of every record in the batch.
struct CommittedBatch: Sendable {
    /// What each record or engine event of the batch produced, in order.
    var outputs: [PipelineOutput]
    /// When the running rules file was last changed (the regions' version).
    var rulesChangedAt: Date
    /// The running rules' places (for waypoints and each region's `wtst`).
    var places: [Place] = []
    /// The running rules' `people:` (Home Assistant's trackers are per person).
    var people = People()
}

/// Somewhere committed events go after the store has them: the printed log, transitions published
/// to MQTT, and later webhooks or Home Assistant.
///
/// Outputs are best effort: they are told after the commit, and a failure is theirs to log. What
/// must happen at least once is an action (in the outbox), not an output.
///
/// # Implementation requirements
/// - Return quickly: ``deliver(_:)`` runs on the engine's loop between batches.
protocol RunOutput: Sendable {
    /// Handles one committed batch.
    func deliver(_ batch: CommittedBatch)
}

/// The runner's printer as an output: events and actions as they happen, for people to read.
struct PrintedOutput: RunOutput {
    /// Prints one record's output.
    let printer: Runner.Printer

    func deliver(_ batch: CommittedBatch) {
        for output in batch.outputs { printer(output) }
    }
}
