/// Something that delivers interleaved PCM frames in order: a decoded file, a part of one, its
/// reversal, silence, several of them end to end. The one contract every reading path of the
/// library goes through, with four members, as SFBAudioEngine's `SFBPCMDecoding`: the
/// ``format``, the ``length`` (and how it is known), ``read(maximumFrames:)`` and
/// ``seek(to:endingAt:)``, which reports what was asked and what was reached (Symphonia's
/// `SeekedTo`). Nothing about threads: a scheduler decides how a source is read.
///
/// `AudioFileSource` implements it over FFmpeg; every other source is a decorator over a source,
/// one file each, reached through one combinator each (`range(_:)`, `reversed(…)`, `gain(_:)`…).
///
/// ```swift
/// let song = try AudioReader(url: url)            // ReverseAudio's reader of files
/// while let chunk = try song.read(maximumFrames: 4096) {
///     meter.update(chunk.bytes)                     // valid until the next read or seek
/// }
/// ```
///
/// Sources are used from one thread at a time.
public protocol PCMSource: AnyObject {
    /// The frames' sample format, rate and channels; fixed for the source's life.
    var format: PCMFormat { get }
    /// The frames the source holds, when known before reading to the end, and how that is
    /// known. A source whose container misstated its length corrects this once reading
    /// reaches the true end.
    var length: PCMLength { get }
    /// Lends the next frames, at most `maximumFrames` (at least one), in ``format``.
    ///
    /// The chunk's bytes belong to the source and stay valid until the next call to
    /// ``read(maximumFrames:)`` or ``seek(to:endingAt:)``; its ``PCMChunk/position`` is the
    /// index of its first frame on the source's timeline.
    /// - Returns: nil at the end of the source.
    func read(maximumFrames: Int) throws -> PCMChunk?
    /// Moves so that the next frame read is `frame`, exactly as reading from the start would
    /// deliver it.
    /// - Parameters:
    ///   - frame: the frame to read next, on the source's timeline.
    ///   - end: where reading will stop, if the caller knows (nil: perhaps the source's end); a
    ///     source may prepare only that far (an MP3's packet index).
    /// - Returns: the frame asked for and the one reached: `frame`, or the end of the source
    ///   when `frame` lies beyond it.
    @discardableResult
    func seek(to frame: Int64, endingAt end: Int64?) throws -> SeekedTo
}
