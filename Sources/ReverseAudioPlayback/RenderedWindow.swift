import ReverseAudioCore

/// The frames one render call of a ``PlaybackRenderer`` made, lent as a source to the effects
/// (a gain, fades): positioned on the output timeline, its length where playback ends if
/// nothing changes it (the file's end in the direction playing; unknown while a loop plays).
/// So the effects are the same decorators every command uses, live: a fade-out starts as
/// the end comes near, whichever way playback goes.
final class RenderedWindow: PCMSource {
    let format: PCMFormat
    private(set) var length: PCMLength = .unknown
    private var lent: PCMChunk?

    init(format: PCMFormat) {
        self.format = format
    }

    /// Lends `frames` frames at `bytes`, output frames from `position`, in a playback that
    /// ends at output frame `end` when known.
    func lend(_ bytes: UnsafeRawBufferPointer, frames: Int, at position: Int64, endingAt end: Int64?) {
        lent = PCMChunk(bytes: bytes, frameCount: frames, position: position)
        length = PCMLength(frames: end, source: .range)
    }

    /// The frames lent, once.
    func read(maximumFrames: Int) throws -> PCMChunk? {
        defer { lent = nil }
        return lent.map { $0.prefix(frames: maximumFrames, frameBytes: format.bytesPerFrame) }
    }

    /// Playback's output is made as it goes: it stays where it is.
    func seek(to frame: Int64, endingAt end: Int64?) throws -> SeekedTo {
        SeekedTo(required: frame, reached: lent?.position ?? frame)
    }
}
