import Foundation

/// One piece of a composition (`trim`, `join`, `compose`): a file, or part of it, forwards or
/// reversed, with effects of its own; or digital silence.
public enum CompositionPiece: Sendable, Equatable {
    /// A file, or part of it, forwards or reversed, with effects on what is heard of it (a
    /// fade-in at the piece's start).
    case file(URL, range: TimeRange? = nil, reversed: Bool = false, effects: [any AudioEffect] = [])
    /// Digital silence in the output's format, exact to the frame.
    case silence(TimePosition)

    /// The longest silence one piece may hold: 24 hours. Longer is surely a mistake (a
    /// frame count taken for seconds), and would fill a disk before anyone noticed.
    public static let maximumSilenceSeconds: Double = 86_400

    /// The same pieces: the same file, range, direction and effects (compared by their
    /// descriptions), or silences of the same length.
    public static func == (left: CompositionPiece, right: CompositionPiece) -> Bool {
        switch (left, right) {
        case let (.file(a, rangeA, reversedA, effectsA), .file(b, rangeB, reversedB, effectsB)):
            return a == b && rangeA == rangeB && reversedA == reversedB && effectsA.map(\.description) == effectsB.map(\.description)
        case let (.silence(a), .silence(b)):
            return a == b
        default:
            return false
        }
    }
}
