import Foundation
import Testing

@testable import Geofence
@testable import GeofenceRules

/// An event line written directly is the line the JSON encoder writes, byte for byte, whatever
/// the numbers, times and names; what the direct writer cannot write the encoder still does.
@Suite struct EventLineWriterTests {
    /// The encoder's line for `event` (the path every other record takes).
    private func encoded(_ event: PlaceEvent) throws -> String {
        let body = String(decoding: try EngineJSON.encoder().encode(event), as: UTF8.self)
        return "{\"type\":\"event\"," + body.dropFirst()
    }

    private func event(
        place: String = "home", device: String = "phone", distance: Double?, latitude: Double?,
        longitude: Double?, accuracy: Double?, date: Date, transition: Transition = .enter
    ) -> PlaceEvent {
        let coordinate = latitude.flatMap { latitude in
            longitude.map { Coordinate(uncheckedLatitude: latitude, longitude: $0) }
        }
        let fix = coordinate.map { Fix(timestamp: date, coordinate: $0, horizontalAccuracy: accuracy) }
        var event = PlaceEvent(
            Event(
                identifier: place, state: .satisfied, date: date, confirmedAt: date.addingTimeInterval(31.5),
                signedDistanceMeters: distance, fix: fix, previousState: .unsatisfied),
            device: device)
        event.transition = transition
        event.latitude = latitude
        event.longitude = longitude
        event.accuracy = accuracy
        return event
    }

    @Test func randomEventsAreWrittenAsTheEncoderWritesThem() throws {
        var generator = SystemRandomNumberGenerator()
        let magnitudes: [Double] = [1e-9, 1e-5, 0.001, 1, 10, 1_000, 1e7, 1e16, 1e17, 1e22]
        for trial in 0..<5_000 {
            let scale = magnitudes[trial % magnitudes.count]
            let distance =
                trial % 7 == 0
                ? nil : (Double.random(in: -1...1, using: &generator) * scale * 10).rounded() / 10
            let latitude = trial % 11 == 0 ? nil : Double.random(in: -90...90, using: &generator)
            let longitude = latitude == nil ? nil : Double.random(in: -180...180, using: &generator)
            let accuracy: Double? =
                trial % 5 == 0
                ? nil
                : trial % 3 == 0
                    ? Double(Int.random(in: 1...100, using: &generator))
                    : Double.random(in: 0...scale, using: &generator)
            let date = Date(
                timeIntervalSince1970: Double.random(in: 946_684_800...4_102_444_800, using: &generator))
            var value = event(
                place: "p\(trial % 20)", device: "d\(trial)", distance: distance, latitude: latitude,
                longitude: longitude, accuracy: accuracy, date: date,
                transition: Transition.allCases[trial % Transition.allCases.count])
            // Every state with every transition: the state moves on after each round of them.
            let states: [ConditionState] = [.unknown, .satisfied, .unsatisfied, .unmonitored]
            value.state = states[trial / Transition.allCases.count % states.count]
            let direct = try #require(EventLineWriter.line("event", value))
            #expect(direct == (try encoded(value)))
        }
    }

