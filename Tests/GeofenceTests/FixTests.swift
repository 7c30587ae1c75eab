import Foundation
import Testing

@testable import Geofence

/// A fix keeps time, position, accuracy and device inline and the fields most fixes lack in a box
/// its copies share (``Fix/Extras``): the box must behave as the fields it replaced, values that
/// copies do not share once one of them changes.
@Suite struct FixTests {
    static let time = Date(timeIntervalSince1970: 1_772_521_200)
    static let place = Coordinate(uncheckedLatitude: 51.5, longitude: -0.12)

    static func full() -> Fix {
        Fix(
            timestamp: time, coordinate: place, horizontalAccuracy: 8, altitude: 35, verticalAccuracy: 3,
            speed: 4, course: 90, floor: 2, deviceId: "phone", label: "ph", silentWithinMeters: 100,
            trigger: .timer, regions: ["home"])
    }

    @Test func everyFieldReadsBackAsGiven() {
        let fix = Self.full()
        #expect(fix.timestamp == Self.time && fix.coordinate == Self.place)
        #expect(fix.horizontalAccuracy == 8 && fix.altitude == 35 && fix.verticalAccuracy == 3)
        #expect(fix.speed == 4 && fix.course == 90 && fix.floor == 2)
        #expect(fix.deviceId == "phone" && fix.label == "ph" && fix.silentWithinMeters == 100)
        #expect(fix.trigger == .timer && fix.regions == ["home"])
        // Its description shows the fields kept in the box too (test failures and logs print it).
        #expect(String(describing: fix).contains(#"label: Optional("ph")"#))
    }

    @Test func aFixOfTheCommonFieldsHasNoBoxAndIsSmall() {
        let plain = Fix(
            timestamp: Self.time, coordinate: Self.place, horizontalAccuracy: 8, deviceId: "phone")
        #expect(plain.extras == nil)
        #expect(Self.full().extras != nil)
        // Moved between every stage of reading and deciding: kept to seven words.
        #expect(MemoryLayout<Fix>.size <= 56)
    }

    @Test func invalidNumbersAreAbsentAndDoNotMakeABox() {
        let fix = Fix(
            timestamp: Self.time, coordinate: Self.place, horizontalAccuracy: -1, altitude: .nan,
            verticalAccuracy: -1, speed: -1, course: -1, silentWithinMeters: .infinity)
        #expect(fix.horizontalAccuracy == nil && fix.altitude == nil && fix.verticalAccuracy == nil)
        #expect(fix.speed == nil && fix.course == nil && fix.silentWithinMeters == nil)
        #expect(fix.extras == nil)
    }

    @Test func aChangedCopyLeavesTheOriginalAsItWas() {
        let original = Self.full()
        var copy = original
        copy.altitude = 40
        copy.label = nil
        copy.regions = ["work", "home"]
        #expect(original.altitude == 35 && original.label == "ph" && original.regions == ["home"])
        #expect(copy.altitude == 40 && copy.label == nil && copy.regions == ["work", "home"])
        #expect(copy != original)
        // Every other field of the copy is still the original's.
        #expect(copy.speed == 4 && copy.course == 90 && copy.floor == 2 && copy.trigger == .timer)
    }

    @Test func clearingEveryOtherFieldMakesTheFixAPlainOne() {
        var fix = Self.full()
        fix.altitude = nil
        fix.verticalAccuracy = nil
        fix.speed = nil
        fix.course = nil
        fix.floor = nil
        fix.label = nil
        fix.silentWithinMeters = nil
        fix.trigger = nil
        #expect(fix.extras != nil)
        fix.regions = nil
        #expect(fix.extras == nil)
        let plain = Fix(
            timestamp: Self.time, coordinate: Self.place, horizontalAccuracy: 8, deviceId: "phone")
        #expect(fix == plain)
        #expect(fix.hashValue == plain.hashValue)
        // A field set on a plain fix makes a box again.
        fix.trigger = .stay
        #expect(fix.trigger == .stay && fix.extras != nil && fix != plain)
    }

    @Test func equalityAndHashingSeeEveryField() {
        let base = Self.full()
        var changes: [(inout Fix) -> Void] = [
            { $0.horizontalAccuracy = 9 }, { $0.altitude = 36 }, { $0.verticalAccuracy = 4 },
            { $0.speed = 5 },
            { $0.course = 91 }, { $0.floor = 3 }, { $0.deviceId = "watch" }, { $0.label = "wa" },
            { $0.silentWithinMeters = 500 }, { $0.trigger = .region }, { $0.regions = [] },
        ]
        changes.append { $0.timestamp = $0.timestamp.addingTimeInterval(1) }
        for change in changes {
            var other = base
            change(&other)
            #expect(other != base)
        }
        let same = Self.full()
        #expect(same == base && same.hashValue == base.hashValue)
    }

    /// The JSON a fix is coded as is the one it always was: its fields under their names, absent
    /// ones left out (stored states and events hold fixes).
    @Test func codingKeepsTheKeys() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let full = String(decoding: try encoder.encode(Self.full()), as: UTF8.self)
        #expect(
            full == #"{"altitude":35,"coordinate":{"latitude":51.5,"longitude":-0.12},"course":90,"#
                + #""deviceId":"phone","floor":2,"horizontalAccuracy":8,"label":"ph","regions":["home"],"#
                + #""silentWithinMeters":100,"speed":4,"timestamp":794214000,"trigger":"timer","#
                + #""verticalAccuracy":3}"#)
        let plain = Fix(timestamp: Self.time, coordinate: Self.place)
        #expect(
            String(decoding: try encoder.encode(plain), as: UTF8.self)
                == #"{"coordinate":{"latitude":51.5,"longitude":-0.12},"timestamp":794214000}"#)
        for fix in [Self.full(), plain] {
            let decoded = try JSONDecoder().decode(Fix.self, from: try encoder.encode(fix))
            #expect(decoded == fix)
            #expect((decoded.extras == nil) == (fix.extras == nil))
        }
    }
}
