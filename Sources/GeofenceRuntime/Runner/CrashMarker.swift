import CSpawn
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A note in the state directory naming the input lines the engine is processing, so that a line
/// that crashes the process is found at the next start instead of crashing every start after it.
///
/// Before the engine processes lines of a file, it writes which (`processing` in the state
/// directory: the input, the file's identity, the first and last line numbers, and whether they
/// are processed one at a time); after the batch is committed, it empties the note. A fatal signal
/// (a crash or a Swift trap) appends `signal N` to the note on its way out. The note is written
/// without `fsync`: it must outlive a crash of the process, which the page cache does, not a crash
/// of the machine, which no line causes.
///
/// At the next start (see ``Runner``), a note that ends with a signal means those lines crashed it:
/// - lines processed as a batch are retried one at a time, each with a note of its own (the one retry);
/// - a line that crashed when processed alone is poison: recorded with the signal as its reason and
///   skipped, and the run goes on.
/// A note without a signal (SIGKILL, power loss, the OOM killer) blames no line: the batch is read
/// again as after any restart.
final class CrashMarker: @unchecked Sendable {
    /// Lines being processed, as the note says.
    struct Lines: Equatable {
        /// The input's name.
        var input: String
        /// The identity of the file they came from.
        var identity: String
        /// The first line's number.
        var first: Int64
        /// The last line's number.
        var last: Int64
        /// Whether they are processed one at a time (a retry).
        var alone: Bool
        /// The fatal signal that ended the process while processing them, if it crashed.
        var signal: Int32?

        /// Whether `number` of the file `identity` of `input` is among these lines.
        func contains(input other: String, identity otherIdentity: String?, number: Int64) -> Bool {
            input == other && identity == otherIdentity && (first...last).contains(number)
        }

        /// The prefix of the identity of lines named by their text (``textHash(_:)``), not by a file.
        static let textPrefix = "text:"
        /// The most hashes a note lists for one item: a phone posting a batch again sends it from
        /// its start, so the first ones find it; the retry then takes every line of it.
        static let textHashLimit = 256

        /// Lines that have no place in a file (an HTTP post, an MQTT message, standard input),
        /// named by the hashes of their texts: numbers `first` to `last` of their item.
        static func text(
            input: String, hashes: some Collection<UInt64>, first: Int64, last: Int64, alone: Bool
        ) -> Lines {
            let listed = hashes.prefix(textHashLimit).map { String($0, radix: 16) }
            return Lines(
                input: input, identity: textPrefix + listed.joined(separator: ","), first: first, last: last,
                alone: alone)
        }

        /// Whether these are lines named by their text that came on `input` and include one with a
        /// hash in `hashes`.
        func holdsText(of other: String, anyOf hashes: some Sequence<UInt64>) -> Bool {
            guard input == other, identity.hasPrefix(Lines.textPrefix) else { return false }
            let listed = Set(
                identity.dropFirst(Lines.textPrefix.count).split(separator: ",").compactMap {
                    UInt64($0, radix: 16)
                })
            return hashes.contains { listed.contains($0) }
        }

        /// Where the lines are, for messages: `INPUT:LINE` in a file, `INPUT, line N of a message`
        /// for lines named by their text.
        var place: String {
            guard identity.hasPrefix(Lines.textPrefix) else { return "\(input):\(first)" }
            let hash = identity.dropFirst(Lines.textPrefix.count).prefix { $0 != "," }
            return "\(input), line \(first) of a message (text hash \(hash))"
        }

        /// The signal as a reason: its number and name.
        var reason: String {
            guard let signal else { return "the process ended" }
            let names: [Int32: String] = [
                SIGSEGV: "SIGSEGV", SIGBUS: "SIGBUS", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
                SIGABRT: "SIGABRT", SIGFPE: "SIGFPE",
            ]
            return "crashed with signal \(signal)" + (names[signal].map { " (\($0))" } ?? "")
        }
    }

    /// The FNV-1a hash of a line's text, which names a line that has no place in a file: the same
    /// text comes back as the same hash in the next run (unlike Swift's seeded `hashValue`).
    static func textHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    private let descriptor: Int32
    private var isSet = false

    /// Opens (or creates) the note in `directory`; what it said when opened is ``previous``.
    init(directory: String) throws {
        let path = directory + "/processing"
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw RunError(message: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        previous = CrashMarker.parse(CrashMarker.readAll(descriptor))
    }

    deinit { close(descriptor) }

    /// What the note said at the start: the lines the last run was processing when it ended, or
    /// `nil` if it ended between batches.
    let previous: Lines?

    /// Makes fatal signals append their number to the note from now on.
    func armCrashHandler() {
        _ = cspawn_install_crash_note(descriptor)
    }

    /// Notes that `lines` are about to be processed.
    func set(_ lines: Lines) {
        let text = Array(
            "lines\t\(lines.alone ? 1 : 0)\t\(lines.first)\t\(lines.last)\t\(lines.identity)\t\(lines.input)\n"
                .utf8)
        _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        _ = ftruncate(descriptor, off_t(text.count))
        isSet = true
    }

    /// Notes that nothing is being processed (the batch was committed).
    func clear() {
        guard isSet else { return }
        _ = ftruncate(descriptor, 0)
        isSet = false
    }

    private static func readAll(_ descriptor: Int32) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var offset: off_t = 0
        // The note is one line and a signal: a few KiB at most, whatever a damaged file holds.
        while bytes.count < 1 << 16 {
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) }
            guard count > 0 else { break }
            bytes.append(contentsOf: buffer[0..<count])
            offset += off_t(count)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads a note; `nil` for an empty or unreadable one.
    static func parse(_ text: String) -> Lines? {
        let rows = text.split(separator: "\n")
        guard let first = rows.first else { return nil }
        let fields = first.split(separator: "\t", maxSplits: 5, omittingEmptySubsequences: false)
        guard fields.count == 6, fields[0] == "lines", let from = Int64(fields[2]), let to = Int64(fields[3]),
            from <= to
        else { return nil }
        var lines = Lines(
            input: String(fields[5]), identity: String(fields[4]), first: from, last: to,
            alone: fields[1] == "1")
        for row in rows.dropFirst() where row.hasPrefix("signal ") {
            lines.signal = Int32(row.dropFirst("signal ".count))
        }
        return lines
    }
}
