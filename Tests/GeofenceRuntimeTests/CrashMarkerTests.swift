import Foundation
import TestSupport
import Testing

@testable import GeofenceRuntime

/// The crash note's naming of lines that have no place in a file (HTTP posts, MQTT messages,
/// standard input): by the hashes of their texts, the same in every run.
struct CrashMarkerTests {
    /// The hash is FNV-1a 64 (published test vectors), not Swift's per-process seeded hash: a text
    /// posted again after a restart has the hash the crashed run noted.
    @Test func theTextHashIsTheSameInEveryRun() {
        #expect(CrashMarker.textHash("") == 0xcbf2_9ce4_8422_2325)
        #expect(CrashMarker.textHash("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(CrashMarker.textHash("foobar") == 0x8594_4171_f739_67e8)
    }

    /// A note naming a post's lines by their hashes is read back by the next start as written, and
    /// finds an item holding any of them again, on the same input only.
    @Test func aNoteOfTextLinesIsReadBackAndFindsThemAgain() throws {
        let directory = try TemporaryDirectory("crashnote")
        let hashes = ["first line", "second line", "third line"].map(CrashMarker.textHash)
        let written = CrashMarker.Lines.text(input: "http", hashes: hashes, first: 1, last: 3, alone: false)
        do {
            let marker = try CrashMarker(directory: directory.path)
            marker.set(written)
        }
        let previous = try #require(try CrashMarker(directory: directory.path).previous)
        #expect(previous == written)
        #expect(previous.holdsText(of: "http", anyOf: [CrashMarker.textHash("second line")]))
        #expect(!previous.holdsText(of: "mqtt", anyOf: [CrashMarker.textHash("second line")]))
        #expect(!previous.holdsText(of: "http", anyOf: [CrashMarker.textHash("another line")]))
        // A file's lines are never taken for text lines, whatever their numbers.
        let file = CrashMarker.Lines(input: "http", identity: "2049:1234", first: 1, last: 3, alone: false)
        #expect(!file.holdsText(of: "http", anyOf: hashes))
        #expect(file.place == "http:1")
        #expect(previous.place.hasPrefix("http, line 1 of a message (text hash "))
    }

    /// A batch larger than the note lists is found by its first lines, which a phone posting it
    /// again sends first; the note stays a few KiB.
    @Test func aLargeBatchIsNamedByItsFirstLines() {
        let hashes = (0..<5000).map { CrashMarker.textHash("line \($0)") }
        let lines = CrashMarker.Lines.text(input: "http", hashes: hashes, first: 1, last: 5000, alone: false)
        #expect(lines.identity.utf8.count < 17 * CrashMarker.Lines.textHashLimit + 16)
        #expect(lines.holdsText(of: "http", anyOf: [hashes[0]]))
        #expect(lines.holdsText(of: "http", anyOf: [hashes[CrashMarker.Lines.textHashLimit - 1]]))
        #expect(!lines.holdsText(of: "http", anyOf: [hashes[4999]]))
    }
}
