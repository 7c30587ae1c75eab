import Foundation
import Testing

@testable import Geofence
@testable import GeofenceInput

@Suite struct NDJSONLineTests {
    static let goodLines: [GoodLine] = [
        GoodLine(
            #"{"latitude":47.3769,"longitude":8.5417,"timestamp":1700000000000}"#,
            .fix(Fix(timestamp: unix(1_700_000_000), coordinate: at(47.3769, 8.5417)))),
        GoodLine(
            #"{"latitude":47.3769,"longitude":8.5417,"time":"2023-11-14T23:13:20.5+01:00","horizontalAccuracy":12.5,"altitude":408,"verticalAccuracy":3,"speed":1.4,"course":270,"floor":2,"deviceId":"phone","label":"walk"}"#,
            .fix(
                Fix(
                    timestamp: unix(1_700_000_000.5), coordinate: at(47.3769, 8.5417),
                    horizontalAccuracy: 12.5,
                    altitude: 408, verticalAccuracy: 3, speed: 1.4, course: 270, floor: 2, deviceId: "phone",
                    label: "walk"))),
        // Aliases; accuracy 0 means unknown; escapes in strings; null is unknown.
        GoodLine(
            #"{"latitude":-33.8688,"longitude":151.2093,"time":"2023-11-14T22:13:20Z","accuracy":0,"bearing":90,"device_id":"a\"b","label":null}"#,
            .fix(
                Fix(
                    timestamp: unix(1_700_000_000), coordinate: at(-33.8688, 151.2093), course: 90,
                    deviceId: "a\"b"))),
        // Unknown members, nested values and exponents.
        GoodLine(
            #"{"provider":"gps","extras":{"a":[1,2,{"b":null}],"c":"}"},"latitude":1e1,"longitude":-0.5,"timestamp":1.7e12}"#,
            .fix(Fix(timestamp: unix(1_700_000_000), coordinate: at(10, -0.5)))),
        // Core Location's -1 for unknown speed and course.
        GoodLine(
            #"{"latitude":0,"longitude":0,"timestamp":1700000000000,"speed":-1,"course":-1}"#,
            .fix(Fix(timestamp: unix(1_700_000_000), coordinate: at(0, 0)))),
        // A time without a zone is read in the decoder's zone (UTC here); the space form too.
        GoodLine(
            #"{"type":"fix","latitude":51.5,"longitude":-0.12,"time":"2023-11-14 22:13:20"}"#,
            .fix(Fix(timestamp: unix(1_700_000_000), coordinate: at(51.5, -0.12)))),
        // Both time members: timestamp wins.
        GoodLine(
            #"{"latitude":51.5,"longitude":-0.12,"timestamp":1700000000250,"time":"2001-01-01T00:00:00Z"}"#,
            .fix(Fix(timestamp: unix(1_700_000_000.25), coordinate: at(51.5, -0.12)))),
        // A member name written with an escape still counts; a surrogate pair becomes one scalar.
        GoodLine(
            #"{"l\u0061titude":1,"longitude":2,"timestamp":1700000000000,"label":"Z\u00fcrich \ud83c\udfe0"}"#,
            .fix(Fix(timestamp: unix(1_700_000_000), coordinate: at(1, 2), label: "Zürich 🏠"))),
        GoodLine(
            #"{"type":"visit","latitude":47.37,"longitude":8.54,"horizontalAccuracy":35,"arrival":"2023-11-14T22:13:20Z","departure":null}"#,
            .visit(
                Visit(
                    coordinate: at(47.37, 8.54), horizontalAccuracy: 35, arrival: unix(1_700_000_000),
                    departure: nil))),
        GoodLine(
            #"{"type":"visit","latitude":47.37,"longitude":8.54,"accuracy":20,"arrival":1700000000000,"departure":"2023-11-14T23:13:20Z"}"#,
            .visit(
                Visit(
                    coordinate: at(47.37, 8.54), horizontalAccuracy: 20, arrival: unix(1_700_000_000),
                    departure: unix(1_700_003_600)))),
        // Both ends unknown: absent, or Core Location's distantPast written out.
        GoodLine(
            #"{"type":"visit","latitude":47.37,"longitude":8.54,"horizontalAccuracy":0}"#,
            .visit(Visit(coordinate: at(47.37, 8.54), horizontalAccuracy: 0, arrival: nil, departure: nil))),
        GoodLine(
            #"{"type":"visit","latitude":47.37,"longitude":8.54,"horizontalAccuracy":5,"arrival":"0001-01-01T00:00:00Z","departure":"4001-01-01T00:00:00Z"}"#,
            .visit(Visit(coordinate: at(47.37, 8.54), horizontalAccuracy: 5, arrival: nil, departure: nil))),
    ]

