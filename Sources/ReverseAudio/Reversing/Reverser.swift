import FFmpeg
import Foundation

/// The reversed audio of a file as a sequence of blocks, first block first.
///
/// Block `k` holds output frames `k × blockFrames ..< (k + 1) × blockFrames`; only the last block
/// may be short and none is empty. Its ``SampleBuffer/position`` is its first frame's index in
/// the reversed stream. With ``ChannelSelection/all`` frames are reversed as units: channels
/// are never swapped.
///
/// The first call to ``next()`` decodes the whole file once, forwards, placing each reversed
/// block at its mirrored position in a headerless temporary file (memory stays flat whatever the
/// length); blocks are then read back in order. The temporary file is created in
/// `temporaryDirectory` and unnamed at once: it takes disk space (the raw reversed audio) only
/// while the reverser lives, and nothing is left behind however the process ends. To write a
/// reversed file, use ``AudioConverter``, which needs no temporary file for PCM outputs.
///
/// ```swift
/// let reverser = try Reverser(url: song, channels: .first)
/// while let block = try reverser.next() { play(block) }
/// ```
public final class Reverser {
    /// The file reversed.
    public let url: URL
    /// The channels delivered.
    public let channels: ChannelSelection
    /// The sample format of the blocks; nil for the stream's own.
    public let sampleFormat: SampleFormat?
    private let requestedBlockFrames: Int?
    private let temporaryDirectory: URL
    private let isCancelled: @Sendable () -> Bool
    private var store: TemporaryPCMFile?
    private var resolved: (format: PCMFormat, totalFrames: Int64, blockFrames: Int)?
    private var nextFrame: Int64 = 0
    private var finished = false
    private var decodeWarnings: [String] = []

    /// Prepares the reversal of `url`; nothing is decoded before the first ``next()``.
    /// - Parameters:
    ///   - url: the file to reverse.
    ///   - channels: the channels delivered.
    ///   - sampleFormat: the sample format of the blocks; nil keeps the stream's own.
    ///   - blockFrames: frames per block; nil means the first decoded buffer's frame count.
    ///   - temporaryDirectory: where the reversed PCM waits (default: the system's temporary folder).
    ///   - isCancelled: polled while decoding; when it returns true, ``next()`` throws `CancellationError`.
    public init(url: URL, channels: ChannelSelection = .all, sampleFormat: SampleFormat? = .s16, blockFrames: Int? = nil,
                temporaryDirectory: URL? = nil, isCancelled: @escaping @Sendable () -> Bool = { false }) throws {
        if let blockFrames, blockFrames <= 0 {
            throw ReverseAudioError.invalidOption("block size must be at least 1 frame, not \(blockFrames)")
        }
        try AudioSource.checkReadableFile(at: url)
        self.url = url
        self.channels = channels
        self.sampleFormat = sampleFormat
        requestedBlockFrames = blockFrames
        self.temporaryDirectory = temporaryDirectory ?? FileManager.default.temporaryDirectory
        self.isCancelled = isCancelled
    }

    /// The output's PCM shape; nil until the first ``next()``.
    public var format: PCMFormat? { resolved?.format }
    /// Frames in the reversed stream; nil until the first ``next()``.
    public var totalFrames: Int64? { resolved?.totalFrames }
    /// Frames per block; nil until the first ``next()``.
    public var blockFrames: Int? { resolved?.blockFrames }
    /// Bytes the temporary file holds (the reversed PCM), while it exists.
    public var temporaryBytes: Int64 { store?.size ?? 0 }
    /// Problems met while decoding that did not stop it.
    public var warnings: [String] { decodeWarnings }

    /// The next block of the reversed audio; nil after the last.
    public func next() throws -> SampleBuffer? {
        guard !finished else { return nil }
        if resolved == nil { try prepare() }
        guard let (format, totalFrames, blockFrames) = resolved, let store, nextFrame < totalFrames else {
            finish()
            return nil
        }
        if isCancelled() { throw CancellationError() }
        let frames = Int(min(Int64(blockFrames), totalFrames - nextFrame))
        let block = try SampleBuffer(bytes: store.read(frames: frames, at: nextFrame), format: format, position: nextFrame)
        nextFrame += Int64(frames)
        return block
    }

    /// Deletes the temporary file now instead of when the reverser is released.
    public func finish() {
        finished = true
        store = nil
    }

    private func prepare() throws {
        let (counted, source) = try FrameCounter.count(AudioSource(url: url, isCancelled: isCancelled), isCancelled: isCancelled)
        let predicted = counted.prediction
        let reversal = MirroredReversal<TemporaryPCMFile>(
            blockFrames: requestedBlockFrames, isCancelled: isCancelled,
            makeDecoder: { [channels, sampleFormat, isCancelled] source in
                try PCMDecoder(source: source, channels: channels, sampleFormat: sampleFormat, isCancelled: isCancelled)
            },
            makeSink: { [temporaryDirectory] decoder, _ in
                try TemporaryPCMFile(in: temporaryDirectory, bytesPerFrame: decoder.format.bytesPerFrame)
            },
            discard: { _ in })  // a temporary file vanishes when released
        let outcome = try reversal.run(source, predicted: predicted, progress: nil)
        store = outcome.sink
        decodeWarnings = outcome.decoder.warnings
        resolved = (outcome.decoder.format, outcome.frames, outcome.blockFrames ?? 1)
    }
}

/// The reversed blocks of a file as an `AsyncSequence`, decoded off Swift's cooperative pool.
///
/// ```swift
/// for try await block in ReversedAudio(url: song, blockFrames: 4096) {
///     output.schedule(block)
/// }
/// ```
public struct ReversedAudio: AsyncSequence, Sendable {
    /// Each element is one block of the reversed audio.
    public typealias Element = SampleBuffer

    /// The file reversed.
    public let url: URL
    /// The channels delivered.
    public let channels: ChannelSelection
    /// Frames per block; nil for the first decoded buffer's size.
    public let blockFrames: Int?
    /// Where the reversed audio waits on disk; nil for the system's temporary folder.
    public let temporaryDirectory: URL?

    /// The reversed blocks of `url`, 16-bit.
    public init(url: URL, channels: ChannelSelection = .all, blockFrames: Int? = nil, temporaryDirectory: URL? = nil) {
        self.url = url
        self.channels = channels
        self.blockFrames = blockFrames
        self.temporaryDirectory = temporaryDirectory
    }

    /// Starts the reversal when the first block is asked for.
    public func makeAsyncIterator() -> SampleBufferIterator {
        SampleBufferIterator(session: BlockSession(open: { [url, channels, blockFrames, temporaryDirectory] flag in
            let reverser = try Reverser(url: url, channels: channels, blockFrames: blockFrames,
                                        temporaryDirectory: temporaryDirectory, isCancelled: flag.check)
            return { try reverser.next() }
        }))
    }
}
