import FFmpeg
import Foundation

/// Converts any supported audio file to a 16-bit WAV, forwards or reversed.
///
/// ```swift
/// let result = try await AudioConverter.convert(
///     song, to: reversedURL, options: ConversionOptions(reverse: true),
///     progress: { fraction in print(fraction) })
/// ```
///
/// A reversal decodes the input once, forwards and continuously (so lossy codecs decode exactly
/// as `ffmpeg -af areverse` sees them), and writes each reversed block straight to its mirrored
/// place in the output. Memory does not grow with the input's length and no temporary files are
/// used besides the output itself, written under a temporary name and renamed when complete.
public enum AudioConverter {
    /// Converts `input` to a WAV at `output`.
    ///
    /// Runs on its own thread; cancelling the calling task stops the work within one packet,
    /// removes the partial output and throws `CancellationError`.
    /// - Parameter progress: called with fractions in 0...1, non-decreasing, about every 1%;
    ///   1.0 exactly once, after the output is complete and in place.
    public static func convert(_ input: URL, to output: URL, options: ConversionOptions = ConversionOptions(),
                               progress: ProgressHandler? = nil) async throws -> ConversionResult {
        try await BlockingWork.run { flag in
            try convert(input, to: output, options: options, cancellation: flag, progress: progress)
        }
    }

    /// The blocking form of ``convert(_:to:options:progress:)``: runs on the calling thread and
    /// stops with `CancellationError` once `cancellation` is cancelled.
    public static func convert(_ input: URL, to output: URL, options: ConversionOptions,
                               cancellation: CancellationFlag, progress: ProgressHandler?) throws -> ConversionResult {
        let reporter = ProgressReporter(progress)
        if let blockFrames = options.blockFrames, blockFrames <= 0 {
            throw ReverseAudioError.invalidOption("block size must be at least 1 frame, not \(blockFrames)")
        }
        try AudioSource.checkReadableFile(at: input)
        // Fail on an unusable output before spending time decoding.
        let destination = try OutputFile(url: output, overwrite: options.overwrite, inputs: [input])
        let predicted = FrameCounter.count(url: input, isCancelled: cancellation.check)
        if cancellation.isCancelled { throw CancellationError() }
        let source = try AudioSource(url: input, isCancelled: cancellation.check)
        let result: ConversionResult
        if options.reverse && destination.isSeekable {
            result = try reverse(source, to: output, options: options, predicted: predicted,
                                 cancellation: cancellation, progress: reporter)
        } else if options.reverse {
            result = try reverseThroughTemporaryFile(source, to: output, options: options, predicted: predicted,
                                                     cancellation: cancellation, progress: reporter)
        } else {
            result = try forward(source, to: output, options: options, predicted: predicted,
                                 cancellation: cancellation, progress: reporter)
        }
        reporter.complete()
        return result
    }

    private static func forward(_ source: AudioSource, to output: URL, options: ConversionOptions,
                                predicted: (frames: Int64, source: FrameCounter.Source)?, cancellation: CancellationFlag,
                                progress: ProgressReporter) throws -> ConversionResult {
        let expected = predicted?.frames
        let decoder = try PCMDecoder(source: source, channels: options.channels, isCancelled: cancellation.check)
        var writer: WAVWriter?
        do {
            while try decoder.readChunk({ samples, channels in
                if writer == nil {
                    writer = try makeWriter(for: decoder, at: output, options: options, expectedFrames: expected)
                }
                try writer!.append(samples, frames: samples.count / channels)
                if let expected, expected > 0 { progress.update(Double(decoder.framesDecoded) / Double(expected)) }
            }) {}
            if writer == nil {
                writer = try makeWriter(for: decoder, at: output, options: options, expectedFrames: 0)
            }
            try writer!.finish()
        } catch {
            writer?.cancel()
            throw error
        }
        return ConversionResult(
            input: source.url, output: output, source: source.info(frames: decoder.framesDecoded),
            format: decoder.format, frames: decoder.framesDecoded,
            blockFrames: options.blockFrames ?? decoder.firstBufferFrameCount ?? 0, reversed: false,
            warnings: warnings(decoder, predicted: expected), lengthSource: predicted?.source.rawValue ?? "decode",
            predictedFrames: expected, decodePasses: 1, temporaryBytes: 0)
    }

