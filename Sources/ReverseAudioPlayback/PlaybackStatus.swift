import ReverseAudioCore
/// Where an ``AudioPlayer`` is: its state after the last frames it rendered, and counters.
public struct PlaybackStatus: Sendable, Equatable {
    /// The cursor, direction, loop and pause state.
    public let state: PlaybackState
    /// Frames rendered so far (the output timeline).
    package let framesRendered: Int64
    /// Times a loop wrapped around.
    package let loopWraps: Int
    /// Times the device ran dry.
    package let underruns: Int
    /// Frames per second, to turn frames into seconds.
    package let sampleRate: Int

    /// Makes a status from its parts (players make these).
    package init(state: PlaybackState, framesRendered: Int64, loopWraps: Int, underruns: Int, sampleRate: Int) {
        self.state = state
        self.framesRendered = framesRendered
        self.loopWraps = loopWraps
        self.underruns = underruns
        self.sampleRate = sampleRate
    }

    /// The cursor in seconds.
    package var seconds: Double { Double(state.position) / Double(max(sampleRate, 1)) }
    /// The file's length in seconds.
    package var duration: Double { Double(state.frameCount) / Double(max(sampleRate, 1)) }
}
