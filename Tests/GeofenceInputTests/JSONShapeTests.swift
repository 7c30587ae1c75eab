import Foundation
import Geofence
import Testing

@testable import GeofenceInput

/// A decoder reads a line laid out like the one before it through the layout it learnt
/// (``JSONShape``); these check that what it gives, records and errors alike, is exactly what a
/// decoder that has learnt nothing gives for the same line.
@Suite struct JSONShapeTests {
    /// Each line decoded in turn by one decoder, and each by a decoder of its own.
    private func inTurnAndAlone(_ lines: [String], format: InputFormat = .auto) -> (
        inTurn: [Result<InputRecord?, RecordError>], alone: [Result<InputRecord?, RecordError>]
    ) {
        var shared = LineDecoder(format: format, source: "shape.ndjson")
        var inTurn: [Result<InputRecord?, RecordError>] = []
        var alone: [Result<InputRecord?, RecordError>] = []
        for (index, line) in lines.enumerated() {
            var text = line
            text.withUTF8 { inTurn.append(shared.decode(bytes: $0, number: index + 1)) }
            var fresh = LineDecoder(format: format, source: "shape.ndjson")
            text.withUTF8 { alone.append(fresh.decode(bytes: $0, number: index + 1)) }
        }
        return (inTurn, alone)
    }

    private func expectSame(_ lines: [String], format: InputFormat = .auto) {
        let (inTurn, alone) = inTurnAndAlone(lines, format: format)
        for index in lines.indices {
            #expect(inTurn[index] == alone[index], "line \(index + 1): \(lines[index])")
        }
    }

    /// ``expectSame(_:format:)`` for many lines: the first five that differ are named, and the
    /// results of the lines decoded alone are returned.
    @discardableResult
    private func expectNoneDiffer(_ lines: [String], format: InputFormat) -> [Result<
        InputRecord?, RecordError
    >] {
        let (inTurn, alone) = inTurnAndAlone(lines, format: format)
        var differing = 0
        for index in lines.indices where inTurn[index] != alone[index] {
            differing += 1
            if differing <= 5 { Issue.record("line \(index + 1) differs: \(lines[index])") }
        }
        #expect(differing == 0)
        return alone
    }

    @Test func linesOfOneLayoutGiveTheirOwnValues() throws {
        let lines = (0..<50).map { index in
            #"{"timestamp":\#(1_772_521_200_000 + index * 1000),"latitude":51.5\#(index),"longitude":-0.12\#(index),"horizontalAccuracy":\#(index % 9 + 1).0}"#
        }
        let (inTurn, alone) = inTurnAndAlone(lines)
        #expect(inTurn == alone)
        // And they are the values written, not the first line's.
        guard case .success(.fix(let last)?) = inTurn.last else {
            Issue.record("the last line gave no fix: \(String(describing: inTurn.last))")
            return
        }
        #expect(last.coordinate.latitude == 51.549)
        #expect(last.timestamp == Date(timeIntervalSince1970: 1_772_521_249))
        #expect(last.horizontalAccuracy == 5)
    }

    @Test func aLineThatBreaksTheLayoutIsJudgedAsAloneAndTheNextIsReadAgain() {
        let good = #"{"timestamp":1772521200000,"latitude":51.5,"longitude":-0.12,"horizontalAccuracy":8.0}"#
        expectSame([
            good,
            // The same layout with a bad value in each place: the errors must name the field.
            #"{"timestamp":1772521200000,"latitude":91.5,"longitude":-0.12,"horizontalAccuracy":8.0}"#,
            #"{"timestamp":1772521200000,"latitude":51.5,"longitude":-0.12,"horizontalAccuracy":"x"}"#,
            #"{"timestamp":17725212,"latitude":51.5,"longitude":-0.12,"horizontalAccuracy":8.0}"#,
            #"{"timestamp":1772521200000,"latitude":51.5e,"longitude":-0.12,"horizontalAccuracy":8.0}"#,
            #"{"timestamp":1772521200000,"latitude":51.5,"longitude":-0.12,"horizontalAccuracy":8.0"#,
            #"{"timestamp":1772521200000,"latitude":51.5,"longitude":-0.12,"horizontalAccuracy":8.0}}"#,
            #"{"timestamp":1772521200000,"latitude":51.5,"longitude":-0.12,"horizontalAccuracy":8.0} x"#,
            #"{"timestamp":1772521200000,"latitude":null,"longitude":-0.12,"horizontalAccuracy":8.0}"#,
            good,
            // Blanks where the layout has none, and another order.
            #"{"timestamp": 1772521200000,"latitude":51.5,"longitude":-0.12,"horizontalAccuracy":8.0}"#,
            #"{"latitude":51.5,"timestamp":1772521200000,"longitude":-0.12,"horizontalAccuracy":8.0}"#,
            good,
            // A member more, a member fewer, a member given twice (the last value counts).
            #"{"timestamp":1772521200000,"latitude":51.5,"longitude":-0.12,"horizontalAccuracy":8.0,"deviceId":"a"}"#,
            #"{"timestamp":1772521200000,"latitude":51.5,"longitude":-0.12}"#,
            #"{"timestamp":1772521200000,"latitude":51.5,"latitude":52.5,"longitude":-0.12}"#,
            #"{"timestamp":1772521200000,"latitude":51.5,"latitude":53.5,"longitude":-0.12}"#,
            good,
        ])
    }

