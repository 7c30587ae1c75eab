import Foundation
import Testing

@testable import Geofence

@Suite struct CoordinateTests {
    @Test(arguments: [
        (Double.nan, 0.0), (0, .nan), (.infinity, 0), (0, -.infinity), (90.0001, 0), (-91, 0), (0, 180.5),
        (0, -181),
    ])
    func refusesValuesThatAreNotPlaces(latitude: Double, longitude: Double) {
        #expect(throws: CoordinateError.self) { try Coordinate(latitude: latitude, longitude: longitude) }
    }

    @Test(arguments: [(90.0, 180.0), (-90, -180), (0, 0), (51.5, -0.12)])
    func acceptsTheWholeRange(latitude: Double, longitude: Double) throws {
        let c = try Coordinate(latitude: latitude, longitude: longitude)
        #expect(c.latitude == latitude && c.longitude == longitude)
    }

    @Test func decodingRefusesAnOutOfRangeLatitude() {
        let json = Data(#"{"latitude": 91, "longitude": 0}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Coordinate.self, from: json) }
    }
}
