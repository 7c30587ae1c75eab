import Foundation
import Geofence
import GeofenceSimulation

/// `geofence simulate day`: the seeded synthetic day as NDJSON fixes, for demos and for replaying
/// through other commands.
enum SimulateCommand: Command {
    static let interval = Option(
        "--interval", value: "DURATION", help: "time between fixes (default 1m; at least 1s)",
        parse: ValueParser.duration)
    static let seed = Option(
        "--seed", value: "N", help: "the random seed (default 1)",
        parse: { (text: String) throws(ValueError) -> UInt64 in
            guard let value = UInt64(text) else { throw ValueError(expected: "a whole number") }
            return value
        })
    static let noise = Option(
        "--noise", value: "METRES", help: "GPS noise (default 20)", parse: ValueParser.number)
    static let outliers = Option(
        "--outliers", value: "HH:MM,...", help: "times of day at which a wild fix is inserted",
        parse: { (text: String) throws(ValueError) -> [SyntheticDay.ClockTime] in
            var times: [SyntheticDay.ClockTime] = []
            for part in text.split(separator: ",") {
                guard let time = SyntheticDay.ClockTime(parsing: String(part)) else {
                    throw ValueError(expected: "times such as 09:40,10:15")
                }
                times.append(time)
            }
            return times
        })
    static let date = Option(
        "--date", value: "YYYY-MM-DD", help: "the day (default 2026-03-03)",
        parse: { (text: String) throws(ValueError) -> [Int] in
            let parts = text.split(separator: "-").compactMap { Int($0) }
            guard parts.count == 3, (1...12).contains(parts[1]), (1...31).contains(parts[2]) else {
                throw ValueError(expected: "YYYY-MM-DD")
            }
            return parts
        })

    static let everyMeters = Option(
        "--every-meters", value: "M",
        help: "thin the day as a distance-triggered tracker sends it: only a fix M metres from the last sent",
        parse: { (text: String) throws(ValueError) -> Double in
            guard let meters = Double(text), meters.isFinite, meters > 0 else {
                throw ValueError(expected: "a positive number of metres")
            }
            return meters
        })
    static let keepAlive = Option(
        "--keep-alive", value: "DURATION",
        help:
            "also a fix DURATION after the last sent (a tracker's keep-alive), with or without --every-meters",
        parse: ValueParser.duration)

    static let definition = CommandDefinition(
        name: "simulate", summary: "the synthetic day as NDJSON fixes, to replay or to test rules against",
        arguments: [Positional(name: "WHAT", help: "what to simulate: day")],
        options: [
            interval.erased, seed.erased, noise.erased, outliers.erased, date.erased, everyMeters.erased,
            keepAlive.erased,
        ],
        discussion: """
            The day: home until 08:00, a commute to work (arriving about 08:25), lunch out, the gym \
            after work, home in the evening; in Europe/London.
            """)

    static func run(_ arguments: ParsedArguments) throws {
        guard arguments.positional("WHAT") == "day" else {
            throw CommandError.usage(
                "what to simulate? ('day', not '\(arguments.positional("WHAT") ?? "")')", command: "simulate")
        }
        let interval = arguments.value(Self.interval) ?? 60
        guard interval >= 1 else {
            throw CommandError.usage("--interval must be at least 1s", command: "simulate")
        }
        let noise = arguments.value(Self.noise) ?? 20
        let seed = arguments.value(Self.seed) ?? 1
        let outliers = arguments.value(Self.outliers) ?? []
        let parts = arguments.value(Self.date) ?? [2026, 3, 3]
        let date = (year: parts[0], month: parts[1], day: parts[2])
        let everyMeters = arguments.value(Self.everyMeters)
        let keepAlive = arguments.value(Self.keepAlive)
        let day = SyntheticDay(
            year: date.year, month: date.month, day: date.day, intervalSeconds: interval, noiseMeters: noise,
            outliers: outliers, seed: seed)
        let fixes =
            everyMeters != nil || keepAlive != nil
            ? day.distanceTriggeredFixes(
                everyMeters: everyMeters ?? .infinity, keepAliveSeconds: keepAlive ?? .infinity)
            : day.fixes()
        var text = ""
        var writer = ISO8601Writer(timeZone: day.timeZone)
        for fix in fixes {
            text += line(fix, writer: &writer)
            text += "\n"
        }
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// One fix in this project's NDJSON schema, the time both as ISO 8601 in the day's zone and as
    /// Unix milliseconds. Coordinates are printed exactly, so a replay sees the same fixes.
    static func line(_ fix: Fix, writer: inout ISO8601Writer) -> String {
        let milliseconds = Int64((fix.timestamp.timeIntervalSince1970 * 1000).rounded())
        var text = "{\"time\":\"\(writer.string(fix.timestamp))\",\"timestamp\":\(milliseconds),"
        text += "\"latitude\":\(fix.coordinate.latitude),\"longitude\":\(fix.coordinate.longitude)"
        if let accuracy = fix.horizontalAccuracy { text += ",\"horizontalAccuracy\":\(accuracy)" }
        return text + "}"
    }
}