    @Test func stringsEscapesAndNestedValuesAreScannedInFullEveryTime() {
        let lines = [
            #"{"timestamp":1772521200000,"latitude":51.5,"longitude":-0.12,"deviceId":"phone","extra":{"a":[1,2]}}"#,
            #"{"timestamp":1772521201000,"latitude":51.6,"longitude":-0.13,"deviceId":"ph\"one","extra":{"a":[1,2,3]}}"#,
            #"{"timestamp":1772521202000,"latitude":51.7,"longitude":-0.14,"deviceId":"ph\u00f6ne","extra":[]}"#,
            #"{"timestamp":1772521203000,"latitude":51.8,"longitude":-0.15,"deviceId":"a\qb","extra":{}}"#,
            #"{"timestamp":1772521204000,"latitude":51.9,"longitude":-0.16,"deviceId":12,"extra":{}}"#,
            #"{"timestamp":1772521205000,"latitude":51.9,"longitude":-0.16,"deviceId":"unterminated,"extra":{}}"#,
            #"{"timestamp":1772521206000,"latitude":51.9,"longitude":-0.16,"deviceId":"x","extra":{"a":}}"#,
            // A key written with an escape is the same key.
            #"{"timestamp":1772521207000,"lat\u0069tude":51.9,"longitude":-0.16}"#,
            #"{"timestamp":1772521208000,"lat\u0069tude":52.9,"longitude":-0.16}"#,
            #"{"time":"2026-03-03T07:00:09Z","latitude":51.9,"longitude":-0.16}"#,
            #"{"time":"2026-03-03T07:00:10+01:00","latitude":51.9,"longitude":-0.16}"#,
            #"{"time":"not a time","latitude":51.9,"longitude":-0.16}"#,
            #"{"type":"visit","latitude":51.9,"longitude":-0.16,"horizontalAccuracy":40,"arrival":1772521200000,"departure":null}"#,
            #"{"type":"visit","latitude":51.9,"longitude":-0.16,"horizontalAccuracy":-4,"arrival":1772521200000,"departure":null}"#,
        ]
        expectSame(lines)
        expectSame(lines, format: .ndjson)
    }

    @Test func ownTracksLinesTooAreWhatTheyAreAlone() {
        expectSame(
            [
                #"{"_type":"location","tid":"ph","lat":51.5,"lon":-0.12,"tst":1772521200,"acc":12}"#,
                #"{"_type":"location","tid":"ph","lat":51.6,"lon":-0.13,"tst":1772521260,"acc":10}"#,
                #"{"_type":"location","tid":"ph","lat":"51.6","lon":-0.13,"tst":1772521320,"acc":10}"#,
                #"{"_type":"location","tid":"ph","lat":51.6,"lon":-0.13,"tst":1772521380,"acc":10}"#,
                #"{"_type":"waypoint","tid":"ph","lat":51.6,"lon":-0.13,"tst":1772521380,"acc":10}"#,
                #"{"_type":"location","tid":"ph","lat":51.6,"lon":-0.13,"tst":17725,"acc":10}"#,
            ], format: .auto)
    }

