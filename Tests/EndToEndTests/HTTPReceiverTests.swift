import Foundation
import GeofenceRuntime
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Phones posting to `geofence run --http`: the synthetic day sent by real HTTP clients (curl)
/// in each protocol the receiver speaks.
private enum HTTPDay {
    static let rules = DayFixtures.arrivedHomeRules

    /// One fix of the day.
    typealias Fix = DayFixtures.Fix

    /// One HTTP request, as a phone app makes it.
    struct Request {
        var path: String
        var headers: [String] = []
        var body: String?
    }

    /// OwnTracks HTTP mode: one location a request, user and device in X-Limit-U and X-Limit-D.
    static func ownTracks(_ fix: Fix, user: String, device: String) -> Request {
        Request(
            path: "/pub",
            headers: ["Content-Type: application/json", "X-Limit-U: \(user)", "X-Limit-D: \(device)"],
            body:
                #"{"_type":"location","lat":\#(fix.latitude),"lon":\#(fix.longitude),"tst":\#(fix.seconds),"acc":\#(fix.accuracy),"tid":"jp"}"#
        )
    }

    /// Overland: batches of GeoJSON Features.
    static func overland(_ fixes: ArraySlice<Fix>, device: String) -> Request {
        let formatter = ISO8601DateFormatter()
        let features = fixes.map { fix in
            let time = formatter.string(from: Date(timeIntervalSince1970: Double(fix.seconds)))
            return
                #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(fix.longitude),\#(fix.latitude)]},"properties":{"timestamp":"\#(time)","horizontal_accuracy":\#(fix.accuracy),"speed":-1,"device_id":"\#(device)","motion":[]}}"#
        }
        return Request(
            path: "/overland", headers: ["Content-Type: application/json"],
            body: #"{"locations":[\#(features.joined(separator: ","))]}"#)
    }

    /// The OsmAnd protocol as Traccar Client sends it: a POST with query arguments.
    static func osmAnd(_ fix: Fix, device: String) -> Request {
        Request(
            path:
                "/?id=\(device)&lat=\(fix.latitude)&lon=\(fix.longitude)&timestamp=\(fix.seconds)&hdop=\(fix.accuracy)&speed=0",
            body: "")
    }

    /// GPSLogger's custom URL as a form body.
    static func gpsLogger(_ fix: Fix, device: String) -> Request {
        let time = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(fix.seconds)))
        return Request(
            path: "/gpslogger", headers: ["Content-Type: application/x-www-form-urlencoded"],
            body: "lat=\(fix.latitude)&lon=\(fix.longitude)&time=\(time)&acc=\(fix.accuracy)&ser=\(device)")
    }

    /// `geofence run rules.yaml --http 127.0.0.1:0 --history` and the port it chose.
    static func run(in scratch: TemporaryDirectory, extra: [String] = [], name: String = "run") throws -> (
        GeofenceProcess, Int
    ) {
        let run = try GeofenceProcess(
            ["run", "rules.yaml", "--http", "127.0.0.1:0", "--history", "--state", scratch.file("state")]
                + extra,
            in: scratch.path, name: name)
        var port: Int?
        try waitUntil("geofence to listen\n\(run.stderr)") {
            guard let range = run.stderr.range(of: "listening on http://127.0.0.1:") else { return false }
            port = Int(run.stderr[range.upperBound...].prefix { $0.isNumber })
            return port != nil
        }
        return (run, port ?? 0)
    }

    /// Starts one curl process that makes `requests` in order (a config file, `next` between
    /// them), printing each status on a line of `name.status`.
    static func startCurl(_ requests: [Request], port: Int, in scratch: TemporaryDirectory, name: String)
        throws -> Process
    {
        func quoted(_ text: String) -> String {
            "\""
                + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
                    of: "\"", with: "\\\"")
                + "\""
        }
        var config = ""
        for (index, request) in requests.enumerated() {
            if index > 0 { config += "next\n" }
            config += "url = \(quoted("http://127.0.0.1:\(port)\(request.path)"))\n"
            for header in request.headers { config += "header = \(quoted(header))\n" }
            if let body = request.body { config += "data-binary = \(quoted(body))\n" }
            config += "silent\nmax-time = 120\noutput = \"/dev/null\"\nwrite-out = \"%{http_code}\\n\"\n"
        }
        try scratch.write(name + ".curl", config)
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        child.arguments = ["-K", scratch.file(name + ".curl")]
        guard FileManager.default.createFile(atPath: scratch.file(name + ".status"), contents: nil),
            let output = FileHandle(forWritingAtPath: scratch.file(name + ".status"))
        else { throw HarnessError("cannot create \(name).status") }
        defer { try? output.close() }
        child.standardInput = FileHandle.nullDevice
        child.standardOutput = output
        child.standardError = FileHandle.nullDevice
        try child.run()
        return child
    }

    /// Waits for a curl process and returns the statuses it printed.
    static func finish(_ child: Process, name: String, in scratch: TemporaryDirectory) throws -> [String] {
        defer { end(child) }
        try waitUntil("curl \(name) to finish", seconds: 300) { !child.isRunning }
        return TemporaryDirectory.lines(scratch.file(name + ".status"))
    }

    /// What replay says the stored events must be, for `lines` of NDJSON.
    static func expectedEvents(_ lines: [String], in scratch: TemporaryDirectory, name: String) throws
        -> [String]
    {
        try scratch.write(name, lines.joined(separator: "\n") + "\n")
        return DayFixtures.eventIDs(
            try DayFixtures.replay(rules: scratch.file("rules.yaml"), input: scratch.file(name), in: scratch))
    }
}

