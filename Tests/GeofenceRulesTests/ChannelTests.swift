import Foundation
import Testing

@testable import GeofenceRules

/// `channels:` that send reminders to a phone as an OwnTracks command.
@Suite struct ChannelTests {
    private func parse(_ channels: String) -> Result<RulesFile, RulesFileError> {
        RulesLoader.parse(
            """
            places:
              home: { center: [51.5, -0.12], radius: 150 }
            channels:
            \(channels)
            rules:
              - { name: milk, on: enter home, remind: Buy milk, to: phone }
            """, file: "rules.yaml", baseDirectory: URL(fileURLWithPath: "/tmp"))
    }

    @Test func anOwnTracksChannelGoesToTheEventsDeviceOrANamedOne() throws {
        let own = try parse("  phone: { owntracks: device }").get()
        #expect(own.channels["phone"] == .owntracks(device: nil))
        guard case .remind(let remind) = own.rules.first?.actions.first else {
            Issue.record("the rule has no reminder")
            return
        }
        #expect(remind.channel == .owntracks(device: nil))
        #expect(own.summary.contains("send an OwnTracks notification to the device the event is about"))
        let janes = try parse("  phone: { owntracks: jane/phone }").get()
        #expect(janes.channels["phone"] == .owntracks(device: "jane/phone"))
    }

    @Test func anOwnTracksChannelThatNamesNoPhoneIsAnErrorWithItsPlace() {
        for (channel, message) in [
            (
                "  phone: { owntracks: jane }",
                #"rules.yaml:4:23: channel "phone": owntracks: is device (the device the event is about) or USER/DEVICE, not "jane""#
            ),
            (
                "  phone: { owntracks: jane/+ }",
                #"rules.yaml:4:23: channel "phone": owntracks: is device (the device the event is about) or USER/DEVICE, not "jane/+""#
            ),
            (
                "  phone: { owntracks: device, mqtt: x }",
                #"rules.yaml:4:31: channel "phone": mqtt: does not go with owntracks:"#
            ),
        ] {
            guard case .failure(let error) = parse(channel) else {
                Issue.record("\(channel) loaded")
                continue
            }
            #expect(error.diagnostics.map(\.description).contains(message), "\(error.diagnostics)")
        }
    }
}
