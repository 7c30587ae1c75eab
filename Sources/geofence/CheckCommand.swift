import Foundation
import GeofenceRules

/// `geofence check RULES`: validates a rules file before anything runs.
enum CheckCommand {
    static func run(_ arguments: [String]) throws {
        guard arguments.count == 1, let path = arguments.first, !path.hasPrefix("-") else {
            throw CommandError(message: "usage: geofence check RULES", status: 2)
        }
        switch RulesLoader.load(path: path) {
        case .success(let rules):
            print("\(path): OK")
            // What was read in a way the writer may not have meant, before the summary.
            for note in rules.notes {
                print("\(note.file):\(note.mark.line):\(note.mark.column): note: \(note.message)")
            }
            print(rules.summary)
        case .failure(let error):
            let count = error.diagnostics.count
            throw CommandError(
                message: "\(error)\n\(count) error\(count == 1 ? "" : "s") in \(path)", status: 1,
                prefixed: false)
        }
    }
}
