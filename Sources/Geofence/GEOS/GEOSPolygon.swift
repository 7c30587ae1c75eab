import CGEOS
import Foundation

/// A polygon or multipolygon in a local metric plane, prepared by GEOS for repeated point tests.
///
/// Thread safety: GEOS contexts and prepared geometries are not thread-safe (a prepared geometry
/// builds its index lazily on first use, libgeos/geos#825). Each `GEOSPolygon` owns its own context
/// and geometries and confines every call to them behind its lock, so the value types that hold it
/// can be shared freely.
final class GEOSPolygon: @unchecked Sendable {
    private let lock = NSLock()
    private let context: GEOSContext
    private let area: OwnedGeometry
    private let boundary: OwnedGeometry
    private let preparedArea: OpaquePointer
    private let preparedBoundary: OpaquePointer

    /// Builds and validates the shape. `polygons[i][0]` is a shell, the rest of `polygons[i]` its
    /// holes. `place` names a plane point for error messages (as a coordinate).
    init(polygons: [[[PlanePoint]]], place: (PlanePoint) -> String) throws(PolygonError) {
        guard let context = GEOSContext() else { throw .geos(GEOSContext.initFailure) }
        let handle = context.handle
        var parts: [OpaquePointer] = []
        for (index, rings) in polygons.enumerated() {
            let label = polygons.count > 1 ? "polygon \(index + 1)" : "polygon"
            do {
                parts.append(try GEOSPolygon.makePolygon(rings, context: context, label: label))
            } catch {
                for part in parts { GEOSGeom_destroy_r(handle, part) }
                throw error
            }
        }
        let geometry: OpaquePointer?
        if parts.count == 1 {
            geometry = parts[0]
        } else {
            var optionalParts = parts.map { Optional($0) }
            // Takes ownership of the parts, also when it fails.
            geometry = optionalParts.withUnsafeMutableBufferPointer { buffer in
                GEOSGeom_createCollection_r(
                    handle, Int32(GEOS_MULTIPOLYGON.rawValue), buffer.baseAddress, UInt32(buffer.count))
            }
        }
        guard let geometry else { throw .geos(context.error("cannot build the multipolygon").message) }
        let area = OwnedGeometry(context: context, pointer: geometry)

        var reason: UnsafeMutablePointer<CChar>?
        var location: OpaquePointer?
        // Returns 1 if valid, 0 if invalid, 2 on exception.
        let valid = GEOSisValidDetail_r(handle, geometry, 0, &reason, &location)
        if valid != 1 {
            var message = valid == 0 ? "invalid polygon" : context.error("GEOS could not validate").message
            if let reason {
                message = "invalid polygon: " + String(cString: reason)
                GEOSFree_r(handle, reason)
            }
            if let location {
                var x = 0.0, y = 0.0
                if GEOSGeomGetX_r(handle, location, &x) == 1, GEOSGeomGetY_r(handle, location, &y) == 1 {
                    message += " at " + place(PlanePoint(x: x, y: y))
                }
                GEOSGeom_destroy_r(handle, location)
            }
            throw .invalidShape(message)
        }

        // Returns NULL on exception.
        guard let boundaryPointer = GEOSBoundary_r(handle, geometry) else {
            throw .geos(context.error("GEOS could not compute the boundary").message)
        }
        let boundary = OwnedGeometry(context: context, pointer: boundaryPointer)
        guard let preparedArea = GEOSPrepare_r(handle, geometry),
            let preparedBoundary = GEOSPrepare_r(handle, boundaryPointer)
        else { throw .geos(context.error("GEOS could not prepare the polygon").message) }
        self.context = context
        self.area = area
        self.boundary = boundary
        self.preparedArea = preparedArea
        self.preparedBoundary = preparedBoundary
    }

    deinit {
        GEOSPreparedGeom_destroy_r(context.handle, preparedArea)
        GEOSPreparedGeom_destroy_r(context.handle, preparedBoundary)
    }

    private static func makePolygon(_ rings: [[PlanePoint]], context: GEOSContext, label: String)
        throws(PolygonError)
        -> OpaquePointer
    {
        let handle = context.handle
        var made: [OpaquePointer] = []
        func destroyMade() { for ring in made { GEOSGeom_destroy_r(handle, ring) } }
        for (index, ring) in rings.enumerated() {
            let name = index == 0 ? "\(label), outer ring" : "\(label), hole \(index)"
            guard let sequence = GEOSCoordSeq_create_r(handle, UInt32(ring.count), 2) else {
                destroyMade()
                throw .geos("\(name): " + context.error("cannot allocate coordinates").message)
            }
            for (i, point) in ring.enumerated() {
                GEOSCoordSeq_setXY_r(handle, sequence, UInt32(i), point.x, point.y)
            }
            // Takes ownership of the sequence; returns NULL (and reports why) for rings that are
            // not closed or have fewer than four points.
            guard let linearRing = GEOSGeom_createLinearRing_r(handle, sequence) else {
                destroyMade()
                throw .invalidShape("\(name): " + context.error("GEOS refused the ring").message)
            }
            made.append(linearRing)
        }
        guard let shell = made.first else { throw .invalidShape("\(label): has no rings") }
        var holes = Array(made.dropFirst()).map { Optional($0) }
        // Takes ownership of shell and holes.
        let polygon = holes.withUnsafeMutableBufferPointer { buffer in
            GEOSGeom_createPolygon_r(handle, shell, buffer.baseAddress, UInt32(buffer.count))
        }
        guard let polygon else {
            throw .invalidShape("\(label): " + context.error("GEOS refused the polygon").message)
        }
        return polygon
    }