    /// An event's id is made from its device, place, transition and milliseconds (the value
    /// StableIDTests pins for these) unless one is set; a set one, or one read back, is written and
    /// kept as it is, by the direct writer and by the encoder alike.
    @Test func anEventsIdIsMadeFromItsPartsUnlessOneIsSet() throws {
        let pinned = event(
            distance: 3, latitude: 47.37, longitude: 8.54, accuracy: 5,
            date: Date(timeIntervalSince1970: 1_772_521_200.179))
        #expect(pinned.id == "adad86d39b1766c9a4bc3b582371d307")
        let made = try #require(EventLineWriter.line("event", pinned))
        #expect(made.contains("\"id\":\"adad86d39b1766c9a4bc3b582371d307\""))
        #expect(made == (try encoded(pinned)))

        // Half a second is exact in binary: the time read back is the time written.
        let fresh = event(
            distance: 3, latitude: 47.37, longitude: 8.54, accuracy: 5,
            date: Date(timeIntervalSince1970: 1_772_521_200.5))
        func readBack(_ event: PlaceEvent) throws -> PlaceEvent {
            try EngineJSON.decoder().decode(PlaceEvent.self, from: try EngineJSON.encoder().encode(event))
        }
        // Read back, its id is kept as written, and it equals the event it was made as.
        let same = try readBack(fresh)
        #expect(same.id == fresh.id)
        #expect(same == fresh)
        #expect(same.hashValue == fresh.hashValue)

        var set = fresh
        set.id = "an-id-from-elsewhere"
        #expect(set != fresh)
        let line = try #require(EventLineWriter.line("event", set))
        #expect(line.contains("\"id\":\"an-id-from-elsewhere\""))
        #expect(line == (try encoded(set)))
        let setReadBack = try readBack(set)
        #expect(setReadBack.id == "an-id-from-elsewhere")
        #expect(setReadBack == set)
        #expect(setReadBack.hashValue == set.hashValue)

        // A set id the encoder would escape is left to it, as any such text is.
        set.id = "quote\"d"
        #expect(EventLineWriter.line("event", set) == nil)
        #expect(try EngineJSON.line("event", set) == (try encoded(set)))
    }

    @Test(arguments: [0.0, -0.0, 5556.9, -12.3, 100, 1e21, 123_456_789_012_345_680, 0.1, 2.5e-7])
    func numbersAreWrittenAsTheEncoderWritesThem(_ number: Double) throws {
        let value = event(
            distance: number, latitude: 47.37, longitude: 8.54, accuracy: number.magnitude,
            date: Date(timeIntervalSince1970: 1_772_521_200.179))
        #expect(try #require(EventLineWriter.line("event", value)) == (try encoded(value)))
    }

    @Test(arguments: ["café", "a \"quoted\" name", "back\\slash", "tab\there", "new\nline", "emoji 🏠"])
    func namesThatNeedEscapingAreLeftToTheEncoder(_ name: String) throws {
        let value = event(
            place: name, device: name, distance: 3, latitude: 47.37, longitude: 8.54, accuracy: 5,
            date: Date(timeIntervalSince1970: 1_772_521_200))
        #expect(EventLineWriter.line("event", value) == nil)
        #expect(try EngineJSON.line("event", value) == (try encoded(value)))
    }

    /// Lines appended in turn with one ``EventLineReuse``, as an output's events are, are the lines
    /// written one by one: a coordinate repeated from the line before, one that changes, one that
    /// is absent, one that differs only in its sign or its last bit, zero and negative zero.
    @Test func linesReusingTheCoordinateBeforeAreTheLinesWrittenOneByOne() throws {
        let date = Date(timeIntervalSince1970: 1_772_521_200.5)
        let next = 51.460_792_534_997_27.nextUp
        let coordinates: [(Double?, Double?)] = [
            (51.460_792_534_997_27, -0.138_591_214_568_324_9),
            (51.460_792_534_997_27, -0.138_591_214_568_324_9),
            (51.460_792_534_997_27, 0.138_591_214_568_324_9), (next, 0.138_591_214_568_324_9), (nil, nil),
            (next, 0.138_591_214_568_324_9), (-next, 1e300), (-next, 1e300), (0, -0.0), (0, -0.0),
        ]
        // Accuracies and times repeated, changed, absent and back, and differing only in their
        // last bit, beside the coordinates.
        let accuracies: [Double?] = [8, 8, 8.000_000_000_000_002, nil, 8, 5, 5, nil, nil, 0]
        let later = date.addingTimeInterval(0.001)
        let laterByABit = Date(timeIntervalSinceReferenceDate: later.timeIntervalSinceReferenceDate.nextUp)
        let dates = [date, date, date, later, later, date, laterByABit, laterByABit, later, date]
        let events = coordinates.enumerated().map { index, coordinate in
            event(
                place: "p\(index)", distance: 12.5, latitude: coordinate.0, longitude: coordinate.1,
                accuracy: accuracies[index],
                date: dates[index])
        }
        var bytes: [UInt8] = []
        var reuse = EventLineReuse()
        for event in events {
            try EngineJSON.appendLine("event", event, to: &bytes, reusing: &reuse)
            bytes.append(UInt8(ascii: "\n"))
        }
        let expected = try events.map { try EngineJSON.line("event", $0) + "\n" }.joined()
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
        #expect(try events.map { try EngineJSON.line("event", $0) } == events.map { try encoded($0) })
    }
}

