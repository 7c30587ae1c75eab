import Foundation
import Testing

@testable import Geofence
@testable import GeofenceInput

/// A coordinate for expected values; tables hold only valid ones, so the unchecked initialiser
/// keeps them free of `try`.
func at(_ latitude: Double, _ longitude: Double) -> Coordinate {
    Coordinate(uncheckedLatitude: latitude, longitude: longitude)
}

/// A date from Unix seconds.
func unix(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }

/// A line and the record it must decode to.
struct GoodLine: Sendable, CustomTestStringConvertible {
    let line: String
    let expected: InputRecord
    init(_ line: String, _ expected: InputRecord) {
        self.line = line
        self.expected = expected
    }
    var testDescription: String { line }
}

/// A line and the exact error it must give.
struct BadLine: Sendable, CustomTestStringConvertible {
    let line: String
    let message: String
    let kind: RecordError.Kind
    init(_ line: String, _ message: String, _ kind: RecordError.Kind) {
        self.line = line
        self.message = message
        self.kind = kind
    }
    var testDescription: String { line }
}

/// Decodes one line with a fresh decoder.
func decodeOne(
    _ line: String, format: InputFormat = .auto, source: String = "fixes.ndjson", number: Int = 17,
    timeZone: TimeZone = .gmt, deviceId: String? = nil
) -> Result<InputRecord?, RecordError> {
    var decoder = LineDecoder(format: format, source: source, timeZone: timeZone, deviceId: deviceId)
    return decoder.decode(line, number: number)
}

/// The URL of a copied test data file.
func dataURL(_ path: String) throws -> URL {
    try #require(Bundle.module.url(forResource: "Data/" + path, withExtension: nil))
}
