import Foundation
import Testing

@testable import Geofence
@testable import GeofenceInput

@Suite struct OwnTracksLineTests {
    static let goodLines: [GoodLine] = [
        // vel is km/h: 36 km/h is 10 m/s. The topic names the device, tid is the label.
        GoodLine(
            #"{"_type":"location","lat":52.52,"lon":13.405,"tst":1700000000,"acc":15,"vel":36,"cog":180,"alt":34,"vac":4,"tid":"jj","topic":"owntracks/jane/phone","batt":80,"inregions":["home"]}"#,
            .fix(
                Fix(
                    timestamp: unix(1_700_000_000), coordinate: at(52.52, 13.405), horizontalAccuracy: 15,
                    altitude: 34, verticalAccuracy: 4, speed: 10, course: 180, deviceId: "jane/phone",
                    label: "jj", regions: ["home"]))),
        // inregions: the phone's own current regions, escapes resolved, an empty list kept; a
        // malformed list is a lost hint, not a lost fix.
        GoodLine(
            #"{"_type":"location","lat":52.52,"lon":13.405,"tst":1700000000,"tid":"jj","inregions":[ "Caf\u00e9" , "work \"B\"","",[]]}"#,
            .fix(
                Fix(
                    timestamp: unix(1_700_000_000), coordinate: at(52.52, 13.405), deviceId: "jj", label: "jj"
                ))),
        GoodLine(
            #"{"_type":"location","lat":52.52,"lon":13.405,"tst":1700000000,"tid":"jj","inregions":[ "Caf\u00e9" , "work \"B\"",""]}"#,
            .fix(
                Fix(
                    timestamp: unix(1_700_000_000), coordinate: at(52.52, 13.405), deviceId: "jj",
                    label: "jj",
                    regions: ["Café", "work \"B\"", ""]))),
        GoodLine(
            #"{"_type":"location","lat":52.52,"lon":13.405,"tst":1700000000,"tid":"jj","inregions":[]}"#,
            .fix(
                Fix(
                    timestamp: unix(1_700_000_000), coordinate: at(52.52, 13.405), deviceId: "jj",
                    label: "jj",
                    regions: []))),
        GoodLine(
            #"{"_type":"location","lat":52.52,"lon":13.405,"tst":1700000000,"tid":"jj","inregions":"home"}"#,
            .fix(
                Fix(
                    timestamp: unix(1_700_000_000), coordinate: at(52.52, 13.405), deviceId: "jj", label: "jj"
                ))),
        // The tracker's signals (issue 9): iOS move mode promises a fix per 100 m moved, a "v"
        // location is an iOS visit (a stay); significant mode promises 500 m, "p" is a ping.
        GoodLine(
            #"{"_type":"location","lat":52.52,"lon":13.405,"tst":1700000000,"tid":"jj","m":2,"t":"v"}"#,
            .fix(
                Fix(
                    timestamp: unix(1_700_000_000), coordinate: at(52.52, 13.405), deviceId: "jj",
                    label: "jj",
                    silentWithinMeters: 100, trigger: .stay))),
        GoodLine(
            #"{"_type":"location","lat":52.52,"lon":13.405,"tst":1700000000,"tid":"jj","m":1,"t":"p"}"#,
            .fix(
                Fix(
                    timestamp: unix(1_700_000_000), coordinate: at(52.52, 13.405), deviceId: "jj",
                    label: "jj",
                    silentWithinMeters: 500, trigger: .timer))),
        // Quiet and manual modes promise nothing; a malformed signal is a lost hint, not a lost fix.
        GoodLine(
            #"{"_type":"location","lat":52.52,"lon":13.405,"tst":1700000000,"tid":"jj","m":-1,"t":"c"}"#,
            .fix(
                Fix(
                    timestamp: unix(1_700_000_000), coordinate: at(52.52, 13.405), deviceId: "jj",
                    label: "jj",
                    trigger: .region))),
        GoodLine(
            #"{"_type":"location","lat":52.52,"lon":13.405,"tst":1700000000,"tid":"jj","m":"fast","t":7}"#,
            .fix(
                Fix(
                    timestamp: unix(1_700_000_000), coordinate: at(52.52, 13.405), deviceId: "jj", label: "jj"
                ))),
        // Without a topic, tid stands in for the device.
        GoodLine(
            #"{"_type":"location","lat":52.52,"lon":13.405,"tst":1700000000,"tid":"jj","acc":0}"#,
            .fix(
                Fix(
                    timestamp: unix(1_700_000_000), coordinate: at(52.52, 13.405), deviceId: "jj", label: "jj"
                ))),
        // Quoted numbers, as some bridges send them; a leading slash in the topic.
        GoodLine(
            #"{"_type":"location","lat":"52.52","lon":"13.405","tst":"1700000000","topic":"/owntracks/jane/phone"}"#,
            .fix(Fix(timestamp: unix(1_700_000_000), coordinate: at(52.52, 13.405), deviceId: "jane/phone"))),
        GoodLine(
            #"{"_type":"transition","wtst":1690000000,"lat":52.52,"lon":13.405,"tst":1700000000,"acc":10,"tid":"jj","desc":"Home","event":"leave","t":"c","topic":"owntracks/jane/phone/event"}"#,
            .transition(
                OwnTracksTransition(
                    timestamp: unix(1_700_000_000), event: "leave", regionName: "Home",
                    regionTimestamp: unix(1_690_000_000), coordinate: at(52.52, 13.405),
                    horizontalAccuracy: 10,
                    trigger: "c", deviceId: "jane/phone", label: "jj"))),
        GoodLine(
            #"{"_type":"transition","tst":1700000000,"event":"enter"}"#,
            .transition(OwnTracksTransition(timestamp: unix(1_700_000_000), event: "enter"))),
        GoodLine(
            #"{"_type":"waypoint","desc":"Home","lat":52.52,"lon":13.405,"rad":50,"tst":1690000000}"#,
            .ignored(kind: "waypoint", reason: "a region definition, not a position")),
        GoodLine(
            #"{"_type":"waypoints","waypoints":[{"_type":"waypoint","desc":"Home"}]}"#,
            .ignored(kind: "waypoints", reason: "a region definition, not a position")),
        GoodLine(
            #"{"_type":"lwt","tst":1700000000}"#,
            .ignored(kind: "lwt", reason: "last will: the device lost its connection to the broker")),
        GoodLine(
            #"{"_type":"card","name":"Jane","face":"iVBOR"}"#,
            .ignored(kind: "card", reason: "a user card (name and picture), not a position")),
        GoodLine(
            #"{"_type":"encrypted","data":"xyz"}"#,
            .ignored(
                kind: "encrypted", reason: "an encrypted payload; reading it needs the device's secret key")),
        GoodLine(
            #"{"_type":"cmd","action":"reportLocation"}"#, .ignored(kind: "cmd", reason: "not a position")),
        GoodLine(
            #"{"_type":"teleport"}"#,
            .ignored(kind: "teleport", reason: "an OwnTracks message type this reader does not know")),
    ]

    @Test(arguments: goodLines)
    func readsGoodLines(_ good: GoodLine) {
        #expect(decodeOne(good.line, source: "owntracks.json") == .success(good.expected))
        #expect(decodeOne(good.line, format: .owntracks, source: "owntracks.json") == .success(good.expected))
    }

    static let badLines: [BadLine] = [
        BadLine(
            #"{"_type":"location","lat":91,"lon":13.4,"tst":1700000000}"#,
            #"owntracks.json:3: field "lat": 91 is outside -90...90"#, .invalidCoordinate),
        BadLine(
            #"{"_type":"location","lat":"nan","lon":13.4,"tst":1700000000}"#,
            #"owntracks.json:3: field "lat": "nan" is not a finite number"#, .invalidCoordinate),
        BadLine(
            #"{"_type":"location","lat":52.5,"lon":13.4}"#,
            #"owntracks.json:3: field "tst": missing (a location needs its time in Unix seconds)"#,
            .missingField),
        BadLine(
            #"{"_type":"location","lon":13.4,"tst":1700000000}"#,
            #"owntracks.json:3: field "lat": missing (a location needs lat and lon)"#, .missingField),
        BadLine(
            #"{"_type":"location","lat":"north","lon":13.4,"tst":1700000000}"#,
            #"owntracks.json:3: field "lat": expected a number, found the string "north""#, .invalidField),
        BadLine(
            #"{"_type":"transition","tst":1700000000,"desc":"Home"}"#,
            #"owntracks.json:3: field "event": missing (a transition says "enter" or "leave")"#, .missingField
        ),
        BadLine(
            #"{"_type":"transition","tst":1700000000,"event":"enter","lat":52.5}"#,
            #"owntracks.json:3: field "lon": missing (a position needs both lat and lon)"#, .missingField),
        BadLine(
            #"{"_type":5}"#, #"owntracks.json:3: field "_type": expected a string, found the number 5"#,
            .invalidField),
    ]

    @Test(arguments: badLines)
    func reportsBadLinesExactly(_ bad: BadLine) {
        let error = decodeOne(bad.line, source: "owntracks.json", number: 3).failure
        #expect(error?.description == bad.message)
        #expect(error?.kind == bad.kind)
    }

    @Test func forcedOwnTracksNeedsType() {
        let error = decodeOne(
            #"{"lat":52.5,"lon":13.4,"tst":1700000000}"#, format: .owntracks, source: "o.json", number: 1
        ).failure
        #expect(
            error?.description
                == #"o.json:1: field "_type": missing (every OwnTracks message names its type)"#)
    }
}

@Suite struct RecorderLineTests {
    static let goodLines: [GoodLine] = [
        // The Recorder pads the relative topic to 18 characters.
        GoodLine(
            "2023-11-14T22:13:20Z\t*                 \t{\"_type\":\"location\",\"lat\":52.52,\"lon\":13.405,\"tst\":1700000000,\"tid\":\"jj\"}",
            .fix(
                Fix(
                    timestamp: unix(1_700_000_000), coordinate: at(52.52, 13.405), deviceId: "jane/phone",
                    label: "jj"))),
        // Without tst in the payload, the line's own time is used.
        GoodLine(
            "2023-11-14T22:13:21Z\t*                 \t{\"_type\":\"location\",\"lat\":52.52,\"lon\":13.405}",
            .fix(Fix(timestamp: unix(1_700_000_001), coordinate: at(52.52, 13.405), deviceId: "jane/phone"))),
        GoodLine(
            "2023-11-14T22:13:20Z\tevent             \t{\"_type\":\"transition\",\"tst\":1700000000,\"event\":\"enter\",\"desc\":\"Work\"}",
            .transition(
                OwnTracksTransition(
                    timestamp: unix(1_700_000_000), event: "enter", regionName: "Work", deviceId: "jane/phone"
                ))),
        GoodLine(
            "2023-11-14T22:13:20Z\tstatus            \t42",
            .ignored(kind: "rec", reason: "payload is not JSON (relative topic status)")),
        GoodLine(
            "2023-11-14T22:13:20Z\tinfo              \t{\"_type\":\"card\",\"name\":\"Jane\"}",
            .ignored(kind: "card", reason: "a user card (name and picture), not a position")),
    ]

    @Test(arguments: goodLines)
    func readsGoodLines(_ good: GoodLine) {
        #expect(
            decodeOne(good.line, source: "2023-11.rec", deviceId: "jane/phone") == .success(good.expected))
        #expect(
            decodeOne(good.line, format: .rec, source: "2023-11.rec", deviceId: "jane/phone")
                == .success(good.expected))
    }

    static let badLines: [BadLine] = [
        BadLine(
            "2023-11-14T22:13:20Z\t*",
            "2023-11.rec:4:1: an OwnTracks Recorder line is time<TAB>topic<TAB>payload", .malformed),
        BadLine(
            "2023-11-14T22:13:20Z\t*                 \t{\"_type\":\"location\",\"lat\":52.52,",
            "2023-11.rec:4:73: expected a member name in quotes", .malformed),
        BadLine(
            "2023-11-14T22:13:20Z\t*                 \t{\"lat\":52.52,\"lon\":13.4}",
            #"2023-11.rec:4: field "_type": missing (every OwnTracks message names its type)"#, .missingField),
        BadLine(
            "2023-11-14T22:13:20Z\t*                 \t{\"_type\":\"location\",\"lat\":52.52,\"lon\":-200,\"tst\":1700000000}",
            #"2023-11.rec:4: field "lon": -200 is outside -180...180"#, .invalidCoordinate),
    ]

    @Test(arguments: badLines)
    func reportsBadLinesExactly(_ bad: BadLine) {
        let error = decodeOne(bad.line, source: "2023-11.rec", number: 4).failure
        #expect(error?.description == bad.message)
        #expect(error?.kind == bad.kind)
    }

    @Test func aForcedRecLineMustStartWithATime() {
        let error = decodeOne("yesterday\t*\t{}", format: .rec, source: "2023-11.rec", number: 4).failure
        #expect(error?.description == #"2023-11.rec:4:1: "yesterday" is not an ISO 8601 time"#)
        #expect(error?.kind == .invalidField)
    }
}
