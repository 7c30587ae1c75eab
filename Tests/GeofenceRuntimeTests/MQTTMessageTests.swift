import Geofence
import Foundation
import GeofenceInput
import Testing

@testable import GeofenceRuntime

/// The lines made from MQTT messages, the transitions published back, and the `--mqtt` URL.
struct MQTTMessageTests {
    /// The topic is added as the last member, so that it names the device even when the payload
    /// carries a topic of its own; whitespace and an empty object are handled.
    @Test(arguments: [
        (
            #"{"_type":"location","lat":1,"lon":2,"tst":3}"#,
            #"{"_type":"location","lat":1,"lon":2,"tst":3,"topic":"owntracks/jane/phone"}"#
        ),
        (" {\"a\":1 }\n", #"{"a":1 ,"topic":"owntracks/jane/phone"}"#),
        ("{ }", #"{ "topic":"owntracks/jane/phone"}"#),
        (
            #"{"topic":"owntracks/eve/spoof"}"#,
            #"{"topic":"owntracks/eve/spoof","topic":"owntracks/jane/phone"}"#
        ),
        ("not json", "not json"),
        ("", ""),
    ])
    func theTopicIsAddedAsTheLastMember(payload: String, line: String) {
        #expect(OwnTracksMessage.line(payload: Array(payload.utf8), topic: "owntracks/jane/phone") == line)
    }

    /// A topic with quotes, backslashes or control characters stays one JSON string.
    @Test func aTopicIsEscapedAsAJSONString() throws {
        let topic = "owntracks/ja\"ne\\x/ph\u{1}one"
        let line = OwnTracksMessage.line(payload: Array(#"{"a":1}"#.utf8), topic: topic)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["topic"] as? String == topic)
    }

    /// The device of a message is `USER/DEVICE` from its topic, whatever the payload says.
    @Test func theDecoderNamesTheDeviceFromTheTopic() throws {
        var decoder = LineDecoder(format: .owntracks, source: "mqtt")
        let line = OwnTracksMessage.line(
            payload: Array(
                #"{"_type":"location","lat":51.5,"lon":-0.12,"tst":1772521200,"tid":"jp","topic":"x"}"#.utf8),
            topic: "owntracks/jane/phone")
        let record = try #require(try decoder.decode(line, number: 1).get())
        #expect(record.fix?.deviceId == "jane/phone")
        #expect(record.fix?.label == "jp")
    }

    /// A transition is OwnTracks JSON: `_type` transition, the OwnTracks member names, and no
    /// member for what is unknown.
    @Test func aTransitionIsEncodedWithOwnTracksNames() throws {
        let message = OwnTracksTransitionMessage(
            event: "leave", desc: "home", tst: 1_772_524_843, wtst: 1_772_000_000, lat: 51.500292,
            lon: -0.117127,
            acc: 30, tid: nil)
        let text = String(decoding: try message.json(), as: UTF8.self)
        #expect(
            text
                == #"{"_type":"transition","acc":30,"desc":"home","event":"leave","lat":51.500292,"lon":-0.117127,"t":"c","tst":1772524843,"wtst":1772000000}"#
        )
        #expect(OwnTracksMessage.eventTopic(device: "jane/phone") == "owntracks/jane/phone/event")
    }

    /// The URL gives host, port, TLS and user; the password comes from the environment when the
    /// URL has none, and is never shown.
    @Test func theURLIsReadAndThePasswordNeverShown() throws {
        let plain = try MQTTSettings(url: "mqtt://broker.lan", environment: [:])
        #expect(plain.host == "broker.lan" && plain.port == 1883 && !plain.usesTLS && plain.username == nil)
        #expect(plain.topic == "owntracks/+/+" && plain.clientID.hasPrefix("geofence-"))

        let secure = try MQTTSettings(
            url: "mqtts://jane@broker.lan", environment: ["GEOFENCE_MQTT_PASSWORD": "s3cret"])
        #expect(secure.port == 8883 && secure.usesTLS && secure.username == "jane")
        #expect(secure.password == "s3cret" && !secure.passwordInURL)
        #expect(
            !secure.description.contains("s3cret") && secure.redactedURL == "mqtts://jane@broker.lan:8883")

        let inline = try MQTTSettings(url: "mqtt://jane:p%40ss@10.0.0.2:1884", environment: [:])
        #expect(inline.password == "p@ss" && inline.passwordInURL && inline.port == 1884)
        #expect(!inline.description.contains("p@ss") && !inline.description.contains("p%40ss"))
    }

    /// What cannot work is refused before anything connects.
    @Test(arguments: [
        ("http://broker.lan", MQTTSettings.defaultTopic, [String: String]()),
        ("mqtt://", MQTTSettings.defaultTopic, [:]),
        ("mqtt://broker.lan/owntracks", MQTTSettings.defaultTopic, [:]),
        ("mqtt://broker.lan", "owntracks/#/x", [:]),
        ("mqtt://broker.lan", "", [:]),
        ("mqtt://broker.lan", MQTTSettings.defaultTopic, ["GEOFENCE_MQTT_PASSWORD": "s3cret"]),
    ])
    func unusableSettingsAreRefused(url: String, topic: String, environment: [String: String]) {
        #expect(throws: MQTTError.self) { try MQTTSettings(url: url, topic: topic, environment: environment) }
    }
}
