import Foundation
import GeofenceInput
import GeofenceRules
import GeofenceRuntime

/// Options several commands share, declared once so that they read and behave the same in each.
enum SharedOptions {
    /// The state directory a run keeps its store in, and listings read.
    static let state = Option(
        "--state", value: "DIR",
        help: "the state directory (default $XDG_STATE_HOME/geofence, else ~/.local/state/geofence)",
        parse: ValueParser.text)

    /// The display zone (see ``DisplayZone``).
    static let timeZone = Option(
        "--time-zone", value: "ZONE",
        help: "show times in ZONE (default: the rules file's timezone, else the machine's zone)",
        parse: ValueParser.timeZone)

    /// Where relative `log:` paths point and hooks run.
    static let logDirectory = Option(
        "--log-directory", value: "DIR",
        help: "where relative log: paths point and hooks run (default: the rules file's directory); "
            + "hook programs given with a relative path are still found beside the rules",
        parse: ValueParser.text)

    /// The zone of input times that are written without one.
    static let inputTimeZone = Option(
        "--input-time-zone", value: "ZONE", help: "the zone of input times written without one (default UTC)",
        parse: ValueParser.timeZone)

    /// The input format.
    static let format = Option(
        "--format", value: "FORMAT",
        help: "auto (default: told from the content), "
            + formatList(InputFormat.allCases.filter { $0 != .auto }),
        parse: ValueParser.format)

    /// "a, b or c": the formats' names, so that a new format shows in every `--format` help.
    static func formatList(_ formats: [InputFormat]) -> String {
        let names = formats.map(\.rawValue)
        guard let last = names.last else { return "" }
        return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " or " + last
    }

    /// A table for a person instead of NDJSON.
    static let table = Option.flag("--table", help: "print a table for a person instead of NDJSON")

    /// The last N rows of a listing.
    static let limit = Option("--limit", value: "N", help: "only the last N", parse: ValueParser.count)

    /// `--format` and `--input-time-zone`: how to read an input.
    static let reading: [AnyOption] = [format.erased, inputTimeZone.erased]
    /// `--state`, `--limit`, `--table`, `--time-zone`: how to list what a run stored.
    static let listing: [AnyOption] = [state.erased, limit.erased, table.erased, timeZone.erased]
}

/// The one rule for the zone times are shown in, the same for every command: `--time-zone` if
/// given, else the rules file's `timezone` for a command that reads one, else the machine's zone
/// (`TZ`, `/etc/localtime`). Every table names the zone in its header.
enum DisplayZone {
    /// The display zone for a command's arguments, and the rules it read if any.
    static func resolve(_ arguments: ParsedArguments, rules: RulesFile? = nil) -> TimeZone {
        arguments.value(SharedOptions.timeZone) ?? rules?.timeZone ?? TimeZone.current
    }

    /// The zone as a table header names it: its identifier (`Europe/London`), `UTC` for GMT.
    static func name(_ zone: TimeZone) -> String {
        ["GMT", "UTC", "Etc/UTC", "Etc/GMT", "Etc/Universal", "Etc/Zulu"].contains(zone.identifier)
            ? "UTC" : zone.identifier
    }
}
