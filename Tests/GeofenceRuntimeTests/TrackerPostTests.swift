import Foundation
import TestSupport
import Geofence
import GeofenceInput
import Testing

@testable import GeofenceRuntime

/// The phone protocols of the HTTP receiver, read from requests shaped as each app sends them.
struct TrackerPostTests {
    private func request(
        _ method: String = "POST", path: String = "/", query: String = "", headers: [String: String] = [:],
        body: String = ""
    ) -> HTTPRequest {
        HTTPRequest(
            method: method, path: path, query: HTTPRequest.formArguments(query),
            headers: Dictionary(uniqueKeysWithValues: headers.map { ($0.key.lowercased(), $0.value) }),
            body: Array(body.utf8))
    }

    private func fix(_ line: String) throws -> Fix {
        var decoder = LineDecoder(source: "test")
        guard case .success(.fix(let fix)) = decoder.decode(line, number: 1) else {
            throw TrackerPostError("not a fix: \(line)")
        }
        return fix
    }

    /// OwnTracks HTTP mode: the device is USER/DEVICE from X-Limit-U and X-Limit-D, exactly as the
    /// topic owntracks/USER/DEVICE names it over MQTT; the answer is a JSON array.
    @Test func ownTracksPostsNameTheDeviceFromTheLimitHeaders() throws {
        let post = try TrackerPost.read(
            request(
                headers: ["X-Limit-U": "jane", "X-Limit-D": "phone", "Content-Type": "application/json"],
                body: #"{"_type":"location","lat":51.5,"lon":-0.12,"tst":1700000000,"acc":12,"tid":"jp"}"#),
            user: nil)
        #expect(post.kind == .ownTracks)
        #expect(post.reply == .json(200, "[]"))
        #expect(post.lines.count == 1)
        let fix = try fix(post.lines[0])
        #expect(fix.deviceId == "jane/phone")
        #expect(fix.coordinate.latitude == 51.5)
        #expect(fix.horizontalAccuracy == 12)
        #expect(!post.unnamedOwnTracksDevice)
    }

    /// Without X-Limit-U the basic-auth user names the device; with neither, the post is flagged.
    @Test func ownTracksPostsFallBackToTheAuthenticatedUser() throws {
        let body = #"{"_type":"location","lat":51.5,"lon":-0.12,"tst":1700000000,"tid":"jp"}"#
        let named = try TrackerPost.read(request(headers: ["X-Limit-D": "phone"], body: body), user: "jane")
        #expect(try fix(named.lines[0]).deviceId == "jane/phone")
        let unnamed = try TrackerPost.read(request(body: body), user: nil)
        #expect(unnamed.unnamedOwnTracksDevice)
    }

    /// An empty OwnTracks post (a friend deleted in the app) is answered and carries nothing.
    @Test func anEmptyOwnTracksPostIsAnsweredWithNothingToRead() throws {
        let post = try TrackerPost.read(
            request(headers: ["X-Limit-U": "jane", "X-Limit-D": "phone"]), user: nil)
        #expect(post.lines.isEmpty)
        #expect(post.reply.status == 200)
    }

    /// Overland: a batch of GeoJSON Features, [lon, lat], properties with the time, accuracy and
    /// device; CoreLocation's -1 speed is left out; the answer is {"result":"ok"}.
    @Test func overlandBatchesGiveOneFixPerPointFeature() throws {
        let body = """
            {"locations":[
              {"type":"Feature","geometry":{"type":"Point","coordinates":[-122.621,45.512]},
               "properties":{"timestamp":"2017-01-01T10:00:00-0700","altitude":42,"speed":-1,
                 "horizontal_accuracy":65,"vertical_accuracy":10,"motion":["driving"],"device_id":"iphone",
                 "battery_state":"unplugged","battery_level":0.89,"wifi":""}},
              {"type":"Feature","geometry":{"type":"Point","coordinates":[-122.622,45.513]},
               "properties":{"timestamp":"2017-01-01T10:00:05Z","speed":3.5,"course":90,"horizontal_accuracy":5}}
            ],"current":{"type":"Feature"},"trip":{"mode":"car"}}
            """
        let post = try TrackerPost.read(request(body: body), user: "jane")
        #expect(post.kind == .overland)
        #expect(post.reply == .json(200, #"{"result":"ok"}"#))
        #expect(post.lines.count == 2)
        let first = try fix(post.lines[0])
        #expect(first.coordinate.latitude == 45.512 && first.coordinate.longitude == -122.621)
        #expect(first.timestamp == Date(timeIntervalSince1970: 1_483_290_000))
        #expect(first.horizontalAccuracy == 65 && first.speed == nil && first.altitude == 42)
        #expect(first.deviceId == "iphone")
        let second = try fix(post.lines[1])
        #expect(second.speed == 3.5 && second.course == 90)
        #expect(second.deviceId == "jane")
    }

    /// The OsmAnd protocol as Traccar Client sends it: query arguments, Unix seconds, speed in
    /// knots, the device from `id`.
    @Test func osmAndQueriesGiveAFixWithSpeedFromKnots() throws {
        let post = try TrackerPost.read(
            request(
                query:
                    "id=123456&lat=52.52&lon=13.405&timestamp=1678886400&hdop=8&altitude=50&speed=10&bearing=90&batt=85"
            ),
            user: nil)
        #expect(post.kind == .osmAnd)
        #expect(post.reply.status == 200)
        let fix = try fix(post.lines[0])
        #expect(fix.deviceId == "123456")
        #expect(fix.timestamp == Date(timeIntervalSince1970: 1_678_886_400))
        #expect(fix.horizontalAccuracy == 8 && fix.course == 90)
        #expect(abs((fix.speed ?? 0) - 5.144) < 0.001)
    }

    /// GPSLogger's custom URL as a form body: ISO time, speed in m/s, the serial as the device;
    /// milliseconds are told from seconds.
    @Test func gpsLoggerFormsGiveAFix() throws {
        let post = try TrackerPost.read(
            request(
                headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body:
                    "lat=45.5&lon=-122.6&time=2024-05-01T10%3A00%3A00.000Z&acc=4.5&spd=1.5&dir=180&ser=ABC&desc=a+b"
            ),
            user: nil)
        #expect(post.kind == .gpsLogger)
        let fix = try fix(post.lines[0])
        #expect(fix.deviceId == "ABC" && fix.speed == 1.5 && fix.horizontalAccuracy == 4.5)
        #expect(fix.timestamp == Date(timeIntervalSince1970: 1_714_557_600))
        let millis = try TrackerPost.read(request(query: "lat=1&lon=2&timestamp=1714557600123"), user: nil)
        #expect(try self.fix(millis.lines[0]).timestamp == Date(timeIntervalSince1970: 1_714_557_600.123))
    }

    /// Traccar Client 9's JSON body.
    @Test func traccarClientJSONGivesAFix() throws {
        let body = """
            {"location":{"timestamp":"2024-05-01T10:00:00.000Z","coords":{"latitude":1.5,"longitude":2.5,
             "accuracy":7,"speed":2,"heading":45,"altitude":10},"is_moving":true,"odometer":0,
             "battery":{"level":1,"is_charging":false}},"device_id":"48241179"}
            """
        let post = try TrackerPost.read(request(body: body), user: nil)
        #expect(post.kind == .traccar)
        let fix = try fix(post.lines[0])
        #expect(fix.deviceId == "48241179" && fix.horizontalAccuracy == 7 && fix.course == 45)
    }

    /// What cannot be read is refused with a message naming what is wrong.
    @Test(arguments: [
        ("{\"locations\": 3}", "", "\"locations\" is not an array"),
        ("{\"lat\": 1}", "", "a JSON body without \"_type\""),
        ("{broken", "", "not valid JSON"),
        ("", "lat=abc&lon=2", "argument lat: 'abc' is not a number"),
        ("", "lat=1", "both lat and lon"),
        ("", "", "no position"),
    ])
    func unreadableRequestsAreRefusedWithTheReason(body: String, query: String, reason: String) {
        #expect {
            _ = try TrackerPost.read(request(query: query, body: body), user: nil)
        } throws: { error in
            (error as? TrackerPostError)?.message.contains(reason) ?? false
        }
    }
}