extension EndToEnd {
    /// An OwnTracks phone in HTTP mode posting the whole day, one location a request: every
    /// post is answered 200 with a JSON array, and the stored events are exactly those replay
    /// gives for the device USER/DEVICE.
    @Test func ownTracksHTTPPostsGiveTheEventsReplayGives() throws {
        let scratch = try TemporaryDirectory("http-day")
        try scratch.write("rules.yaml", HTTPDay.rules)
        let fixes = try DayFixtures.fixes(try DayFixtures.day(interval: "2m", in: scratch))
        let expected = try HTTPDay.expectedEvents(
            fixes.map { $0.ndjson(device: "jane/phone") }, in: scratch, name: "day.ndjson")
        try #require(expected.count > 4)
        let (run, port) = try HTTPDay.run(in: scratch)
        let curl = try HTTPDay.startCurl(
            fixes.map { HTTPDay.ownTracks($0, user: "jane", device: "phone") }, port: port, in: scratch,
            name: "phone")
        let statuses = try HTTPDay.finish(curl, name: "phone", in: scratch)
        #expect(statuses.count == fixes.count)
        #expect(statuses.allSatisfy { $0 == "200" }, "\(Set(statuses))\n\(run.stderr)")
        #expect(run.stdout.contains("jane/phone"), "stdout:\n\(run.stdout)")
        run.send(SIGTERM)
        let ended = try run.waitForExit()
        #expect(!ended.signaled && ended.status == 0, "stderr:\n\(run.stderr)")
        #expect(try DayFixtures.storedEventIDs(in: scratch) == expected)
    }

    /// Eight phones at once, two in each protocol (OwnTracks, Overland batches, OsmAnd queries,
    /// GPSLogger forms), each posting its day from its own curl process: every post is answered
    /// 200, and the stored events are exactly the events replay gives for the eight devices.
    @Test func eightPhonesPostingAtOnceInEveryProtocolLoseNothing() throws {
        let scratch = try TemporaryDirectory("http-load")
        try scratch.write("rules.yaml", HTTPDay.rules)
        let fixes = try DayFixtures.fixes(try DayFixtures.day(interval: "5m", in: scratch))
        var expectedLines: [String] = []
        var requests: [(name: String, requests: [HTTPDay.Request])] = []
        for index in 0..<8 {
            let name = "phone\(index)"
            switch index % 4 {
            case 0:
                requests.append(
                    (name, fixes.map { HTTPDay.ownTracks($0, user: "user\(index)", device: "phone") }))
                expectedLines += fixes.map { $0.ndjson(device: "user\(index)/phone") }
            case 1:
                let batches = stride(from: 0, to: fixes.count, by: 25).map {
                    HTTPDay.overland(fixes[$0..<min($0 + 25, fixes.count)], device: name)
                }
                requests.append((name, batches))
                expectedLines += fixes.map { $0.ndjson(device: name) }
            case 2:
                requests.append((name, fixes.map { HTTPDay.osmAnd($0, device: name) }))
                expectedLines += fixes.map { $0.ndjson(device: name) }
            default:
                requests.append((name, fixes.map { HTTPDay.gpsLogger($0, device: name) }))
                expectedLines += fixes.map { $0.ndjson(device: name) }
            }
        }
        let expected = try HTTPDay.expectedEvents(expectedLines, in: scratch, name: "all.ndjson")
        try #require(expected.count > 30)
        let (run, port) = try HTTPDay.run(in: scratch)
        let clients = try requests.map {
            try HTTPDay.startCurl($0.requests, port: port, in: scratch, name: $0.name)
        }
        for (client, entry) in zip(clients, requests) {
            let statuses = try HTTPDay.finish(client, name: entry.name, in: scratch)
            #expect(statuses.count == entry.requests.count, "\(entry.name)")
            #expect(statuses.allSatisfy { $0 == "200" }, "\(entry.name): \(Set(statuses))\n\(run.stderr)")
        }
        run.send(SIGTERM)
        let ended = try run.waitForExit()
        #expect(!ended.signaled && ended.status == 0, "stderr:\n\(run.stderr)")
        #expect(try DayFixtures.storedEventIDs(in: scratch).sorted() == expected.sorted())
    }

