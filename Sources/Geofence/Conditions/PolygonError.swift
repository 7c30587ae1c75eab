/// Why a polygon was refused: a malformed input, a shape GEOS finds invalid, or GEOS itself
/// failing, each saying what is wrong and where.
///
/// An invalid polygon is never repaired silently: a polygon that is not what the user meant would
/// fire at the wrong places.
public enum PolygonError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No polygon was given at all.
    case empty
    /// The WKT text is not a polygon that can be read; the detail says what and where (ring, vertex).
    case malformedWKT(String)
    /// The GeoJSON is not a polygon that can be read; `path` is the JSON path of the fault (empty
    /// for the whole document).
    case malformedGeoJSON(path: String, String)
    /// The shape is not a valid polygon (self-intersecting, unclosed or too short rings...): GEOS's
    /// reason and where, as a coordinate.
    case invalidShape(String)
    /// GEOS could not do its part (start, allocate, prepare); its own message.
    case geos(String)

    /// One line for people: `WKT: outer ring, vertex 3: ...`, `GeoJSON features[0]: ...`.
    public var description: String {
        switch self {
        case .empty: "no polygon given"
        case .malformedWKT(let detail): "WKT: \(detail)"
        case .malformedGeoJSON(let path, let detail):
            path.isEmpty ? "GeoJSON: \(detail)" : "GeoJSON \(path): \(detail)"
        case .invalidShape(let detail), .geos(let detail): detail
        }
    }
}