/// The `--http-auth` file and the checks it gives.
struct HTTPCredentialsTests {
    private func request(authorization: String? = nil, query: String = "") -> HTTPRequest {
        HTTPRequest(
            method: "POST", path: "/", query: HTTPRequest.formArguments(query),
            headers: authorization.map { ["authorization": $0] } ?? [:], body: [])
    }

    private func basic(_ user: String, _ password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// Basic authentication names the user; a token (header or query) is accepted without one;
    /// anything else is refused.
    @Test func credentialsAreCheckedAndNameTheUser() throws {
        let credentials = try HTTPCredentials(
            text: "# phones\njane:s3cret:with:colons\n\nabcdefghijklmnop0123\n", source: "auth")
        #expect(
            credentials.check(request(authorization: basic("jane", "s3cret:with:colons"))) == .user("jane"))
        #expect(credentials.check(request(authorization: basic("jane", "wrong"))) == .refused)
        #expect(credentials.check(request(authorization: basic("bob", "s3cret:with:colons"))) == .refused)
        #expect(credentials.check(request(authorization: "Bearer abcdefghijklmnop0123")) == .token)
        #expect(credentials.check(request(query: "token=abcdefghijklmnop0123")) == .token)
        #expect(credentials.check(request(query: "token=abcdefghijklmnop012")) == .refused)
        #expect(credentials.check(request()) == .refused)
    }

    /// A file that gives no usable credential is an error naming the line.
    @Test(arguments: [
        ("# nothing\n", "auth: no credential"), ("short\n", "auth:1: a token"), (":pw\n", "auth:1:"),
    ])
    func badCredentialFilesAreRefused(text: String, message: String) {
        #expect {
            _ = try HTTPCredentials(text: text, source: "auth")
        } throws: { error in
            (error as? HTTPServerError)?.message.hasPrefix(message) ?? false
        }
    }

    /// `--http` addresses: host and port, IPv6 in brackets, a bare port on loopback.
    @Test func httpAddressesAreRead() throws {
        #expect(try HTTPAddress("127.0.0.1:8080") == HTTPAddress("8080"))
        #expect(try HTTPAddress("0.0.0.0:80").isLoopback == false)
        let v6 = try HTTPAddress("[::1]:9000")
        #expect(v6.host == "::1" && v6.port == 9000 && v6.isLoopback)
        #expect(throws: HTTPServerError.self) { try HTTPAddress("127.0.0.1:http") }
    }
}
