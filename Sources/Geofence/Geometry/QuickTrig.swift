import Foundation

/// The sine and cosine of an angle of a coordinate (in radians, within ±3.2), to within a few
/// units in the last place, in about half the C library's instructions (some 80 for the pair, in
/// callgrind); any other angle, or one that is not a number, gets the C library's.
///
/// The angle is split into the nearest sixty-fourth of a radian, whose sine and cosine come from a
/// table the C library filled, and a remainder of at most 1/128, whose sine and cosine are their
/// Taylor series to the tenth power (the first term left out is below 10⁻²³ of the result); the
/// angle-sum formulas join them. The monitor takes one ``EarthPoint`` a fix, four of these: that
/// was about a ninth of one device's pipeline in replay. Every use of a point is a bound with at
/// least a millimetre of slack, and a few units in the last place are nanometres on the Earth.
/// (Nothing whose value is printed takes them: a stay's plane point, say, moves its reported
/// coordinate, and the nanometres would show in the last digit.)
enum QuickTrig {
    /// Table entries per radian: a power of two, so that an entry's angle is exact.
    private static let perRadian = 64.0
    /// The table covers `-limit...limit` sixty-fourths of a radian (a little over ±π).
    private static let limit = 205
    /// The sine and cosine of every angle of the table, in turn.
    private static let table: [Double] = {
        var values: [Double] = []
        values.reserveCapacity(4 * limit + 2)
        for k in -limit...limit {
            let angle = Double(k) / perRadian
            values.append(sin(angle))
            values.append(cos(angle))
        }
        return values
    }()

    /// Radians in a degree, as one constant: a conversion is then one multiplication, where
    /// `degrees * .pi / 180` is a multiplication and a division (the result may differ in its
    /// last bit, which is nothing here).
    private static let radiansPerDegree = Double.pi / 180

    /// The sine and cosine of `angle`.
    @inline(__always)
    static func sinCos(_ angle: Double) -> (sin: Double, cos: Double) {
        // Also false for NaN.
        guard angle.magnitude <= 3.2 else { return (sin(angle), cos(angle)) }
        return table.withUnsafeBufferPointer { sinCos(angle, table: $0) }
    }

    /// The sines and cosines of a coordinate's latitude and longitude, given in degrees: both read
    /// from the table at once (a lazily made global is checked once, not for each angle).
    @inline(__always)
    static func sinCos(latitude: Double, longitude: Double) -> (
        latitude: (sin: Double, cos: Double), longitude: (sin: Double, cos: Double)
    ) {
        let phi = latitude * radiansPerDegree, lambda = longitude * radiansPerDegree
        // Also false for NaN.
        guard phi.magnitude <= 3.2, lambda.magnitude <= 3.2 else {
            return ((sin(phi), cos(phi)), (sin(lambda), cos(lambda)))
        }
        return table.withUnsafeBufferPointer { table in
            (sinCos(phi, table: table), sinCos(lambda, table: table))
        }
    }

    /// The sine and cosine of an angle within ±3.2 radians, from the table and the series.
    @inline(__always)
    private static func sinCos(_ angle: Double, table: UnsafeBufferPointer<Double>) -> (
        sin: Double, cos: Double
    ) {
        let scaled = angle * perRadian
        let k = Int(scaled + (scaled < 0 ? -0.5 : 0.5))
        let d = angle - Double(k) / perRadian
        let d2 = d * d
        let s =
            d * (1 - d2 * (1 / 6.0) * (1 - d2 * (1 / 20.0) * (1 - d2 * (1 / 42.0) * (1 - d2 * (1 / 72.0)))))
        let c =
            1 - d2 * 0.5
            * (1 - d2 * (1 / 12.0) * (1 - d2 * (1 / 30.0) * (1 - d2 * (1 / 56.0) * (1 - d2 * (1 / 90.0)))))
        let index = 2 * (k + limit)
        let sinK = table[index], cosK = table[index + 1]
        return (sinK * c + cosK * s, cosK * c - sinK * s)
    }
}
