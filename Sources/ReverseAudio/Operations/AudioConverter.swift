import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

/// Converts any audio file FFmpeg reads into any output format (`OutputFormat`: WAV, AIFF,
/// CAF, FLAC, M4A, MP3, AAC, Ogg Vorbis, Opus, WebM), forwards or reversed, with effects: the
/// one operation that writes a file from another.
///
/// ```swift
/// let result = try await AudioConverter.convert(
///     song, to: reversedURL, options: ConversionOptions(reverse: true),
///     progress: { fraction in print(fraction) })
/// ```
///
/// A conversion is a chain of sources moved into a file by `transfer(_:to:threads:progress:cancellation:)`:
/// the file's `AudioFileSource`, a `SampleConverter` (sample format, rate, mix-down), a
/// `RangeSource`, a `ChannelSelector`, a `ReversedSource`, into an `AudioFileWriter`.
/// A reversal decodes the input once, forwards and continuously (so lossy codecs decode exactly
/// as `ffmpeg -af areverse` sees them). Into a PCM file (WAV, AIFF, CAF) each reversed block is
/// written straight to its mirrored place: memory does not grow with the input's length and no
/// temporary file is used. Into an encoded file (FLAC, M4A, MP3, AAC) or a pipe, the reversed
/// samples wait in a temporary file beside the output (as big as the raw audio, removed in
/// every case) and are then encoded forwards.
public enum AudioConverter {
    /// Converts `input` to `output`.
    ///
    /// Runs on its own thread; cancelling the calling task stops the work within one packet,
    /// removes the partial output and throws `CancellationError`.
    /// - Parameters:
    ///   - input: the file to read (a regular file, or a pipe such as `/dev/stdin`).
    ///   - output: the file to write; its extension picks the format unless `options` names one.
    ///   - options: channels, direction, sample format and rate, format, range, overwriting.
    ///   - progress: called with fractions in 0...1, non-decreasing, about every 1%;
    ///     1.0 exactly once, after the output is complete and in place.
    public static func convert(_ input: URL, to output: URL, options: ConversionOptions = ConversionOptions(),
                               progress: ProgressHandler? = nil) async throws -> ConversionResult {
        try await BlockingWork.run { flag in
            try convert(input, to: output, options: options, cancellation: flag, progress: progress)
        }
    }

    /// The blocking form of `convert(_:to:options:progress:)` (for a file): runs on the calling thread and
    /// stops with `CancellationError` once `cancellation` is cancelled.
    package static func convert(_ input: URL, to output: URL, options: ConversionOptions,
                                cancellation: CancellationFlag, progress: ProgressHandler?) throws -> ConversionResult {
        try AudioInput.checkReadableFile(at: input)
        let (outputFormat, recipe, outputFolder) = try plan(options, output: output, inputs: [input])
        let temporaryFolder = AudioInput.isSeekableFile(input) ? outputFolder : FileManager.default.temporaryDirectory
        let reporter = ProgressReporter(progress)
        let chain = try AudioChain(url: input, recipe: recipe, cancellation: cancellation, threads: options.threads)
        let predicted = chain.source.length
        options.opened?(predicted.frames.map { Double($0) / Double(max(chain.source.format.sampleRate, 1)) })
        let writer = try AudioFileWriter(url: output, format: chain.source.format, outputFormat: outputFormat,
                                         input: chain.file.openedInput.writerInput, overwrite: options.overwrite, inputs: [input],
                                         expectedFrames: predicted.frames)
        let scheduler = Scheduler(threads: options.threads, progress: reporter.update, cancellation: cancellation,
                                  temporaryFolder: temporaryFolder)
        let (job, reversed) = try chain.job(threads: options.threads, scheduler: scheduler)
        let report = try scheduler.transfer(job, reversed: reversed, into: writer)
        reporter.complete()
        let frames = report.frames
        let lengthSource = options.reverse ? report.lengthSource ?? .decode : (predicted.frames == frames ? predicted.source : .decode)
        return ConversionResult(
            input: chain.file.url, output: output, source: chain.file.info(frames: frames), format: chain.source.format,
            outputFormat: writer.outputFormat, codec: writer.codec, storedSampleFormat: writer.storedSampleFormat,
            frames: frames, blockFrames: report.blockFrames ?? options.blockFrames ?? chain.file.blockFrames ?? 0,
            reversed: options.reverse, conversions: chain.conversions + writer.conversions, warnings: chain.warnings,
            lengthSource: lengthSource, predictedFrames: predicted.frames, decodePasses: report.passes,
            temporaryBytes: report.temporaryBytes, predictionFailure: predicted.frames == nil ? chain.lengthUnknownReason : nil,
            decodeThreads: report.threadsUsed, singleThreadReason: options.threads > 1 && report.threadsUsed <= 1 ? report.singleThreadReason : nil)
    }

    /// What a conversion settles before reading anything, failing early on an unusable setting,
    /// output or format: the output's format, the chain's recipe, and the folder of the output
    /// (where its temporary files go).
    static func plan(_ options: ConversionOptions, output: URL, inputs: [URL]) throws
        -> (format: OutputFormat, recipe: ChainRecipe, outputFolder: URL) {
        if let blockFrames = options.blockFrames, blockFrames <= 0 {
            throw ReverseAudioError.setting(.outOfRange(.blockFrames, value: "\(blockFrames)", allowed: "at least 1 frame"))
        }
        let outputFormat = try options.outputFormat ?? OutputFormat.forFile(output)
        let destination = try OutputFile(url: output, overwrite: options.overwrite, inputs: inputs,
                                         requiresSeekableFile: outputFormat.file.requiresSeekableFile)
        destination.discard()
        var recipe = ChainRecipe(range: options.range, sampleFormat: options.sampleFormat, sampleRate: options.sampleRate,
                                 channels: options.channels, effects: options.effects, reversed: options.reverse,
                                 blockFrames: options.blockFrames)
        // A codec of few rates (Opus) takes the nearest, as the ffmpeg CLI resamples for it (the
        // codecs a format chooses by the input's kind, M4A's, all take any rate).
        let codec = outputFormat.resolvedCodec(inputIsLossless: true)
        if codec.resamplesTo != nil { recipe.writtenRate = { codec.rate(for: $0) } }
        return (outputFormat, recipe, destination.temporaryFolder)
    }
}
