import Geofence
import GeofenceInput

/// The counts every reading command (`replay`, `stays`) ends with, and its exit status when an
/// input gave no fix.
///
/// A file of which nothing could be read used to end quietly with exit 0 and no count, as if the
/// person had stayed home all month. Now the summary states the lines read, the fixes in them,
/// the fixes used and those the filter dropped (by reason), what moved nothing and what could not
/// be read (by kind); and an input that gave no fix (nor visit) ends the command with exit 1 and
/// the reason, so a script or a unit notices.
enum InputSummary {
    /// `Records.json: 12 lines: 10 fixes, 1 moving nothing (1 waypoint), 1 unreadable (1 malformed);
    /// 9 fixes used, 1 dropped by the filter (duplicate 1)`. `dropped` is `nil` for commands with
    /// no filter (`stays` reads every fix).
    static func line(_ tally: InputTally, dropped: [FixFilter.Reason: Int]?) -> String {
        guard let dropped else { return tally.description }
        let count = dropped.values.reduce(0, +)
        let reasons = dropped.sorted { $0.key.rawValue < $1.key.rawValue }.map {
            "\($0.key.rawValue) \($0.value)"
        }
        let detail = reasons.isEmpty ? "" : " (" + reasons.joined(separator: ", ") + ")"
        return
            "\(tally.description); \(tally.fixes - count) fixes used, \(count) dropped by the filter\(detail)"
    }

    /// Throws the command's failure (exit 1, with the reason) when the input gave no fix or visit.
    static func requireSomethingRead(_ tally: InputTally) throws {
        if let why = tally.whyNothingWasRead { throw CommandError(message: why, status: 1) }
    }
}
