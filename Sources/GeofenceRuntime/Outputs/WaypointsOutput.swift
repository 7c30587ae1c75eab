import Foundation
import GeofenceRules

/// With `--mqtt-waypoints`: sends each device, the first time a run sees it (and again after the
/// rules change), the places as an OwnTracks `setWaypoints` command on `owntracks/USER/DEVICE/cmd`,
/// so that the phone's own regions match the rules file. Best effort.
final class WaypointsOutput: RunOutput {
    /// The broker input's connection.
    let client: MQTTClient
    let log: RunLog
    /// The devices sent the current places, and the rules version they were sent.
    private let sent = Locked<(version: Date?, devices: Set<String>)>((nil, []))

    init(client: MQTTClient, log: RunLog) {
        self.client = client
        self.log = log
    }

    func deliver(_ batch: CommittedBatch) {
        let devices = Set(batch.outputs.compactMap(\.device)).filter { $0.contains("/") }
        guard !devices.isEmpty else { return }
        let fresh = sent.withLock { state -> [String] in
            if state.version != batch.rulesChangedAt { state = (batch.rulesChangedAt, []) }
            let new = devices.subtracting(state.devices).sorted()
            state.devices.formUnion(new)
            return new
        }
        guard !fresh.isEmpty else { return }
        let command: String
        do {
            command = try OwnTracksWaypoints.command(batch.places)
        } catch {
            log.warning("mqtt: cannot encode the waypoints: \(error)")
            return
        }
        for device in fresh {
            let topic = "owntracks/\(device)/cmd"
            if let failure = client.publish(topic: topic, payload: Array(command.utf8)) {
                log.warning("mqtt: cannot send the waypoints to \(topic): \(failure)")
            } else {
                log.info("mqtt: sent \(batch.places.count) waypoints to \(topic)")
            }
        }
    }
}
