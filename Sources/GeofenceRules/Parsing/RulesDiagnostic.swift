/// One problem in a rules file, with the file, line and column where it is.
public struct RulesDiagnostic: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file, as the user named it.
    public var file: String
    /// Where in the file.
    public var mark: SourceMark
    /// What is wrong, and where useful, what would be right.
    public var message: String

    /// Makes a diagnostic.
    public init(file: String, mark: SourceMark, message: String) {
        self.file = file
        self.mark = mark
        self.message = message
    }

    /// A readable form, for logs and messages.
    public var description: String { "\(file):\(mark.line):\(mark.column): \(message)" }
}

/// Everything wrong with a rules file: all problems, not only the first, in file order.
public struct RulesFileError: Error, Sendable, CustomStringConvertible {
    /// The problems, sorted by position.
    public var diagnostics: [RulesDiagnostic]

    /// A readable form, for logs and messages.
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}

/// Suggests the closest known name for a misspelt one.
enum DidYouMean {
    /// The known name closest to `name`, if it is close enough to be a likely typo.
    static func suggestion(for name: String, among known: [String]) -> String? {
        let lowered = name.lowercased()
        let scored = known.map { ($0, distance(lowered, $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        let limit = max(1, min(3, best.0.count / 3))
        return best.1 <= limit ? best.0 : nil
    }

    /// " (did you mean \"x\"?)" or "".
    static func hint(for name: String, among known: [String]) -> String {
        suggestion(for: name, among: known).map { " (did you mean \"\($0)\"?)" } ?? ""
    }

    /// Edit distance counting insertions, deletions, substitutions and swaps of neighbours (the
    /// optimal-string-alignment distance): "wrok" is one edit from "work".
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
