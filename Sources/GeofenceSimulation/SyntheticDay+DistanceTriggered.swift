public import Foundation
public import Geofence

extension SyntheticDay {
    /// The day as a distance-triggered tracker reports it: of the receiver's fixes (one every
    /// ``intervalSeconds``), only one that lies at least `everyMeters` from the last reported fix,
    /// or that comes `keepAliveSeconds` after it, is sent.
    ///
    /// This is how OwnTracks in its move and significant modes, GPSLogger with a distance filter
    /// and the Home Assistant companion app save battery: fixes are dense while travelling and
    /// sparse, or absent for up to the keep-alive, while still. The first fix of the day is always
    /// sent. Distances are measured between the noisy positions, as a tracker measures them, so
    /// noise alone sometimes triggers a fix.
    public func distanceTriggeredFixes(everyMeters: Double, keepAliveSeconds: TimeInterval) -> [Fix] {
        var reported: [Fix] = []
        for fix in fixes() {
            guard let last = reported.last else {
                reported.append(fix)
                continue
            }
            let moved = last.coordinate.distance(to: fix.coordinate)
            if moved >= everyMeters || fix.timestamp.timeIntervalSince(last.timestamp) >= keepAliveSeconds {
                reported.append(fix)
            }
        }
        return reported
    }
}
