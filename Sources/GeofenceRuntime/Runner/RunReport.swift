import Foundation
import Geofence
import GeofenceInput

/// What a run met on each input, for one warning per new kind of problem and a summary at the end.
///
/// Dropped fixes and ignored messages are silent by their nature (a filter's job is to drop), but
/// a user must hear once that they happen, and why: a tracker sending `tst` in milliseconds has
/// every fix dropped as from the future, an encrypted OwnTracks payload is unreadable without its
/// key. The first of each kind on each input is logged as a warning with what it means; the
/// rest are counted, and the counts end the run's log.
struct RunReport {
    /// Counts for one input.
    struct Counts {
        var records = 0
        var fixes = 0
        var dropped: [String: Int] = [:]
        var ignored: [String: Int] = [:]
        var unreadable = 0
    }

    private(set) var inputs: [String: Counts] = [:]
    /// Input names in the order they were first seen.
    private var order: [String] = []

    /// Counts a record read from `input` (before the pipeline judges it).
    mutating func record(_ record: InputRecord, from input: String) -> String? {
        count(records: 1, fixes: record.fix != nil ? 1 : 0, from: input)
        return ignored(record, from: input)
    }

    /// Counts `records` records read from `input`, `fixes` of them fixes: once for a run of lines,
    /// rather than a look-up of the input per record.
    mutating func count(records: Int, fixes: Int, from input: String) {
        guard records > 0 else { return }
        update(input) { counts in
            counts.records += records
            counts.fixes += fixes
        }
    }

    /// Counts `record` if it is a message geofence ignores; returns the warning to log if it is the
    /// first of its kind. Records counted with ``count(records:fixes:from:)`` pass here one by one.
    mutating func ignored(_ record: InputRecord, from input: String) -> String? {
        guard case .ignored(let kind, let reason) = record else { return nil }
        var first = false
        update(input) { counts in
            first = counts.ignored[kind] == nil
            counts.ignored[kind, default: 0] += 1
        }
        return first ? "input \(input): \(kind) messages are ignored (\(reason)); counted from here on" : nil
    }

    /// Counts a fix the filter dropped; returns the warning to log if it is the first of its kind.
    mutating func dropped(_ fix: Fix, reason: FixFilter.Reason, from input: String, now: Date) -> String? {
        var first = false
        update(input) { counts in
            first = counts.dropped[reason.rawValue] == nil
            counts.dropped[reason.rawValue, default: 0] += 1
        }
        guard first else { return nil }
        var hint = ""
        switch reason {
        case .fromTheFuture where fix.timestamp.timeIntervalSince(now) > 365 * 86_400:
            hint =
                ": its time is in the year \(Self.year(fix.timestamp)); is the tracker writing milliseconds "
                + "where seconds are expected (OwnTracks `tst`)?"
        case .fromTheFuture: hint = ": check the clocks of the phone and of this machine"
        case .expired:
            hint = ": older than the filter's expiration when it arrived (a cached fix, or a late delivery)"
        case .inaccurate: hint = ": accuracy worse than the filter's max_accuracy"
        case .tooFast: hint = ": an implied speed no person reaches"
        default: break
        }
        return "input \(input): a fix dropped by the filter as \(reason.rawValue)\(hint); "
            + "more are counted (--verbose logs each)"
    }

    /// Counts a line that could not be read (each is logged where it is).
    mutating func unreadable(from input: String) {
        update(input) { $0.unreadable += 1 }
    }

    /// One line per input: what was read and what was set aside.
    var summary: [String] {
        order.compactMap { name in
            guard let counts = inputs[name] else { return nil }
            var parts = ["\(counts.records) records", "\(counts.fixes) fixes"]
            if !counts.dropped.isEmpty {
                let total = counts.dropped.values.reduce(0, +)
                parts.append("\(total) dropped (\(Self.list(counts.dropped)))")
            }
            if !counts.ignored.isEmpty {
                parts.append("\(counts.ignored.values.reduce(0, +)) ignored (\(Self.list(counts.ignored)))")
            }
            if counts.unreadable > 0 { parts.append("\(counts.unreadable) unreadable") }
            return "input \(name): " + parts.joined(separator: ", ")
        }
    }

    private mutating func update(_ input: String, _ change: (inout Counts) -> Void) {
        if inputs[input] == nil {
            inputs[input] = Counts()
            order.append(input)
        }
        change(&inputs[input, default: Counts()])
    }

    private static func list(_ counts: [String: Int]) -> String {
        counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }

    private static func year(_ date: Date) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        return calendar.component(.year, from: date)
    }
}