/// Events appended into one buffer are the lines written one by one, and a line the direct
/// writer gives up on part way leaves nothing of it behind.
@Suite struct EventLineAppendTests {
    private func event(device: String, date: Date) -> PlaceEvent {
        let fix = Fix(timestamp: date, coordinate: Coordinate(uncheckedLatitude: 47.37, longitude: 8.54))
        return PlaceEvent(
            Event(
                identifier: "home", state: .satisfied, date: date, confirmedAt: date,
                signedDistanceMeters: -4.25, fix: fix, previousState: .unsatisfied),
            device: device)
    }

    @Test func appendedLinesAreTheLinesWrittenOneByOne() throws {
        let events = (0..<5).map {
            event(device: "d\($0)", date: Date(timeIntervalSince1970: 1_772_521_200.5 + Double($0)))
        }
        var bytes: [UInt8] = Array("prefix".utf8)
        for event in events { try EngineJSON.appendLine("event", event, to: &bytes) }
        let expected = try "prefix" + events.map { try EngineJSON.line("event", $0) }.joined()
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
    }

    @Test(arguments: [
        Date(timeIntervalSince1970: -12_219_292_801),  // before the Gregorian calendar
        Date.distantPast,
    ])
    func aTimeTheDirectFormCannotWriteLeavesTheBufferAsItWas(_ date: Date) throws {
        let value = event(device: "phone", date: date)
        var bytes: [UInt8] = Array("kept".utf8)
        var reuse = EventLineReuse()
        #expect(!EventLineWriter.append("event", value, to: &bytes, reusing: &reuse))
        #expect(bytes == Array("kept".utf8))
        // The encoder still writes it, after what was there.
        try EngineJSON.appendLine("event", value, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "kept" + (try EngineJSON.line("event", value)))
        #expect(String(decoding: bytes, as: UTF8.self).contains(EngineJSON.timestamp(date)))
    }
}

/// What does not fit in a line's memory is not written, and marks the line: it is then thrown
/// away (the encoder writes the event), never cut short or written past its end.
@Suite struct LineBufferTests {
    /// `body` with a line of `capacity` bytes inside a larger guarded buffer, and whether the
    /// bytes past the line's end were left alone.
    private func withLine(
        capacity: Int, _ body: (inout LineBuffer) -> Void
    ) -> (text: String, overflowed: Bool, guardIntact: Bool) {
        var memory = [UInt8](repeating: UInt8(ascii: "#"), count: capacity + 16)
        return memory.withUnsafeMutableBufferPointer { all in
            var line = LineBuffer(UnsafeMutableBufferPointer(rebasing: all[..<capacity]))
            body(&line)
            let guardIntact = all[capacity...].allSatisfy { $0 == UInt8(ascii: "#") }
            return (String(decoding: line.written, as: UTF8.self), line.overflowed, guardIntact)
        }
    }

    @Test func whatFitsIsWritten() {
        let result = withLine(capacity: 64) { line in
            line.put("{\"a\":")
            let numberWritten = line.number(42)
            #expect(numberWritten)
            line.put(",\"b\":")
            let textWritten = line.text("x")
            #expect(textWritten)
            line.put(",\"c\":")
            let timeWritten = line.time(Date(timeIntervalSince1970: 0))
            #expect(timeWritten)
            line.put("}")
        }
        #expect(result.text == "{\"a\":42,\"b\":\"x\",\"c\":\"1970-01-01T00:00:00.000Z\"}")
        #expect(!result.overflowed)
        #expect(result.guardIntact)
    }

