/// The nearest of a few names to a mistyped one, by edit distance, as git suggests commands.
enum Suggestion {
    /// The closest name within two edits (or a name the word begins), if any.
    static func nearest(to word: String, in names: [String]) -> String? {
        let lowered = word.lowercased()
        if let prefixed = names.first(where: { $0.hasPrefix(lowered) && !lowered.isEmpty }) { return prefixed }
        let scored = names.map { ($0, distance(lowered, $0)) }.min { $0.1 < $1.1 }
        guard let (name, score) = scored, score <= max(2, name.count / 3) else { return nil }
        return name
    }

    /// Levenshtein distance.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
