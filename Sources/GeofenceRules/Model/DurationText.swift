import Foundation

/// The one duration grammar of geofence, for the rules file and the command line alike, and the
/// one way durations are shown to a person.
public enum DurationText {
    /// The longest duration read: 100 years. Longer ones (up to infinity, from 400 digits) are
    /// refused, so that no summary or id computed from a duration can overflow an integer.
    public static let maxSeconds = 100 * 365.25 * 86_400
    /// Seconds for a duration written as a plain number of seconds (`90`, `1.5`) or as numbers
    /// each followed by a unit `d`, `h`, `m` or `s` (`90s`, `20m`, `1h30m`, `1.5h`, `1d12h`);
    /// nil for anything else, including a number that is not finite or longer than ``maxSeconds``.
    ///
    /// What ``display(_:)`` writes reads back through this (`1h01m` is an hour and a minute).
    public static func parse(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let plain = Double(trimmed) { return plain.isFinite && plain <= maxSeconds ? plain : nil }
        var total = 0.0
        var number = ""
        var sawUnit = false
        for character in trimmed {
            if character.isASCII, character.isNumber || character == "." {
                number.append(character)
                continue
            }
            guard let value = Double(number), value.isFinite else { return nil }
            switch character {
            case "s": total += value
            case "m": total += value * 60
            case "h": total += value * 3600
            case "d": total += value * 86400
            default: return nil
            }
            number = ""
            sawUnit = true
        }
        return sawUnit && number.isEmpty && total.isFinite && total <= maxSeconds ? total : nil
    }

    /// A duration as every table and line shows it: `19s`, `23m28s`, `1h01m`, `2d03h`.
    ///
    /// Two units at most, the second always two digits, so columns of durations line up and a
    /// reader never mistakes minutes for hours (`23:28` could be either). Under an hour the
    /// seconds are kept (a short walk is `45s`, never `0s`); from an hour on, the minutes are
    /// rounded; from a day on, the hours.
    public static func display(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "-" }
        let sign = seconds < 0 ? "-" : ""
        let whole = Int(abs(seconds).rounded())
        if whole < 60 { return "\(sign)\(whole)s" }
        if whole < 3600 { return sign + "\(whole / 60)m" + twoDigits(whole % 60) + "s" }
        let minutes = Int((abs(seconds) / 60).rounded())
        if minutes < 24 * 60 { return sign + "\(minutes / 60)h" + twoDigits(minutes % 60) + "m" }
        let hours = Int((abs(seconds) / 3600).rounded())
        return sign + "\(hours / 24)d" + twoDigits(hours % 24) + "h"
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
