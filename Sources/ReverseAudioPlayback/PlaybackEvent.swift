import ReverseAudioCore
/// What an ``AudioPlayer`` reports on ``AudioPlayer/events``. The stream ends after
/// ``endReached(_:)``, ``failed(_:)`` or ``AudioPlayer/stop()``.
public enum PlaybackEvent: Sendable, Equatable {
    /// Where playback is: at least ten times a second while playing, and after each command.
    case position(PlaybackStatus)
    /// A loop wrapped around: once per device period in which it did (however short the loop,
    /// the status counts every wrap).
    case loopWrapped(PlaybackStatus)
    /// Playback reached its end (or a stop command) and the device played the last frame.
    case endReached(PlaybackStatus)
    /// Decoding or the device failed; playback stopped.
    case failed(ReverseAudioError)
}
