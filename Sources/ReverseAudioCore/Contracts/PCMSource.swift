/// Something that delivers interleaved PCM frames in order: a decoded file, a part of one, its
/// reversal, silence, several of them end to end. The one contract every reading path of the
/// library goes through; the `AudioFileSource` decoder implements it over FFmpeg and every
/// other source is a decorator over it.
///
/// A source has a fixed ``format``, a ``length`` known in advance where possible (and how it is
/// known), a ``position`` (the next frame's index), and two operations: ``read(maximumFrames:)``
/// lends the next frames, ``seek(to:endingAt:)`` moves and reports what was asked and what was
/// reached (as Symphonia's `SeekedTo`).
///
/// ```swift
/// let song = try AudioFileSource(url: url)
/// let part = RangeSource(song, frames: 44_100..<88_200)
/// while let chunk = try part.read(maximumFrames: 4096) {
///     meter.update(chunk.bytes)                     // valid until the next read or seek
/// }
/// ```
///
/// Sources are used from one thread at a time.
public protocol PCMSource: AnyObject {
    /// The frames' sample format, rate and channels; fixed for the source's life.
    var format: PCMFormat { get }
    /// The frames the source holds, when known before reading to the end. A source whose
    /// container misstated its length corrects this once reading reaches the true end.
    var length: PCMLength { get }
    /// The index of the next frame ``read(maximumFrames:)`` delivers.
    var position: Int64 { get }
    /// Lends the next frames, at most `maximumFrames` (at least one), in ``format``.
    ///
    /// The chunk's bytes belong to the source and stay valid until the next call to
    /// ``read(maximumFrames:)`` or ``seek(to:endingAt:)``; copy them to keep them
    /// (``SampleBuffer`` does).
    /// - Returns: nil at the end of the source.
    func read(maximumFrames: Int) throws -> PCMChunk?
    /// Moves so that the next frame read is `frame`, exactly as reading from the start would
    /// deliver it.
    /// - Parameters:
    ///   - frame: the frame to read next, on the source's timeline.
    ///   - end: where reading will stop, if the caller knows: a source may prepare only that
    ///     far (an MP3's packet index).
    /// - Returns: the frame asked for and the one reached: `frame`, or the end of the source
    ///   when `frame` lies beyond it.
    /// - Throws: ``ReverseAudioError/cannotSeek(path:frame:reason:)`` or
    ///   ``ReverseAudioError/notSeekable(path:reason:)`` where the source cannot go there.
    @discardableResult
    func seek(to frame: Int64, endingAt end: Int64?) throws -> SeekedTo
    /// Problems met so far that did not stop reading (this source's and those it reads from).
    var warnings: [ReverseAudioWarning] { get }
    /// The file the frames come from, as it was named, for messages ("" when none).
    var name: String { get }
    /// The frames a natural block of this source holds (a decoded packet of the file it reads,
    /// before gapless trimming), when it has one: the seed's block size.
    var blockFrames: Int? { get }
    /// A new reader of the same frames, independent of this one (its own decoder, its own
    /// position, at 0), for a reader on another thread: nil unless a reader sought to any frame
    /// delivers exactly the frames a continuous read does (bit-exact seeking, no resampler's
    /// memory, a file rather than a pipe). What decoding one file on several threads needs.
    func independentReader() throws -> (any PCMSource)?
}

extension PCMSource {
    /// No natural block size.
    public var blockFrames: Int? { nil }

    /// No file.
    public var name: String { "" }

    /// No independent readers: the source is read on one thread.
    public func independentReader() throws -> (any PCMSource)? { nil }

    /// Moves so that the next frame read is `frame` (see ``seek(to:endingAt:)``).
    @discardableResult
    public func seek(to frame: Int64) throws -> SeekedTo {
        try seek(to: frame, endingAt: nil)
    }

    /// Reads into `buffer`, as many whole frames as it holds (fewer only at the end).
    /// - Returns: the frames read; 0 at the end of the source.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let frameBytes = format.bytesPerFrame
        let capacity = buffer.count / max(frameBytes, 1)
        var filled = 0
        while filled < capacity, let chunk = try read(maximumFrames: capacity - filled) {
            (buffer.baseAddress! + filled * frameBytes).copyMemory(from: chunk.bytes.baseAddress!, byteCount: chunk.bytes.count)
            filled += chunk.frameCount
        }
        return filled
    }

    /// The next `frames` frames as an owned block (fewer only at the end), positioned on the
    /// source's timeline; nil at the end of the source.
    public func readBlock(frames: Int) throws -> SampleBuffer? {
        let start = position
        var bytes: [UInt8] = []
        bytes.reserveCapacity(frames * format.bytesPerFrame)
        var count = 0
        while count < frames, let chunk = try read(maximumFrames: frames - count) {
            bytes.append(contentsOf: chunk.bytes)
            count += chunk.frameCount
        }
        guard count > 0 else { return nil }
        return SampleBuffer(owning: bytes, format: format, position: start)
    }
}
