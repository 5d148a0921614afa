/// "Did you mean …" hints by edit distance.
public enum Suggestion {
    /// The candidate nearest to `word`, as a hint sentence, if one is close enough to be a likely typo.
    ///
    /// Close enough: at most a third of the longer word's length in edits (at least one), or a
    /// case-insensitive match.
    ///
    /// - Parameter synonyms: words people use for a candidate, lower-cased, mapped to it (`"restart"` →
    ///   `"relaunch"`): a synonym wins over spelling, since a word that is spelt close to another candidate
    ///   (`restart` and `restore`) is still the synonym's.
    public static func didYouMean(_ word: String, among candidates: some Sequence<String>, synonyms: [String: String] = [:]) -> String? {
        nearest(word, among: candidates, synonyms: synonyms).map { "did you mean \"\($0)\"?" }
    }

    /// The candidate nearest to `word`, if it is close enough to be a likely typo, the candidate `word` is a
    /// synonym of, or else the only candidate that starts with `word` (4 characters or more).
    public static func nearest(_ word: String, among candidates: some Sequence<String>, synonyms: [String: String] = [:]) -> String? {
        let candidates = Array(candidates)
        if let meant = synonyms[word.lowercased()], candidates.contains(meant) { return meant }
        var best: (String, Int)?
        for candidate in candidates where candidate != word {
            if candidate.lowercased() == word.lowercased() { return candidate }
            let distance = editDistance(Array(word.unicodeScalars), Array(candidate.unicodeScalars))
            let limit = max(1, max(word.unicodeScalars.count, candidate.unicodeScalars.count) / 3)
            guard distance <= limit else { continue }
            if let (current, currentDistance) = best,
               currentDistance < distance || (currentDistance == distance && current <= candidate) {
                continue
            }
            best = (candidate, distance)
        }
        if let best { return best.0 }
        // A word cut short (`deniesGrace` for `deniesGracePeriod`) is too far for an edit distance: the one
        // candidate it starts, if only one, is what was meant.
        let start = word.lowercased()
        guard start.unicodeScalars.count >= 4 else { return nil }
        let started = candidates.filter { $0 != word && $0.lowercased().hasPrefix(start) }
        return started.count == 1 ? started[0] : nil
    }

    /// Edit distance between two scalar sequences: insertions, deletions, substitutions and transpositions of
    /// neighbours each count one (optimal string alignment), so `"nmae"` is one edit from `"name"`.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
