import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

/// One piece of a composition (`trim`, `join`, `compose`): a file, or part of it, forwards or
/// reversed; or digital silence.
public enum CompositionPiece: Sendable, Equatable {
    /// A file, or part of it, forwards or reversed.
    case file(URL, range: TimeRange? = nil, reversed: Bool = false)
    /// Digital silence in the output's format, exact to the frame.
    case silence(TimePosition)
}
