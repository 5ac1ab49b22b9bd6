import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

extension AudioConverter {
    /// Converts `source` (any `PCMSource`: an ``AudioReader``, a chain of combinators such as
    /// `range(_:)` or `reversed()`, or a source of your own) into `output`, with the same
    /// options as a file: range, channels, sample format and rate, effects, direction.
    ///
    /// ```swift
    /// let intro = try AudioReader(url: song).range(0..<441_000)
    /// try await AudioConverter.convert(intro, to: introReversed, options: ConversionOptions(reverse: true))
    /// ```
    ///
    /// The source is read by one reader, from its start, on a thread of its own: give it up to
    /// the call. Cancelling the task stops the work at the next chunk, removes the partial output
    /// and throws `CancellationError`. The result's `input` is nil.
    /// - Parameters:
    ///   - source: the frames to write, read from their start.
    ///   - output: the file to write; its extension picks the format unless `options` names one.
    ///   - options: channels, direction, sample format and rate, format, range, overwriting.
    ///   - progress: called with fractions in 0...1, non-decreasing; 1.0 exactly once, after
    ///     the output is complete and in place (fractions need the source's length).
    public static func convert(_ source: sending any PCMSource, to output: URL, options: ConversionOptions = ConversionOptions(),
                               progress: ProgressHandler? = nil) async throws -> ConversionResult {
        // `sending`: the caller gave the source up, so the work's thread alone uses it.
        nonisolated(unsafe) let handed = source
        return try await BlockingWork.run { flag in
            try convert(handed, name: "source", to: output, options: options, cancellation: flag, progress: progress)
        }
    }

    /// The blocking form of `convert(_:to:options:progress:)` for a source, named `name` in
    /// messages: runs on the calling thread and stops once `cancellation` is cancelled.
    package static func convert(_ source: any PCMSource, name: String, to output: URL, options: ConversionOptions,
                                cancellation: CancellationFlag, progress: ProgressHandler?) throws -> ConversionResult {
        let (outputFormat, recipe, outputFolder) = try plan(options, output: output, inputs: [])
        let reporter = ProgressReporter(progress)
        let scheduler = Scheduler(threads: 1, progress: reporter.update, cancellation: cancellation, temporaryFolder: outputFolder)
        let (job, reversed, conversions) = try AudioChain.job(over: source, name: name, recipe: recipe, scheduler: scheduler)
        let predicted = job.source.length
        let writer = try AudioFileWriter(url: output, format: job.source.format, outputFormat: outputFormat, input: nil,
                                         overwrite: options.overwrite, inputs: [], expectedFrames: predicted.frames)
        let report = try scheduler.transfer(job, reversed: reversed, into: writer)
        reporter.complete()
        let frames = report.frames
        let described = AudioInfo(source: name, format: source.format, frames: frames, framesSource: .decode)
        return ConversionResult(
            input: nil, output: output, source: described, format: job.source.format, outputFormat: writer.outputFormat,
            codec: writer.codec, storedSampleFormat: writer.storedSampleFormat, frames: frames,
            blockFrames: report.blockFrames ?? options.blockFrames ?? 0, reversed: options.reverse,
            conversions: conversions + writer.conversions, warnings: [],
            lengthSource: predicted.frames == frames ? predicted.source : .decode, predictedFrames: predicted.frames,
            decodePasses: report.passes, temporaryBytes: report.temporaryBytes, predictionFailure: nil)
    }
}
