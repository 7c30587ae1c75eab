import Foundation

/// An optional number or date in eight bytes instead of nine, for the fields a device keeps one of
/// for each of its twenty conditions (where the ninth byte costs eight, as alignment pads it).
///
/// `nil` is one NaN bit pattern: a signalling NaN, which arithmetic never produces (it quiets
/// NaNs) and which no input decodes to, so every other `Double`, other NaNs included, is kept
/// exactly.
@usableFromInline
struct CompactOptional: Sendable, Equatable {
    @usableFromInline static var noneBits: UInt64 { 0x7FF4_0000_6E6F_6E65 }
    @usableFromInline var bits: UInt64

    /// Keeps a number, or none.
    @inlinable
    init(_ value: Double?) { bits = value.map(\.bitPattern) ?? CompactOptional.noneBits }

    /// Keeps a date, or none (a date is its seconds from the reference date, exactly).
    init(_ date: Date?) { self.init(date.map(\.timeIntervalSinceReferenceDate)) }

    /// Whether none is kept.
    @inlinable
    var isNone: Bool { bits == CompactOptional.noneBits }

    /// The number kept, or `nil`.
    var double: Double? { bits == CompactOptional.noneBits ? nil : Double(bitPattern: bits) }

    /// The date kept, or `nil`.
    var date: Date? { double.map(Date.init(timeIntervalSinceReferenceDate:)) }
}
