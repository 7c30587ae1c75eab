import Foundation

/// A warning that comes again on every turn while a cluster is unwell (an engine retries a
/// publish or a fetch many times a second): logged when it starts, then at most once every
/// ``interval`` with how many times it came meanwhile, and with one line when it stops.
///
/// Logging each retry buried everything else in the log (CI saw ten lines a second for ten
/// minutes), and a log that size on a small box is a failure of its own.
struct RepeatedWarning {
    /// The least time between two lines of one spell, in seconds.
    var interval: Double = 30
    /// When the present spell began, `nil` while all is well.
    private(set) var since: Date?
    private var lastLogged = Date.distantPast
    /// Times it came since the last line.
    private var unlogged = 0
    /// Times it came in the whole spell.
    private var total = 0

    init(interval: Double = 30) {
        self.interval = interval
    }

    /// Counts one occurrence of `text`; returns the line to log, if one is due.
    mutating func occurred(_ text: String, now: Date = Date()) -> String? {
        total += 1
        guard let since else {
            self.since = now
            lastLogged = now
            unlogged = 0
            return text
        }
        unlogged += 1
        guard now.timeIntervalSince(lastLogged) >= interval else { return nil }
        defer {
            lastLogged = now
            unlogged = 0
        }
        return
            "\(text) (\(unlogged) more since the last such line; failing for \(Self.seconds(now.timeIntervalSince(since))))"
    }

    /// Ends the spell, if there is one; returns the line saying so (`what` names what works
    /// again, as in "partition 2 publishes again").
    mutating func ended(_ what: String, now: Date = Date()) -> String? {
        guard let since else { return nil }
        defer {
            self.since = nil
            total = 0
            unlogged = 0
        }
        let times = total == 1 ? "1 failure" : "\(total) failures"
        return "\(what) after \(Self.seconds(now.timeIntervalSince(since))) (\(times))"
    }

    private static func seconds(_ interval: Double) -> String {
        String(format: "%.1f s", interval)
    }
}
