import Foundation

/// The range of times a reader accepts: every time is checked where it enters, so that no later
/// computation (an event id in milliseconds, a duration, a database column) meets an infinite or
/// absurd date.
///
/// The range is 2000-01-01 to 2100-01-01 UTC. No tracker this program reads existed before 2000,
/// and a time before it is a clock that was never set (GPS week rollover, a zero default). The
/// upper bound is far enough for any honest recording and close enough that milliseconds since 1970
/// fit any integer type; a time inside the range but far ahead of the fixes around it is the
/// fix filter's business (``FixFilter``'s forward-jump rule), because only it knows the newest
/// accepted fix and the clock.
public enum TimeBounds {
    /// 2000-01-01T00:00:00Z in Unix seconds.
    public static let earliestSeconds: Double = 946_684_800
    /// 2100-01-01T00:00:00Z in Unix seconds.
    public static let latestSeconds: Double = 4_102_444_800

    /// Whether Unix seconds fall in the accepted range (NaN and infinities do not).
    public static func contains(_ seconds: Double) -> Bool {
        seconds >= earliestSeconds && seconds < latestSeconds
    }

    /// The reason a time is refused, for error messages.
    static func reason(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "is not a finite time" }
        return seconds < earliestSeconds
            ? "is before 2000-01-01, outside the plausible range (a clock that was never set?)"
            : "is after 2100-01-01, outside the plausible range (microseconds, or a broken clock?)"
    }
}

extension LineContext {
    /// The date for Unix seconds read from `field`, or an error quoting `text` when it is outside
    /// ``TimeBounds``; a time within a year of `sentinel` (a date meaning "unknown") is that
    /// sentinel.
    func date(
        seconds: Double, text: @autoclosure () -> String, field: @autoclosure () -> String?,
        sentinel: Date? = nil
    ) throws(RecordError) -> Date {
        if let sentinel, abs(seconds - sentinel.timeIntervalSince1970) <= 366 * 86_400 { return sentinel }
        guard TimeBounds.contains(seconds) else {
            throw error(field: field(), "\(text()) \(TimeBounds.reason(seconds))", kind: .invalidField)
        }
        return Date(timeIntervalSince1970: seconds)
    }
}
