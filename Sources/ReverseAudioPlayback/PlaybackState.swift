import ReverseAudioCore
/// Where playback is and where it goes: a cursor between frames, a direction, an optional loop.
///
/// The semantics, exact to the frame: forward emits frame `p` then `p += 1`; reverse emits
/// frame `p − 1` then `p −= 1`. With a loop `[L, R)`, before each frame: forward with `p ≥ R`
/// jumps to `L`; backwards with `p ≤ L` jumps to `R` (a cursor before the region plays into it;
/// one past its far end wraps at once). Without a loop, playback ends at `N` forward and at 0
/// backwards. Seeks clamp to `0…N`.
public struct PlaybackState: Sendable, Equatable {

    /// The cursor, between frames: 0…``frameCount``.
    public private(set) var position: Int64
    /// Which way playback goes now.
    public var direction: PlaybackDirection
    /// The loop region `[L, R)`, if one is on.
    public private(set) var loop: Range<Int64>?
    /// Frames in the file.
    public private(set) var frameCount: Int64
    /// False while paused.
    public var isPlaying = true

    /// A state at `position` (clamped), going `direction`.
    package init(frameCount: Int64, position: Int64, direction: PlaybackDirection = .forward) {
        self.frameCount = frameCount
        self.position = min(max(position, 0), frameCount)
        self.direction = direction
    }

    /// Moves the cursor (clamped to 0…N).
    package mutating func seek(to frame: Int64) {
        position = min(max(frame, 0), frameCount)
    }

    /// Ends the file at `frames` (it decoded shorter than it stated): the cursor and the loop
    /// are clamped to it.
    mutating func shorten(to frames: Int64) {
        guard frames < frameCount else { return }
        frameCount = max(frames, 0)
        position = min(position, frameCount)
        setLoop(loop)
    }

    /// Sets (clamped, non-empty) or clears the loop.
    package mutating func setLoop(_ region: Range<Int64>?) {
        guard let region else {
            loop = nil
            return
        }
        let lower = min(max(region.lowerBound, 0), frameCount)
        let upper = min(max(region.upperBound, 0), frameCount)
        loop = lower < upper ? lower..<upper : nil
    }

    /// Applies the loop rule, then returns the frame to emit next and moves past it; nil when
    /// playback has reached its end (or is paused).
    mutating func advance() -> Int64? {
        guard isPlaying else { return nil }
        if let loop {
            if direction == .forward && position >= loop.upperBound { position = loop.lowerBound }
            if direction == .reverse && position <= loop.lowerBound { position = loop.upperBound }
        }
        switch direction {
        case .forward:
            guard position < frameCount else { return nil }
            position += 1
            return position - 1
        case .reverse:
            guard position > 0 else { return nil }
            position -= 1
            return position
        }
    }
}
