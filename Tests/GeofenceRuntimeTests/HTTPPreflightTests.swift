import Foundation
import GeofenceRules
import Testing

@testable import GeofenceRuntime

/// `geofence check` and `run` warn of the actions that post over HTTP when libcurl, loaded on
/// first use, cannot be loaded on this machine; of those only.
@Suite struct HTTPPreflightTests {
    private let yaml = """
        timezone: UTC
        places:
          home: { center: [51.5, -0.12], radius: 100 }
        channels:
          phone: { post: "http://127.0.0.1:9/ntfy/jane", body: text }
          board: { mqtt: family/reminders }
        rules:
          - { name: hook, on: enter home, post: "http://127.0.0.1:9/hook" }
          - { name: milk, on: enter home, remind: Buy milk, to: phone }
          - { name: bread, on: exit home, remind: Buy bread, to: board }
          - { name: note, on: exit home, remind: Lock the door }

        """

    private func warnings(httpProblem: String?) throws -> [ActionPreflight.Warning] {
        let rules = try RulesLoader.parse(yaml, file: "rules.yaml", baseDirectory: URL(fileURLWithPath: "/"))
            .get()
        return ActionPreflight.warnings(for: rules, logDirectory: nil, environment: [:]) { httpProblem }
    }

    @Test func eachActionThatPostsIsWarnedOfWhenLibcurlCannotBeLoaded() throws {
        let found = try warnings(httpProblem: "cannot load libcurl.so.4 (the libcurl4 package): gone")
        #expect(found.map(\.rule) == ["hook", "milk"])
        #expect(
            found.allSatisfy {
                $0.message
                    == "its HTTP POST cannot be sent: cannot load libcurl.so.4 (the libcurl4 package): gone"
            })
        #expect(found.first?.description.hasPrefix("rules.yaml:") == true)
    }

    @Test func nothingIsSaidWhenLibcurlLoads() throws {
        #expect(try warnings(httpProblem: nil).isEmpty)
    }

    @Test func libcurlLoadsOnThisMachine() {
        // The development machine and CI install libcurl: the real question gets no problem.
        #expect(WebhookClient.unavailable == nil)
    }
}
