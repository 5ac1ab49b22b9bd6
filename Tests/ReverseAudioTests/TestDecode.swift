import Foundation
@testable import ReverseAudio
@testable import ReverseAudioCore
@testable import ReverseAudioFFmpeg

/// Decodes files the way the operations do, for tests: through the one chain builder.
enum TestDecode {
    /// The chain `channels`, `sampleFormat`, `range` and `effects` ask for over `url`.
    static func chain(_ url: URL, channels: ChannelSelection = .all, sampleFormat: SampleFormat? = .s16,
                      range: TimeRange? = nil, effects: [any AudioEffect] = [], reversed: Bool = false,
                      cancellation: CancellationFlag = CancellationFlag(), threads: Int = 1) throws -> AudioChain {
        try AudioChain(url: url, recipe: ChainRecipe(range: range, sampleFormat: sampleFormat, channels: channels,
                                                     effects: effects, reversed: reversed),
                       cancellation: cancellation, threads: threads)
    }

    /// The source `channels` and `sampleFormat` ask for over `url`.
    static func source(_ url: URL, channels: ChannelSelection = .all, sampleFormat: SampleFormat? = .s16) throws -> any PCMSource {
        try chain(url, channels: channels, sampleFormat: sampleFormat).source
    }

    /// `source` reversed on one thread, read in order through a temporary file in `folder`.
    static func reversal(_ source: any PCMSource, blockFrames: Int? = nil, folder: URL? = nil,
                         cancellation: CancellationFlag? = nil) -> ReversedSource {
        let input = Scheduler.Input(source: source, splitting: .single(reason: .oneThreadAsked), blockFrames: blockFrames, name: "test")
        return Scheduler(threads: 1, cancellation: cancellation, temporaryFolder: folder ?? FileManager.default.temporaryDirectory)
            .reversal(of: input)
    }

    /// Moves `source` into `sink` on one thread, forwards.
    @discardableResult
    static func transfer(_ source: any PCMSource, to sink: any PCMSink, progress: ProgressHandler? = nil) throws -> Int64 {
        let input = Scheduler.Input(source: source, splitting: .single(reason: .oneThreadAsked), name: "test")
        return try Scheduler(threads: 1, progress: progress).transfer(input, reversed: false, into: sink).frames
    }

    /// Every block a source lends, copied, and the source.
    static func blocks(of source: any PCMSource) throws -> [SampleBuffer] {
        var blocks: [SampleBuffer] = []
        while let chunk = try source.read(maximumFrames: .max) { blocks.append(SampleBuffer(chunk, format: source.format)) }
        return blocks
    }

    /// Frames a source holds, read to its end.
    static func frames(of source: any PCMSource) throws -> Int64 {
        var frames: Int64 = 0
        while let chunk = try source.read(maximumFrames: 1 << 16) { frames += Int64(chunk.frameCount) }
        return frames
    }

    /// The 16-bit samples of `url` as the operations decode them.
    static func samples(_ url: URL, channels: ChannelSelection = .all) throws -> [Int16] {
        try blocks(of: source(url, channels: channels)).flatMap(\.samples)
    }
}