    /// Distance in plane units from the point to the boundary, negative inside; a point on the
    /// boundary gives zero or less (inside).
    func signedDistance(x: Double, y: Double) -> Double {
        lock.lock()
        defer { lock.unlock() }
        let handle = context.handle
        guard let point = GEOSGeom_createPointFromXY_r(handle, x, y) else { return .nan }
        defer { GEOSGeom_destroy_r(handle, point) }
        var distance = 0.0
        // Returns 1 on success, 0 on exception.
        guard GEOSPreparedDistance_r(handle, preparedBoundary, point, &distance) == 1 else { return .nan }
        // Returns 1 true, 0 false, 2 on exception. Intersects, not contains: the boundary is inside.
        let inside = GEOSPreparedIntersects_r(handle, preparedArea, point)
        guard inside != 2 else { return .nan }
        return inside == 1 ? -distance : distance
    }
}

/// Reads WKT with GEOS and returns its polygons as rings of (x, y) = (longitude, latitude).
enum WKTPolygonReader {
    static func read(_ text: String) throws(PolygonError) -> [[[(x: Double, y: Double)]]] {
        guard let context = GEOSContext() else { throw .geos(GEOSContext.initFailure) }
        let handle = context.handle
        guard let reader = GEOSWKTReader_create_r(handle) else {
            throw .geos(context.error("cannot create a WKT reader").message)
        }
        defer { GEOSWKTReader_destroy_r(handle, reader) }
        // Returns NULL on a parse error or an invalid ring, with GEOS's reason.
        guard let pointer = GEOSWKTReader_read_r(handle, reader, text) else {
            throw .malformedWKT(context.error("cannot parse").message)
        }
        let geometry = OwnedGeometry(context: context, pointer: pointer)
        let type = GEOSGeomTypeId_r(handle, geometry.pointer)
        switch type {
        case Int32(GEOS_POLYGON.rawValue):
            return [try rings(of: geometry.pointer, context: context)]
        case Int32(GEOS_MULTIPOLYGON.rawValue):
            let count = GEOSGetNumGeometries_r(handle, geometry.pointer)
            var polygons: [[[(x: Double, y: Double)]]] = []
            for index in 0..<max(0, count) {
                guard let part = GEOSGetGeometryN_r(handle, geometry.pointer, index) else { continue }
                polygons.append(try rings(of: part, context: context))
            }
            guard !polygons.isEmpty else { throw .malformedWKT("MULTIPOLYGON is empty") }
            return polygons
        default:
            let name = GEOSGeomType_r(handle, geometry.pointer).map { String(cString: $0) } ?? "unknown"
            throw .malformedWKT("expected POLYGON or MULTIPOLYGON, found \(name)")
        }
    }

    private static func rings(of polygon: OpaquePointer, context: GEOSContext) throws(PolygonError)
        -> [[(x: Double, y: Double)]]
    {
        let handle = context.handle
        guard GEOSisEmpty_r(handle, polygon) == 0 else { throw .malformedWKT("POLYGON is empty") }
        var result: [[(x: Double, y: Double)]] = []
        guard let shell = GEOSGetExteriorRing_r(handle, polygon) else {
            throw .malformedWKT(context.error("polygon has no outer ring").message)
        }
        result.append(try points(of: shell, context: context))
        let holes = GEOSGetNumInteriorRings_r(handle, polygon)
        for index in 0..<max(0, holes) {
            guard let hole = GEOSGetInteriorRingN_r(handle, polygon, index) else { continue }
            result.append(try points(of: hole, context: context))
        }
        return result
    }

    private static func points(of ring: OpaquePointer, context: GEOSContext) throws(PolygonError)
        -> [(x: Double, y: Double)]
    {
        let handle = context.handle
        guard let sequence = GEOSGeom_getCoordSeq_r(handle, ring) else {
            throw .malformedWKT(context.error("ring has no coordinates").message)
        }
        var size: UInt32 = 0
        guard GEOSCoordSeq_getSize_r(handle, sequence, &size) != 0 else {
            throw .malformedWKT(context.error("ring has no size").message)
        }
        var points: [(x: Double, y: Double)] = []
        points.reserveCapacity(Int(size))
        for index in 0..<size {
            var x = 0.0, y = 0.0
            guard GEOSCoordSeq_getXY_r(handle, sequence, index, &x, &y) != 0 else {
                throw .malformedWKT(context.error("cannot read a coordinate").message)
            }
            points.append((x, y))
        }
        return points
    }
}