    /// Reverses with the predicted length; if the input decodes to another length (its container
    /// lied), decodes it again knowing the true length.
    private static func reverse(_ source: AudioSource, to output: URL, options: ConversionOptions,
                                predicted: (frames: Int64, source: FrameCounter.Source)?,
                                cancellation: CancellationFlag, progress: ProgressReporter) throws -> ConversionResult {
        let reversal = MirroredReversal<WAVWriter>(
            channels: options.channels, blockFrames: options.blockFrames, isCancelled: cancellation.check,
            makeSink: { decoder, totalFrames in
                try makeWriter(for: decoder, at: output, options: options, expectedFrames: totalFrames)
            },
            discard: { $0.cancel() })
        let outcome = try reversal.run(source, predicted: predicted, progress: progress.update)
        let decoder = outcome.decoder
        let writer = try outcome.sink ?? makeWriter(for: decoder, at: output, options: options, expectedFrames: 0)
        try writer.finish()
        return ConversionResult(
            input: source.url, output: output, source: source.info(frames: outcome.frames),
            format: decoder.format, frames: outcome.frames, blockFrames: outcome.blockFrames ?? 0,
            reversed: true, warnings: warnings(decoder, predicted: predicted?.frames), lengthSource: outcome.lengthSource,
            predictedFrames: predicted?.frames, decodePasses: outcome.passes, temporaryBytes: 0)
    }

    /// Reverses for an output that cannot be written out of order (a pipe, a device): the
    /// reversed frames are placed in a temporary file first, then written out forwards.
    private static func reverseThroughTemporaryFile(
        _ source: AudioSource, to output: URL, options: ConversionOptions,
        predicted: (frames: Int64, source: FrameCounter.Source)?,
        cancellation: CancellationFlag, progress: ProgressReporter
    ) throws -> ConversionResult {
        let reversal = MirroredReversal<TemporaryPCMFile>(
            channels: options.channels, blockFrames: options.blockFrames, isCancelled: cancellation.check,
            makeSink: { decoder, _ in
                try TemporaryPCMFile(in: FileManager.default.temporaryDirectory, bytesPerFrame: decoder.format.bytesPerFrame)
            },
            discard: { _ in })
        let outcome = try reversal.run(source, predicted: predicted, progress: progress.stage(from: 0, to: 0.8))
        let decoder = outcome.decoder
        let writer = try makeWriter(for: decoder, at: output, options: options, expectedFrames: outcome.frames)
        let copying = progress.stage(from: 0.8, to: 1)
        var frame: Int64 = 0
        do {
            while let store = outcome.sink, frame < outcome.frames {
                if cancellation.isCancelled { throw CancellationError() }
                let count = Int(min(1 << 16, outcome.frames - frame))
                try store.read(frames: count, at: frame).withUnsafeBufferPointer { samples in
                    try writer.append(samples, frames: count)
                }
                frame += Int64(count)
                copying(Double(frame) / Double(outcome.frames))
            }
            try writer.finish()
        } catch {
            writer.cancel()
            throw error
        }
        return ConversionResult(
            input: source.url, output: output, source: source.info(frames: outcome.frames),
            format: decoder.format, frames: outcome.frames, blockFrames: outcome.blockFrames ?? 0,
            reversed: true, warnings: warnings(decoder, predicted: predicted?.frames), lengthSource: outcome.lengthSource,
            predictedFrames: predicted?.frames, decodePasses: outcome.passes,
            temporaryBytes: outcome.sink?.size ?? 0)
    }

    /// The decoder's warnings, or, when it had none, a note that the container misstated the length.
    private static func warnings(_ decoder: PCMDecoder, predicted: Int64?) -> [String] {
        let own = decoder.warnings
        guard own.isEmpty, let predicted, predicted != decoder.framesDecoded else { return own }
        return ["the file declares \(predicted) frames but decodes to \(decoder.framesDecoded); the decoded length was used"]
    }

    private static func makeWriter(for decoder: PCMDecoder, at output: URL, options: ConversionOptions,
                                   expectedFrames: Int64?) throws -> WAVWriter {
        try WAVWriter(url: output, sampleRate: decoder.format.sampleRate, channelLayout: decoder.outputChannelLayout,
                      overwrite: options.overwrite, inputs: [decoder.url], expectedFrames: expectedFrames)
    }
}