    /// The bytes between the values are compared a word at a time, the last word overlapping the
    /// one before it (`JSONShape.matches`): a line that differs from the layout in any one of those
    /// bytes, whichever its place in a word, is not read through the layout. Each such line
    /// follows a line of the layout, so that the layout is learnt when it comes.
    @Test func aLineDifferingInAnyOneByteBetweenTheValuesIsNotReadThroughTheLayout() {
        // Literals of 1 (`}`), 5 (`,"x":`), 12, 13 and 22 bytes.
        let good =
            #"{"timestamp":1772521200000,"x":1,"latitude":51.5,"longitude":-0.12,"horizontalAccuracy":8.0}"#
        let bytes = Array(good.utf8)
        var valueBytes = Set<Int>()
        for value in ["1772521200000", ":1,", "51.5", "-0.12", "8.0"] {
            guard let range = good.range(of: value) else { continue }
            let start = good.utf8.distance(from: good.startIndex, to: range.lowerBound)
            let length = value.utf8.count
            let skip = value == ":1," ? 1..<2 : 0..<length
            for offset in skip { valueBytes.insert(start + offset) }
        }
        var lines = [good]
        for index in bytes.indices where !valueBytes.contains(index) {
            for replacement in [UInt8(ascii: "q"), UInt8(ascii: " ")] where bytes[index] != replacement {
                var changed = bytes
                changed[index] = replacement
                lines.append(String(decoding: changed, as: UTF8.self))
                lines.append(good)
            }
        }
        // Every byte between the values, twice (the layout has neither a `q` nor a blank).
        #expect(valueBytes.count == 26)
        #expect(lines.count == 1 + 4 * (bytes.count - valueBytes.count))
        expectNoneDiffer(lines, format: .ndjson)
    }

    /// A number in a value's place is read by the layout's own path; what is not quite a number
    /// there is refused, or read, exactly as a full scan refuses or reads it.
    @Test func numbersAndNearNumbersInTheLayoutAreWhatTheyAreAlone() {
        let values = [
            "-", "-x", "--1", "-0", "-0.0", "0", "00", "01", "-01", "0.", "1.", ".5", "1.e5", "1e", "1e+",
            "1e-",
            "1E5", "1e400", "-1e400", "1e-400", "0.000000000000000000000000000001",
            "123456789012345678901234567890", "9007199254740993", "51.500000000000000000001", "0x10", "1_0",
            "+1", "Infinity", "NaN", "1 ", "1}",
        ]
        let good = #"{"timestamp":1772521200000,"latitude":51.5,"longitude":-0.12,"horizontalAccuracy":8.0}"#
        var lines: [String] = []
        for value in values {
            lines.append(good)
            lines.append(
                #"{"timestamp":1772521200000,"latitude":51.5,"longitude":-0.12,"horizontalAccuracy":\#(value)}"#
            )
            lines.append(good)
            lines.append(
                #"{"timestamp":1772521200000,"latitude":\#(value),"longitude":-0.12,"horizontalAccuracy":8.0}"#
            )
        }
        expectSame(lines, format: .ndjson)
        expectSame(lines)
    }

    /// Lines of one layout with bytes changed at random: whatever each becomes (a fix with other
    /// values, an error of any kind, another layout), one decoder in turn gives what a fresh one
    /// gives. The format is NDJSON: told apart per line, a damaged line may read as a CSV header,
    /// which rightly changes how the rows after it are read.
    @Test func randomlyDamagedLinesGiveWhatTheyGiveAlone() {
        var generator = SplitMix(seed: 0x5EED)
        let template = Array(
            #"{"timestamp":1772521200000,"latitude":51.500736691437154,"longitude":-0.12451434652441414,"horizontalAccuracy":8.0,"deviceId":"d01"}"#
                .utf8)
        let alphabet = Array(#"0123456789.-+eE"{}[],: \ntruefalsn"#.utf8)
        var lines: [String] = []
        for _ in 0..<3000 {
            var bytes = template
            // Half the lines are left as they are, so the layout is learnt again and again.
            if generator.next() % 2 == 0 {
                for _ in 0..<(1 + Int(generator.next() % 3)) {
                    let position = Int(generator.next() % UInt64(bytes.count))
                    switch generator.next() % 3 {
                    case 0: bytes[position] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                    case 1: bytes.remove(at: position)
                    default:
                        bytes.insert(alphabet[Int(generator.next() % UInt64(alphabet.count))], at: position)
                    }
                }
            }
            lines.append(String(decoding: bytes, as: UTF8.self))
        }
        let alone = expectNoneDiffer(lines, format: .ndjson)
        // The damage made both kinds: lines that still read and lines that do not.
        let failures = alone.filter { if case .failure = $0 { true } else { false } }.count
        #expect(failures > 300)
        #expect(failures < 2700)
    }
}

/// A small deterministic generator, so a failure can be replayed.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
