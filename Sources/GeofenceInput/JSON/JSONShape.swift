#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The layout of the last JSON line a full scan accepted: the exact bytes between its values (the
/// brace, each member's name in quotes, the colon, the commas, any blanks) and the slot of each
/// member's key, so that the next line, which a tracker nearly always writes the same way, is
/// read by comparing those bytes and scanning only the values.
///
/// A line read through the shape is checked exactly as a full scan checks it: every byte between
/// two values is one the full scan accepted at the same place in the grammar (at the top level of
/// the object, after the same value), and every value is scanned by the same code
/// (``FlatJSONScanner``'s `scanValue`), so a line is accepted through the shape only if a full
/// scan accepts it, and its tokens are the ones a full scan gives. A line that differs anywhere
/// (another member, another order, a blank more, a bad value) goes to the full scan, which reports
/// any error and learns the new layout.
struct JSONShape {
    /// One member: the bytes before its value (from the end of the value before, or the line's
    /// start), as a range of `literals`, and the slot of its key (-1 for a key not read).
    struct Member {
        var literalStart: Int
        var literalCount: Int
        var slot: Int
    }

    /// Where a full scan found one member's value in the line, and its key's slot.
    struct Span {
        var valueStart: Int
        var valueEnd: Int
        var slot: Int
    }

    /// The most members, and the longest line, a shape is learnt from: a line past either is not a
    /// tracker's fix, and is read by the full scan every time.
    static let maxMembers = 40
    static let maxLineBytes = 1024

    private(set) var literals: [UInt8] = []
    private(set) var members: [Member] = []
    /// The bytes after the last value (the closing brace and any blanks before it).
    private(set) var tailStart = 0
    private(set) var tailCount = 0
    /// Whether a layout has been learnt.
    private(set) var isLearnt = false
    /// The members of the line being scanned in full, in order, while it is scanned.
    var spans: [Span] = []

    init() {
        literals.reserveCapacity(256)
        members.reserveCapacity(16)
        spans.reserveCapacity(16)
    }

    /// Starts recording a full scan of a line (its spans are appended to ``spans``).
    mutating func beginFullScan() {
        spans.removeAll(keepingCapacity: true)
    }

    /// Learns the layout of `bytes[start..<end]`, which a full scan has just accepted with the
    /// members in ``spans``; a line too long or with too many members leaves no layout.
    mutating func learn(_ bytes: UnsafeBufferPointer<UInt8>, start: Int, end: Int) {
        isLearnt = false
        guard end - start <= Self.maxLineBytes, spans.count <= Self.maxMembers else { return }
        literals.removeAll(keepingCapacity: true)
        members.removeAll(keepingCapacity: true)
        var previous = start
        for span in spans {
            members.append(
                Member(
                    literalStart: literals.count, literalCount: span.valueStart - previous, slot: span.slot))
            literals.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[previous..<span.valueStart]))
            previous = span.valueEnd
        }
        tailStart = literals.count
        tailCount = end - previous
        literals.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[previous..<end]))
        isLearnt = true
    }

    /// Whether `bytes[at..<at + count]` is `literal[0..<count]`, inside `end`.
    ///
    /// Compared here eight bytes at a time, the last eight overlapping those before them when
    /// `count` is not a multiple of eight, and nothing read outside either span: the literals
    /// between a fix's values are a dozen to a score of bytes (`,"latitude":`), for which a call
    /// to `memcmp` cost more than the comparing (3% of a replay's time, `perf`).
    @inline(__always)
    static func matches(
        _ bytes: UnsafeBufferPointer<UInt8>, at position: Int, end: Int,
        _ literal: UnsafePointer<UInt8>, count: Int
    ) -> Bool {
        guard end - position >= count, let base = bytes.baseAddress else { return false }
        let line = UnsafeRawPointer(base + position)
        let text = UnsafeRawPointer(literal)
        guard count >= 8 else {
            for offset in 0..<count
            where line.load(fromByteOffset: offset, as: UInt8.self)
                != text.load(fromByteOffset: offset, as: UInt8.self)
            {
                return false
            }
            return true
        }
        var offset = 0
        while offset + 8 < count {
            if line.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                != text.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            {
                return false
            }
            offset += 8
        }
        return line.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            == text.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
    }
}
