/// Which way playback goes.
public enum PlaybackDirection: String, Sendable {
    /// Frame `p`, then `p + 1`.
    case forward
    /// Frame `p − 1`, then `p − 2`.
    case reverse
}
