import Foundation
import Testing

import GeofenceRuntime

@Suite struct HookEnvironmentTests {
    @Test func everyFieldHasItsDocumentedName() {
        #expect(
            HookEnvironment.Field.allCases.map(\.variableName) == [
                "GEOFENCE_EVENT_ID", "GEOFENCE_RULE", "GEOFENCE_PLACE", "GEOFENCE_TRANSITION",
                "GEOFENCE_TIME",
                "GEOFENCE_LATITUDE", "GEOFENCE_LONGITUDE", "GEOFENCE_ACCURACY", "GEOFENCE_DEVICE",
                "GEOFENCE_MESSAGE",
                "GEOFENCE_COMMUTE_START", "GEOFENCE_COMMUTE_END", "GEOFENCE_COMMUTE_DURATION",
            ])
        #expect(HookEnvironment.Field.commuteStart.jsonKey == "commute_start")
        #expect(HookEnvironment.Field.eventID.jsonKey == "event_id")
    }

    @Test func onlyTheGivenFieldsAreSetAndValuesAreKeptAsTheyAre() {
        let variables = HookEnvironment.variables([
            .eventID: "e-1", .place: "$(touch /tmp/x); 'a' \"b\"\nc",
        ])
        #expect(variables == ["GEOFENCE_EVENT_ID": "e-1", "GEOFENCE_PLACE": "$(touch /tmp/x); 'a' \"b\"\nc"])
    }

    @Test func aNulInAValueIsReplacedNotTruncated() {
        let variables = HookEnvironment.variables([.device: "phone\u{0}tail"])
        #expect(variables["GEOFENCE_DEVICE"] == "phone\u{FFFD}tail")
    }

    @Test func theStandardInputJSONCarriesTheFieldsUnchanged() throws {
        let data = HookEnvironment.standardInput([
            .eventID: "e-1", .message: "nul\u{0}here", .latitude: "47.37",
        ])
        let decoded = try JSONDecoder().decode([String: String].self, from: data)
        #expect(decoded == ["event_id": "e-1", "message": "nul\u{0}here", "latitude": "47.37"])
    }
}
