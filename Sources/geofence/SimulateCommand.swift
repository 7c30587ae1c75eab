import Foundation
import Geofence

/// `geofence simulate day`: the seeded synthetic day as NDJSON fixes, for demos and for replaying
/// through other commands.
enum SimulateCommand {
    static let usage = """
        usage: geofence simulate day [--interval DURATION] [--seed N] [--noise METRES]
                                     [--outliers HH:MM,HH:MM,...] [--date YYYY-MM-DD]
                                     [--every-meters M --keep-alive DURATION]

        --every-meters and --keep-alive thin the day as a distance-triggered tracker sends it:
        of the fixes every --interval, only one M metres from the last sent, or DURATION after it.
        """

    static func run(_ arguments: [String]) throws {
        var rest = arguments[...]
        guard let what = rest.popFirst(), what == "day" else {
            if arguments.first == "-h" || arguments.first == "--help" {
                print(usage)
                return
            }
            throw CommandError(message: "what to simulate? ('day')\n\n\(usage)", status: 2)
        }
        var interval = 60.0, noise = 20.0, seed: UInt64 = 1
        var outliers: [SyntheticDay.ClockTime] = []
        var date = (year: 2026, month: 3, day: 3)
        var everyMeters: Double?
        var keepAlive: Double?
        while let argument = rest.popFirst() {
            switch argument {
            case "--interval":
                interval = try ArgumentText.seconds(
                    ArgumentText.value(after: argument, in: &rest), for: argument)
                guard interval >= 1 else {
                    throw CommandError(message: "--interval must be at least 1 s", status: 2)
                }
            case "--noise":
                noise = try ArgumentText.number(ArgumentText.value(after: argument, in: &rest), for: argument)
            case "--seed":
                let text = try ArgumentText.value(after: argument, in: &rest)
                guard let value = UInt64(text) else {
                    throw CommandError(message: "--seed wants a whole number, not '\(text)'", status: 2)
                }
                seed = value
            case "--outliers":
                let text = try ArgumentText.value(after: argument, in: &rest)
                outliers = try text.split(separator: ",").map {
                    guard let time = SyntheticDay.ClockTime(parsing: String($0)) else {
                        throw CommandError(
                            message: "--outliers wants times such as 09:40,10:15, not '\($0)'", status: 2)
                    }
                    return time
                }
            case "--date":
                let text = try ArgumentText.value(after: argument, in: &rest)
                let parts = text.split(separator: "-").compactMap { Int($0) }
                guard parts.count == 3, (1...12).contains(parts[1]), (1...31).contains(parts[2]) else {
                    throw CommandError(message: "--date wants YYYY-MM-DD, not '\(text)'", status: 2)
                }
                date = (parts[0], parts[1], parts[2])
            case "--every-meters":
                let meters = try ArgumentText.number(
                    ArgumentText.value(after: argument, in: &rest), for: argument)
                guard meters > 0 else {
                    throw CommandError(message: "--every-meters must be positive", status: 2)
                }
                everyMeters = meters
            case "--keep-alive":
                keepAlive = try ArgumentText.seconds(
                    ArgumentText.value(after: argument, in: &rest), for: argument)
            case "-h", "--help":
                print(usage)
                return
            default:
                throw CommandError(message: "unknown option '\(argument)'\n\n\(usage)", status: 2)
            }
        }
        let day = SyntheticDay(
            year: date.year, month: date.month, day: date.day, intervalSeconds: interval, noiseMeters: noise,
            outliers: outliers, seed: seed)
        let fixes =
            everyMeters != nil || keepAlive != nil
            ? day.distanceTriggeredFixes(
                everyMeters: everyMeters ?? .infinity, keepAliveSeconds: keepAlive ?? .infinity)
            : day.fixes()
        var text = ""
        for fix in fixes {
            text += line(fix, timeZone: day.timeZone)
            text += "\n"
        }
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// One fix in this project's NDJSON schema, the time both as ISO 8601 in the day's zone and as
    /// Unix milliseconds. Coordinates are printed exactly, so a replay sees the same fixes.
    static func line(_ fix: Fix, timeZone: TimeZone) -> String {
        let milliseconds = Int64((fix.timestamp.timeIntervalSince1970 * 1000).rounded())
        var text =
            "{\"time\":\"\(TimeText.iso8601(fix.timestamp, in: timeZone))\",\"timestamp\":\(milliseconds),"
        text += "\"latitude\":\(fix.coordinate.latitude),\"longitude\":\(fix.coordinate.longitude)"
        if let accuracy = fix.horizontalAccuracy { text += ",\"horizontalAccuracy\":\(accuracy)" }
        return text + "}"
    }
}