    /// A phone that was answered 200 never loses its fix: geofence killed (SIGKILL, no chance to
    /// write anything more) right after the last answer has stored every event those posts gave.
    @Test func postsAnsweredBeforeACrashAreInTheStore() throws {
        let scratch = try TemporaryDirectory("http-crash")
        try scratch.write("rules.yaml", HTTPDay.rules)
        let fixes = try DayFixtures.fixes(try DayFixtures.day(interval: "5m", in: scratch))
        let morning = Array(fixes.prefix(fixes.count / 2))
        let expected = try HTTPDay.expectedEvents(
            morning.map { $0.ndjson(device: "car") }, in: scratch, name: "morning.ndjson")
        try #require(expected.count >= 2)
        let (run, port) = try HTTPDay.run(in: scratch)
        let curl = try HTTPDay.startCurl(
            morning.map { HTTPDay.osmAnd($0, device: "car") }, port: port, in: scratch, name: "car")
        let statuses = try HTTPDay.finish(curl, name: "car", in: scratch)
        #expect(statuses.count == morning.count && statuses.allSatisfy { $0 == "200" }, "\(Set(statuses))")
        run.send(SIGKILL)
        _ = try run.waitForExit()
        #expect(try DayFixtures.storedEventIDs(in: scratch) == expected)
    }

    /// With `--http-auth`, a post without credentials is answered 401 and changes nothing; the
    /// basic-auth user names the OwnTracks device when X-Limit-U is absent.
    @Test func httpAuthRefusesPostsWithoutCredentials() throws {
        let scratch = try TemporaryDirectory("http-auth")
        try scratch.write("rules.yaml", HTTPDay.rules)
        try scratch.write("auth", "jane:correct horse\n")
        chmod(scratch.file("auth"), 0o600)
        let fixes = try DayFixtures.fixes(try DayFixtures.day(interval: "5m", in: scratch))
        let (run, port) = try HTTPDay.run(in: scratch, extra: ["--http-auth", scratch.file("auth")])
        var anonymous = HTTPDay.ownTracks(fixes[0], user: "jane", device: "phone")
        let refused = try HTTPDay.finish(
            try HTTPDay.startCurl([anonymous], port: port, in: scratch, name: "anonymous"), name: "anonymous",
            in: scratch)
        #expect(refused == ["401"])
        anonymous.headers = ["Content-Type: application/json", "X-Limit-D: phone"]
        let credentials = Data("jane:correct horse".utf8).base64EncodedString()
        let signed = (0..<12).map { index -> HTTPDay.Request in
            var request = HTTPDay.ownTracks(fixes[index], user: "", device: "phone")
            request.headers = [
                "Content-Type: application/json", "X-Limit-D: phone", "Authorization: Basic \(credentials)",
            ]
            return request
        }
        let accepted = try HTTPDay.finish(
            try HTTPDay.startCurl(signed, port: port, in: scratch, name: "signed"), name: "signed",
            in: scratch)
        #expect(accepted.allSatisfy { $0 == "200" } && accepted.count == 12, "\(accepted)\n\(run.stderr)")
        try waitUntil("the first determination\n\(run.stdout)") {
            run.stdout.contains("jane/phone  inside home (first determination)")
        }
        run.send(SIGTERM)
        _ = try run.waitForExit()
        #expect(run.stderr.contains("no valid credentials"), "stderr:\n\(run.stderr)")
    }
}
