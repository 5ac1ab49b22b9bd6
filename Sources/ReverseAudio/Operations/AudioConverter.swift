import FFmpeg
import Foundation

/// Converts any supported audio file to WAV, AIFF, CAF, FLAC, M4A, MP3 or AAC, forwards or
/// reversed: the one way this library writes a file from another.
///
/// ```swift
/// let result = try await AudioConverter.convert(
///     song, to: reversedURL, options: ConversionOptions(reverse: true),
///     progress: { fraction in print(fraction) })
/// ```
///
/// A reversal decodes the input once, forwards and continuously (so lossy codecs decode exactly
/// as `ffmpeg -af areverse` sees them). Into a PCM file (WAV, AIFF, CAF) each reversed block is
/// written straight to its mirrored place: memory does not grow with the input's length and no
/// temporary file is used. Into an encoded file (FLAC, M4A, MP3, AAC) or a pipe, the reversed
/// samples are first placed in a temporary file beside the output (as big as the raw audio,
/// removed in every case) and then encoded forwards.
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

    /// The blocking form of ``convert(_:to:options:progress:)``: runs on the calling thread and
    /// stops with `CancellationError` once `cancellation` is cancelled.
    /// - Parameters:
    ///   - input: the file to read.
    ///   - output: the file to write.
    ///   - options: as for the async form.
    ///   - cancellation: a flag another thread may set to stop the work.
    ///   - progress: as for the async form.
    public static func convert(_ input: URL, to output: URL, options: ConversionOptions,
                               cancellation: CancellationFlag, progress: ProgressHandler?) throws -> ConversionResult {
        let reporter = ProgressReporter(progress)
        if let blockFrames = options.blockFrames, blockFrames <= 0 {
            throw ReverseAudioError.invalidOption("block size must be at least 1 frame, not \(blockFrames)")
        }
        try AudioSource.checkReadableFile(at: input)
        // Fail on an unusable output or format before spending time decoding.
        let outputFormat = try options.outputFormat ?? OutputFormat.forFile(output)
        let destination = try OutputFile(url: output, overwrite: options.overwrite, inputs: [input],
                                         requiresSeekableFile: outputFormat.container.requiresSeekableFile)
        var source = try AudioSource(url: input, isCancelled: cancellation.check)
        let range = try options.range.map { try $0.frames(atRate: source.parameters.sampleRate, path: input.displayPath) }
        let count: FrameCounter.Count
        // The length the output should have; a range's is known once its ends are.
        let predicted: (frames: Int64, source: LengthSource)?
        if options.sampleRate != nil {
            // A rate conversion changes the length by a ratio swresample rounds: only the decode knows it.
            count = .unknown(reason: "the sample rate is converted")
            predicted = nil
        } else if let range, range.upperBound != .max {
            // Both ends given: nothing to count (the decode fails if the file does not hold them).
            count = .known(frames: Int64(range.count), source: .range)
            predicted = count.prediction
        } else {
            (count, source) = try FrameCounter.count(source, keepingIndex: range != nil, isCancelled: cancellation.check)
            // An open-ended range ends where the file does: the count of the whole file bounds it.
            predicted = count.prediction.map { counted in
                (range.map { $0.count(within: counted.frames) } ?? counted.frames, counted.source)
            }
        }
        let job = Job(source: source, output: output, outputFormat: outputFormat, options: options,
                      range: range, predicted: predicted, count: count, cancellation: cancellation)
        // Checked now, not when the first samples arrive: a format the codec cannot hold.
        // The decoder of a forward conversion; a reversal opens its own per pass. Nothing is read yet.
        let probe = try job.makeDecoder(source, limited: !options.reverse || !source.isSeekable)
        _ = try EncoderPlan(format: probe.format, outputFormat: outputFormat, source: job.sourceDescription,
                            path: output.displayPath)
        let result: ConversionResult
        if !options.reverse {
            result = try job.forward(probe, progress: reporter)
        } else if !source.isSeekable {
            result = try job.reverseBySpilling(probe, in: FileManager.default.temporaryDirectory, progress: reporter)
        } else if outputFormat.resolvedCodec(inputIsLossless: !source.parameters.isLossy) == .pcm && destination.isSeekable {
            result = try job.reverseInPlace(progress: reporter)
        } else {
            result = try job.reverseThroughTemporaryFile(in: destination.temporaryFolder, progress: reporter)
        }
        reporter.complete()
        return result
    }

    /// One conversion's inputs and the steps that share them.
    private struct Job {
        let source: AudioSource
        let output: URL
        let outputFormat: OutputFormat
        let options: ConversionOptions
        /// The frames to convert; nil for all.
        let range: Range<Int64>?
        let predicted: (frames: Int64, source: LengthSource)?
        let count: FrameCounter.Count
        let cancellation: CancellationFlag

        var sourceDescription: AudioFileWriter.SourceDescription {
            AudioFileWriter.SourceDescription(codecName: source.parameters.codecName, isLossless: !source.parameters.isLossy,
                                              bitRate: source.parameters.bitRate ?? source.demuxer.bitRate,
                                              tags: source.tags)
        }

        /// A decoder of `source` as the options ask; `limited` applies the range (which reads).
        func makeDecoder(_ source: AudioSource, limited: Bool = true) throws -> PCMDecoder {
            let decoder = try PCMDecoder(source: source, channels: options.channels, sampleFormat: options.sampleFormat,
                                         sampleRate: options.sampleRate, isCancelled: cancellation.check)
            if limited, let range { try decoder.limit(to: range, requiringWholeRange: true) }
            return decoder
        }

        func makeWriter(for decoder: PCMDecoder, expectedFrames: Int64?) throws -> AudioFileWriter {
            try AudioFileWriter(url: output, format: decoder.format, outputFormat: outputFormat,
                                channelLayout: decoder.outputChannelLayout, source: sourceDescription,
                                overwrite: options.overwrite, inputs: [decoder.url], expectedFrames: expectedFrames)
        }

        func forward(_ decoder: PCMDecoder, progress: ProgressReporter) throws -> ConversionResult {
            let expected = predicted?.frames
            var writer: AudioFileWriter?
            do {
                while try decoder.readChunk({ bytes, frames in
                    if writer == nil { writer = try makeWriter(for: decoder, expectedFrames: expected) }
                    try writer!.append(bytes, frames: frames)
                    if let expected, expected > 0 {
                        progress.update(Double(decoder.framesDecoded - (range?.lowerBound ?? 0)) / Double(expected))
                    }
                }) {}
                if writer == nil { writer = try makeWriter(for: decoder, expectedFrames: 0) }
                try writer!.finish()
            } catch {
                writer?.cancel()
                throw error
            }
            return result(decoder, writer: writer!, frames: decoder.framesDecoded - (range?.lowerBound ?? 0),
                          blockFrames: options.blockFrames ?? decoder.firstBufferFrameCount ?? 0,
                          reversed: false, lengthSource: predicted?.source ?? .decode, passes: 1, temporaryBytes: 0)
        }

        /// Reverses straight into a PCM file at mirrored positions; if the input decodes to
        /// another length than predicted (its container lied), decodes it again knowing the
        /// true length.
        func reverseInPlace(progress: ProgressReporter) throws -> ConversionResult {
            let reversal = MirroredReversal<AudioFileWriter>(
                blockFrames: options.blockFrames, isCancelled: cancellation.check,
                makeDecoder: { try makeDecoder($0) },
                makeSink: { decoder, totalFrames in try makeWriter(for: decoder, expectedFrames: totalFrames) },
                discard: { $0.cancel() })
            let outcome = try reversal.run(source, predicted: predicted, progress: progress.update)
            let writer = try outcome.sink ?? makeWriter(for: outcome.decoder, expectedFrames: 0)
            try writer.finish()
            return result(outcome.decoder, writer: writer, frames: outcome.frames, blockFrames: outcome.blockFrames ?? 0,
                          reversed: true, lengthSource: outcome.lengthSource, passes: outcome.passes, temporaryBytes: 0)
        }

        /// Reverses for an output that cannot be written out of order (an encoded file, a pipe):
        /// the reversed frames are placed in a temporary file in `folder` first, then written
        /// out forwards.
        func reverseThroughTemporaryFile(in folder: URL, progress: ProgressReporter) throws -> ConversionResult {
            let reversal = MirroredReversal<TemporaryPCMFile>(
                blockFrames: options.blockFrames, isCancelled: cancellation.check,
                makeDecoder: { try makeDecoder($0) },
                makeSink: { decoder, _ in try TemporaryPCMFile(in: folder, bytesPerFrame: decoder.format.bytesPerFrame) },
                discard: { _ in })  // a temporary file vanishes when released
            let outcome = try reversal.run(source, predicted: predicted, progress: progress.stage(from: 0, to: 0.6))
            let writer = try makeWriter(for: outcome.decoder, expectedFrames: outcome.frames)
            let encoding = progress.stage(from: 0.6, to: 1)
            var frame: Int64 = 0
            do {
                while let store = outcome.sink, frame < outcome.frames {
                    if cancellation.isCancelled { throw CancellationError() }
                    let count = Int(min(1 << 16, outcome.frames - frame))
                    try store.read(frames: count, at: frame).withUnsafeBytes { try writer.append($0, frames: count) }
                    frame += Int64(count)
                    encoding(Double(frame) / Double(outcome.frames))
                }
                try writer.finish()
            } catch {
                writer.cancel()
                throw error
            }
            return result(outcome.decoder, writer: writer, frames: outcome.frames, blockFrames: outcome.blockFrames ?? 0,
                          reversed: true, lengthSource: outcome.lengthSource, passes: outcome.passes,
                          temporaryBytes: outcome.sink?.size ?? 0)
        }

        /// Reverses an input that can be read only once (a pipe): decoded forwards into a
        /// temporary file, then written from its end, block by reversed block.
        func reverseBySpilling(_ decoder: PCMDecoder, in folder: URL, progress: ProgressReporter) throws -> ConversionResult {
            var writer: AudioFileWriter?
            let spilled: (frames: Int64, temporaryBytes: Int64)
            do {
                spilled = try SpilledReversal(blockFrames: options.blockFrames ?? (1 << 16), isCancelled: cancellation.check)
                    .run(decoder, in: folder, progress: progress.update) { bytes, frames in
                        if writer == nil { writer = try makeWriter(for: decoder, expectedFrames: nil) }
                        try writer!.append(bytes, frames: frames)
                    }
                if writer == nil { writer = try makeWriter(for: decoder, expectedFrames: 0) }
                try writer!.finish()
            } catch {
                writer?.cancel()
                throw error
            }
            return result(decoder, writer: writer!, frames: spilled.frames,
                          blockFrames: options.blockFrames ?? decoder.firstBufferFrameCount ?? 0, reversed: true,
                          lengthSource: .decode, passes: 1, temporaryBytes: spilled.temporaryBytes)
        }

        private func result(_ decoder: PCMDecoder, writer: AudioFileWriter, frames: Int64, blockFrames: Int, reversed: Bool,
                            lengthSource: LengthSource, passes: Int, temporaryBytes: Int64) -> ConversionResult {
            ConversionResult(
                input: source.url, output: output, source: source.info(frames: frames, framesSource: .decode), format: decoder.format,
                outputFormat: outputFormat, codec: writer.codec, storedSampleFormat: writer.storedSampleFormat, frames: frames, blockFrames: blockFrames,
                reversed: reversed, conversions: decoder.conversions + writer.conversions,
                warnings: warnings(decoder, decoded: frames), lengthSource: lengthSource, predictedFrames: predicted?.frames,
                decodePasses: passes, temporaryBytes: temporaryBytes, predictionFailure: {
                    if case .unknown(let reason) = count { return reason }
                    return nil
                }())
        }

        /// The decoder's warnings, or, when it had none, a note that the container misstated the length.
        private func warnings(_ decoder: PCMDecoder, decoded: Int64) -> [String] {
            let own = decoder.warnings
            guard own.isEmpty, let predicted = predicted?.frames, predicted != decoded,
                  decoder.format.sampleRate == source.parameters.sampleRate else { return own }
            let what = range == nil ? "the file declares" : "the range should hold"
            return ["\(what) \(predicted) frames but decodes to \(decoded); the decoded length was used"]
        }
    }
}
