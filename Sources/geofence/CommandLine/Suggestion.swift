import Foundation

/// "Did you mean" for words the user mistyped: commands, options, time zones, format names.
enum Suggestion {
    /// The candidate closest to `word`, if one is close enough to be what was meant: a case-only
    /// difference, a unique candidate that starts or ends with the word (`London` for
    /// `Europe/London`), or at most a third of the word's letters away by edit distance.
    static func closest(to word: String, among candidates: [String]) -> String? {
        let lower = word.lowercased()
        if let same = candidates.first(where: { $0.lowercased() == lower }) { return same }
        let trimmed = lower.trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        if trimmed.count >= 3 {
            let containing = candidates.filter {
                let candidate = $0.lowercased()
                return candidate.hasSuffix("/" + trimmed) || candidate.hasPrefix(lower)
            }
            if containing.count == 1 { return containing[0] }
        }
        let limit = max(1, word.count / 3)
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(lower, candidate.lowercased())
            if distance <= limit, distance < (best?.distance ?? Int.max) {
                best = (candidate, distance)
            }
        }
        return best?.candidate
    }

    /// `"; did you mean 'X'?"` when a close candidate exists, else an empty string.
    static func didYouMean(_ word: String, among candidates: [String]) -> String {
        closest(to: word, among: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// The Damerau-Levenshtein distance (insertions, deletions, substitutions and adjacent swaps,
    /// each costing one): a swap is the most common typing slip.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