    @Test(arguments: goodLines)
    func readsGoodLines(_ good: GoodLine) {
        #expect(decodeOne(good.line) == .success(good.expected))
        #expect(decodeOne(good.line, format: .ndjson) == .success(good.expected))
    }

    static let badLines: [BadLine] = [
        BadLine(
            #"{"latitude":95.2,"longitude":8.5,"timestamp":1700000000000}"#,
            #"fixes.ndjson:17: field "latitude": 95.2 is outside -90...90"#, .invalidCoordinate),
        BadLine(
            #"{"latitude":-9.5e1,"longitude":8.5,"timestamp":1700000000000}"#,
            #"fixes.ndjson:17: field "latitude": -9.5e1 is outside -90...90"#, .invalidCoordinate),
        BadLine(
            #"{"latitude":45,"longitude":180.0001,"timestamp":1700000000000}"#,
            #"fixes.ndjson:17: field "longitude": 180.0001 is outside -180...180"#, .invalidCoordinate),
        BadLine(
            #"{"longitude":8.5,"timestamp":1700000000000}"#,
            #"fixes.ndjson:17: field "latitude": missing (a fix needs latitude and longitude)"#, .missingField
        ),
        BadLine(
            #"{"latitude":null,"longitude":8.5,"timestamp":1700000000000}"#,
            #"fixes.ndjson:17: field "latitude": missing (a fix needs latitude and longitude)"#, .missingField
        ),
        BadLine(
            #"{"latitude":"47.1","longitude":8.5,"timestamp":1700000000000}"#,
            #"fixes.ndjson:17: field "latitude": expected a number, found the string "47.1""#, .invalidField),
        BadLine(
            #"{"latitude":47.1,"longitude":8.5}"#,
            #"fixes.ndjson:17: field "timestamp": missing (a fix needs "timestamp" in Unix milliseconds or "time" in ISO 8601)"#,
            .missingField),
        BadLine(
            #"{"latitude":47.1,"longitude":8.5,"timestamp":1700000000}"#,
            #"fixes.ndjson:17: field "timestamp": 1700000000 looks like Unix seconds; numbers here are Unix milliseconds"#,
            .invalidField),
        BadLine(
            #"{"latitude":47.1,"longitude":8.5,"time":"2023-02-29T00:00:00Z"}"#,
            #"fixes.ndjson:17: field "time": "2023-02-29T00:00:00Z" is not an ISO 8601 time"#, .invalidField),
        BadLine(
            #"{"latitude":47.1,"longitude":8.5,"timestamp":true}"#,
            #"fixes.ndjson:17: field "timestamp": expected Unix milliseconds or an ISO 8601 string, found true"#,
            .invalidField),
        BadLine(
            #"{"latitude":47.1,"longitude":8.5,"timestamp":1700000000000,"floor":2.5}"#,
            #"fixes.ndjson:17: field "floor": 2.5 is not a whole number"#, .invalidField),
        BadLine(
            #"{"latitude":47.1,"longitude":8.5,"timestamp":1700000000000,"speed":"fast"}"#,
            #"fixes.ndjson:17: field "speed": expected a number, found the string "fast""#, .invalidField),
        BadLine(
            #"{"latitude":47.1,"longitude":8.5,"timestamp":1700000000000,"label":[1]}"#,
            #"fixes.ndjson:17: field "label": expected a string, found an array"#, .invalidField),
        BadLine(
            #"{"type":"stop","latitude":47.1,"longitude":8.5,"timestamp":1700000000000}"#,
            #"fixes.ndjson:17: field "type": "stop" is neither "fix" nor "visit""#, .invalidField),
        BadLine(
            #"{"type":"visit","latitude":47.1,"longitude":8.5}"#,
            #"fixes.ndjson:17: field "horizontalAccuracy": missing (a visit needs the radius of its uncertainty circle)"#,
            .missingField),
        BadLine(
            #"{"type":"visit","latitude":47.1,"longitude":8.5,"accuracy":-1}"#,
            #"fixes.ndjson:17: field "accuracy": -1 is negative"#, .invalidField),
        BadLine(
            #"{"type":"visit","latitude":47.1,"longitude":8.5,"accuracy":5,"arrival":1700000000}"#,
            #"fixes.ndjson:17: field "arrival": 1700000000 looks like Unix seconds; numbers here are Unix milliseconds"#,
            .invalidField),
        // Syntax errors name the column, counted in characters.
        BadLine(
            #"{"latitude":47.1,"longitude":8.5,"timestamp":1700000000000"#,
            "fixes.ndjson:17:59: unexpected end of line inside the object", .malformed),
        BadLine(
            #"{"latitude":47.1 "longitude":8.5}"#,
            "fixes.ndjson:17:18: expected ',' or '}' after a value", .malformed),
        BadLine(
            #"{"label":"Zürich","latitude":NaN}"#,
            "fixes.ndjson:17:30: expected a value", .malformed),
        BadLine(
            #"{"latitude":01,"longitude":2}"#,
            "fixes.ndjson:17:14: expected ',' or '}' after a value", .malformed),
        BadLine(
            "{\"label\":\"tab\tinside\"}",
            "fixes.ndjson:17:14: control character in a string", .malformed),
        BadLine(
            #"{"label":"\x"}"#,
            "fixes.ndjson:17:11: bad escape in a string", .malformed),
        BadLine(
            #"{"latitude":1,"longitude":2,"timestamp":1700000000000} trailing"#,
            "fixes.ndjson:17:56: unexpected text after the object", .malformed),
        BadLine(
            #"{"extras":[1,2}"#,
            "fixes.ndjson:17:15: expected ',' or ']' after a value", .malformed),
    ]

    @Test(arguments: badLines)
    func reportsBadLinesExactly(_ bad: BadLine) {
        let result = decodeOne(bad.line, format: .ndjson)
        guard case .failure(let error) = result else {
            Issue.record("expected an error, got \(result)")
            return
        }
        #expect(error.description == bad.message)
        #expect(error.kind == bad.kind)
        #expect(error.source == "fixes.ndjson" && error.line == 17)
    }

    @Test func aNonObjectIsMalformedWhenNDJSONIsForced() {
        #expect(
            decodeOne("[1,2]", format: .ndjson).failure?.description
                == "fixes.ndjson:17:1: expected a JSON object")
    }

    @Test(arguments: ["", "   ", "\r", "# a comment", "\u{FEFF}"])
    func blankAndCommentLinesGiveNothing(_ line: String) {
        #expect(decodeOne(line) == .success(nil))
    }

    @Test func readsTimesWithoutZoneInTheGivenTimeZone() throws {
        let zurich = try #require(TimeZone(identifier: "Europe/Zurich"))
        let winter = decodeOne(
            #"{"latitude":1,"longitude":2,"time":"2023-11-14T23:13:20"}"#, timeZone: zurich)
        #expect(winter.success??.fix?.timestamp == unix(1_700_000_000))
        // Summer time: two hours ahead of UTC.
        let summer = decodeOne(
            #"{"latitude":1,"longitude":2,"time":"2023-07-01T12:00:00"}"#, timeZone: zurich)
        #expect(summer.success??.fix?.timestamp == unix(1_688_205_600))
        // An explicit offset wins over the zone.
        let explicit = decodeOne(
            #"{"latitude":1,"longitude":2,"time":"2023-07-01T12:00:00Z"}"#, timeZone: zurich)
        #expect(explicit.success??.fix?.timestamp == unix(1_688_212_800))
    }

    @Test func usesTheDecodersDeviceWhenTheLineNamesNone() {
        let unnamed = decodeOne(
            #"{"latitude":1,"longitude":2,"timestamp":1700000000000}"#, deviceId: "jane/phone")
        #expect(unnamed.success??.fix?.deviceId == "jane/phone")
        let named = decodeOne(
            #"{"latitude":1,"longitude":2,"timestamp":1700000000000,"deviceId":"watch"}"#,
            deviceId: "jane/phone")
        #expect(named.success??.fix?.deviceId == "watch")
    }

    @Test func aBadLineDoesNotDisturbTheNext() {
        var decoder = LineDecoder(source: "fixes.ndjson")
        #expect(
            decoder.decode(#"{"latitude":91,"longitude":0,"timestamp":1700000000000}"#, number: 1).failure
                != nil)
        #expect(decoder.decode(#"{"latitude":"#, number: 2).failure?.kind == .malformed)
        let next = decoder.decode(#"{"latitude":1,"longitude":0,"timestamp":1700000000000}"#, number: 3)
        #expect(next == .success(.fix(Fix(timestamp: unix(1_700_000_000), coordinate: at(1, 0)))))
    }

    @Test func acceptsBytesAndSubstrings() {
        let text = "x{\"latitude\":1,\"longitude\":2,\"timestamp\":1700000000000}\n"
        let expected = InputRecord.fix(Fix(timestamp: unix(1_700_000_000), coordinate: at(1, 2)))
        var decoder = LineDecoder(source: "s")
        #expect(decoder.decode(text.dropFirst(), number: 1) == .success(expected))
        #expect(decoder.decode(utf8: Array(text.utf8.dropFirst()), number: 1) == .success(expected))
        #expect(decoder.decode(utf8: Data(text.utf8.dropFirst()), number: 1) == .success(expected))
    }
}

extension Result {
    /// The success value, if any.
    var success: Success? { if case .success(let value) = self { value } else { nil } }
    /// The failure, if any.
    var failure: Failure? { if case .failure(let error) = self { error } else { nil } }
}
