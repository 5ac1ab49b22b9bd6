import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

/// A file decoded block by block in flat memory, in the samples asked for: the library's one way
/// to read audio. Exactly the `ffmpeg` CLI's decode (the same demuxer, decoder, gapless
/// trimming, and swresample for another sample format or a mix-down: 16-bit equals
/// `ffmpeg -i FILE -f s16le -`), with an exact ``length`` before reading where the file allows,
/// and exact seeks.
///
/// ```swift
/// let song = try AudioReader(url: url, sampleFormat: .s16, channels: .mix)
/// while let chunk = try song.read(maximumFrames: 4096) {   // lent until the next read or seek
///     meter.update(Array(chunk.samples(as: Int16.self)))
/// }
/// ```
public final class AudioReader: PCMSource {
    private let chain: AudioChain

    /// Opens `url` (a regular file, or a pipe read once) and prepares what is asked of it.
    /// - Parameters:
    ///   - url: the file.
    ///   - sampleFormat: the samples delivered; nil for the file's own (24-bit FLAC as `s24`,
    ///     MP3 as `f32`).
    ///   - channels: every channel, one of them, or all mixed to one (as `ffmpeg -ac 1`).
    ///   - range: the part to read, exact to the frame; nil for all of it.
    ///   - effects: gain and fades on what is read.
    public init(url: URL, sampleFormat: SampleFormat? = nil, channels: ChannelSelection = .all, range: TimeRange? = nil,
                effects: [any AudioEffect] = []) throws {
        chain = try AudioChain(url: url, recipe: ChainRecipe(range: range, sampleFormat: sampleFormat, channels: channels,
                                                             effects: effects),
                               cancellation: CancellationFlag())
    }

    /// The samples delivered: sample format, rate and channels.
    public var format: PCMFormat { chain.source.format }
    /// The frames the reader holds, and how that is known (stated, counted, or only by decoding).
    public var length: PCMLength { chain.source.length }
    /// The file's description: container, codec, tags.
    public var info: AudioInfo { chain.file.info }
    /// Problems met so far that did not stop decoding (skipped packets, a truncated file).
    public var warnings: [ReverseAudioWarning] { chain.warnings }

    /// Lends the next frames (see `PCMSource.read(maximumFrames:)`).
    public func read(maximumFrames: Int) throws -> PCMChunk? {
        try chain.source.read(maximumFrames: maximumFrames)
    }

    /// Moves so that the next frame read is `frame`, exactly (see `PCMSource.seek(to:endingAt:)`).
    @discardableResult
    public func seek(to frame: Int64, endingAt end: Int64? = nil) throws -> SeekedTo {
        try chain.source.seek(to: frame, endingAt: end)
    }
}
