/// Why a polygon was refused: GEOS's reason, or a malformed input, and where it is.
///
/// An invalid polygon is never repaired silently: a polygon that is not what the user meant would
/// fire at the wrong places.
public struct PolygonError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong and where (ring, vertex or coordinate).
    public let message: String

    /// Makes an error with a message that says what is wrong and where.
    public init(_ message: String) { self.message = message }

    /// A readable form, for logs and messages.
    public var description: String { message }
}
