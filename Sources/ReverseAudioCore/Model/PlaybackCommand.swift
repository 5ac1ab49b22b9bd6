/// Something a listener (or a script) asks of playback. A command takes effect at an exact
/// output frame: the first frame of the next render call, or the frame it is scheduled for.
public enum PlaybackCommand: Sendable, Equatable {
    /// Resume.
    case play
    /// Hold the cursor; rendering gives nothing until ``play``.
    case pause
    /// Go the other way.
    case toggleDirection
    /// Go this way.
    case setDirection(PlaybackDirection)
    /// Move the cursor to this frame (clamped to the file).
    case seek(toFrame: Int64)
    /// Loop `[L, R)`; nil switches the loop off.
    case loop(Range<Int64>?)
    /// End playback.
    case stop
}