    /// Numbers of whole tenths, written without the standard library's digit search, are
    /// written as the encoder writes them (`description`, without a whole number's ".0").
    @Test func tenthsAreWrittenAsTheEncoderWritesThem() throws {
        var generator = SystemRandomNumberGenerator()
        var values: [Double] = [
            0.1, -0.1, 0.5, 1, 9.9, 10, 12.3, -4.7, 99_999_999_999_999.9, 1e14 - 0.1, 5556.9,
        ]
        for digits in 1...15 {
            let limit = Int64(truncating: pow(10, Double(digits)) as NSNumber)
            for _ in 0..<2_000 {
                let tenths = Int64.random(in: -limit...limit, using: &generator)
                values.append(Double(tenths) / 10)
                values.append((Double(tenths) / 10 * 10).rounded() / 10)
            }
        }
        // Near the edges of the fast form, and numbers it leaves to `description`.
        values += [1e14, 1e15, 0.05, 0.01, 1e-7, 0.3 * 3, 2.675, 123_456_789_012_345_680]
        for value in values {
            var expected = value.description
            if expected.hasSuffix(".0") { expected.removeLast(2) }
            let result = withLine(capacity: 64) { line in
                let written = line.number(value)
                #expect(written)
            }
            #expect(
                result.text == expected, "\(value) (tenths \(String(describing: LineBuffer.tenths(value))))")
        }
        #expect(LineBuffer.tenths(12.3) == 123)
        #expect(LineBuffer.tenths(0.3 * 3) == nil)
        #expect(LineBuffer.tenths(0) == nil)
    }

    @Test func aKeyThatDoesNotFitMarksTheLine() {
        let result = withLine(capacity: 4) { line in line.put("{\"type\":") }
        #expect(result.overflowed)
        #expect(result.text.isEmpty)
        #expect(result.guardIntact)
    }

    @Test func aNumberThatDoesNotFitMarksTheLine() {
        let result = withLine(capacity: 8) { line in
            line.put("{")
            _ = line.number(-2.2250738585072014e-308)
        }
        #expect(result.overflowed)
        #expect(result.text == "{")
        #expect(result.guardIntact)
    }

    @Test func aTimeThatDoesNotFitIsNotWritten() {
        let result = withLine(capacity: 20) { line in
            let timeWritten = line.time(Date(timeIntervalSince1970: 1_709_453_183.109))
            #expect(!timeWritten)
        }
        #expect(result.guardIntact)
    }

    @Test func aTextThatNeedsEscapingIsRefused() {
        let result = withLine(capacity: 64) { line in
            let quotedWritten = line.text("a \"quoted\" name")
            #expect(!quotedWritten)
            let accentedWritten = line.text("café")
            #expect(!accentedWritten)
        }
        #expect(result.text.isEmpty)
        #expect(!result.overflowed)
    }

    /// The word-at-a-time check of a text (``LineBuffer/isPlain(_:)``) says what a byte-by-byte
    /// look says: every byte value at every position of texts of every length up to 24 (a word
    /// and its tail), and random texts of mostly plain bytes.
    @Test func aTextIsPlainExactlyWhenEveryByteIs() {
        func plainByBytes(_ bytes: [UInt8]) -> Bool {
            bytes.allSatisfy {
                $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\")
            }
        }
        func check(_ bytes: [UInt8]) {
            let fast = bytes.withUnsafeBufferPointer { LineBuffer.isPlain($0) }
            #expect(fast == plainByBytes(bytes), "\(bytes)")
        }
        for length in 0...24 {
            let base = [UInt8](repeating: UInt8(ascii: "a"), count: length)
            check(base)
            for position in 0..<length {
                for value in 0...255 {
                    var bytes = base
                    bytes[position] = UInt8(value)
                    check(bytes)
                }
            }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...40, using: &generator)
            check(
                (0..<length).map { _ in
                    Int.random(in: 0..<20, using: &generator) == 0
                        ? UInt8.random(in: 0...255, using: &generator)
                        : UInt8.random(in: 0x20...0x7E, using: &generator)
                })
        }
    }
}
