import Foundation
import Testing

@testable import GeofenceRules

/// Rules text built to exhaust the loader: deep nesting, aliases that multiply, thousands of rules.
/// Each is refused (or read) in bounded stack, memory and linear time.
@Suite struct HostileRulesTests {
    private func parse(_ text: String) -> Result<RulesFile, RulesFileError> {
        RulesLoader.parse(text, file: "rules.yaml", baseDirectory: URL(fileURLWithPath: "/"))
    }

    @Test func nestingFortyThousandDeepIsRefusedWithoutOverflowingTheStack() {
        let depth = 40_000
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        guard case .failure(let error) = parse(text) else {
            Issue.record("accepted")
            return
        }
        #expect(error.description.contains("nesting deeper than \(YAMLParser.maxDepth) levels"))
        #expect(error.description.contains("rules.yaml:1:\(YAMLParser.maxDepth + 1)"))
    }

    /// Every rules text a fuzzer or a probe crashed the loader with, kept in `Fuzz/crashes/rules`,
    /// gives diagnostics.
    @Test func everyKeptFuzzCrashGivesDiagnostics() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/crashes/rules")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(!names.isEmpty)
        for name in names {
            let text = String(
                decoding: try Data(contentsOf: folder.appendingPathComponent(name)), as: UTF8.self)
            guard case .failure = parse(text) else {
                Issue.record("\(name) was accepted")
                continue
            }
        }
    }

    @Test func aliasesOfAliasesAreCountedAtTheirFullSize() {
        var lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
        for level in 1...9 {
            let items = Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ")
            lines.append("a\(level): &a\(level) [\(items)]")
        }
        guard case .failure(let error) = parse(lines.joined(separator: "\n")) else {
            Issue.record("accepted")
            return
        }
        #expect(error.description.contains("expands to more than"))
    }

    @Test func aDurationTooLongForAnIntegerIsRefused() {
        for duration in [String(repeating: "9", count: 400) + "s", "1e300", "101000d"] {
            guard case .failure(let error) = parse("filter: { expiration: \(duration) }\n") else {
                Issue.record("\(duration) accepted")
                continue
            }
            #expect(error.description.contains("bad duration"), "\(error)")
        }
    }

    @Test func tooLargeATextIsRefusedBeforeParsing() {
        let text = "# " + String(repeating: "x", count: YAMLParser.maxBytes) + "\n"
        guard case .failure(let error) = parse(text) else {
            Issue.record("accepted")
            return
        }
        #expect(error.description.contains("more than the \(YAMLParser.maxBytes) read"))
    }

    @Test func duplicateKeysAndRuleNamesAreStillFoundAmongThousands() {
        var text = "places:\n  home: { center: [51.5, -0.12], radius: 100 }\nrules:\n"
        for index in 0..<5_000 { text += "  - { name: r\(index), on: enter home, log: true }\n" }
        text += "  - { name: r42, on: enter home, log: true }\n"
        guard case .failure(let error) = parse(text) else {
            Issue.record("accepted")
            return
        }
        #expect(error.diagnostics.count == 1)
        #expect(error.description.contains("duplicate rule name \"r42\""))
        guard case .failure(let keys) = parse("a: 1\nb: 2\na: 3\n") else {
            Issue.record("accepted")
            return
        }
        #expect(keys.description.contains("duplicate key \"a\""))
    }
}
