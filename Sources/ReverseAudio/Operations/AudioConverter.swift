import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

/// Converts any supported audio file to WAV, AIFF, CAF, FLAC, M4A, MP3 or AAC, forwards or
/// reversed: the one operation that writes a file from another.
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
        do {
            return try convert(input, to: output, options: options, cancellation: cancellation, reporter: reporter)
        } catch let declined as PlacementDeclined {
            // A conversion encoded while it was decoded on several threads met what only one
            // continuous decode handles (a misstated length, damage): done again on one thread.
            var single = options
            single.threads = 1
            var result = try convert(input, to: output, options: single, cancellation: cancellation, reporter: reporter)
            result.singleThreadReason = declined.reason
            return result
        }
    }

    /// One attempt at ``convert(_:to:options:cancellation:progress:)``.
    private static func convert(_ input: URL, to output: URL, options: ConversionOptions, cancellation: CancellationFlag,
                                reporter: ProgressReporter) throws -> ConversionResult {
        if let blockFrames = options.blockFrames, blockFrames <= 0 {
            throw ReverseAudioError.settingOutOfRange(.blockFrames, value: "\(blockFrames)", allowed: "at least 1 frame")
        }
        try AudioInput.checkReadableFile(at: input)
        // Fail on an unusable output or format before spending time decoding.
        let outputFormat = try options.outputFormat ?? OutputFormat.forFile(output)
        let destination = try OutputFile(url: output, overwrite: options.overwrite, inputs: [input],
                                         requiresSeekableFile: outputFormat.container.requiresSeekableFile)
        let temporaryFolder = AudioInput.isSeekableFile(input) ? destination.temporaryFolder : FileManager.default.temporaryDirectory
        destination.discard()
        let chain = try Chain(input, options: options, cancellation: cancellation)
        let threads = chain.threads(asked: options.threads)
        if threads > 1 { try chain.file.prepareIndependentReaders(for: chain.range) }
        let predicted = chain.source.length
        let writer = try AudioFileWriter(url: output, format: chain.source.format, outputFormat: outputFormat,
                                         input: chain.file.writerInput, overwrite: options.overwrite, inputs: [input],
                                         expectedFrames: predicted.frames)
        guard options.reverse else {
            let report = try transferReporting(chain.source, to: writer, threads: threads, progress: reporter.update,
                                               cancellation: cancellation)
            return finish(chain, nil, writer: writer, report: report, output: output, options: options, predicted: predicted,
                          reporter: reporter)
        }
        // Straight to the mirrored places when the output takes frames anywhere; else through a
        // temporary file: the reading pass, then the encoding one (which, on several threads,
        // follows the reading as it completes the reversal from its start).
        let mirrors = writer.positioned != nil && predicted.frames != nil
        let follows = !mirrors && threads > 1
        let reversal = ReversedSource(chain.source, blockFrames: options.blockFrames, threads: threads,
                                      temporaryDirectory: temporaryFolder,
                                      progress: mirrors || follows ? nil : reporter.stage(from: 0, to: 0.6), cancellation: cancellation)
        reversal.followsPlacement = follows
        defer { reversal.close() }
        var report = try transferReporting(reversal, to: writer, threads: 1,
                                           progress: mirrors || follows ? reporter.update : reporter.stage(from: 0.6, to: 1),
                                           cancellation: cancellation)
        // Through the temporary file, the threads are those of the reading pass.
        report.threadsUsed = reversal.threadsUsed
        report.singleThreadReason = reversal.singleThreadReason
        return finish(chain, reversal, writer: writer, report: report, output: output, options: options, predicted: predicted,
                      reporter: reporter)
    }

    /// The result of a finished conversion.
    private static func finish(_ chain: Chain, _ reversal: ReversedSource?, writer: AudioFileWriter, report: TransferReport, output: URL,
                               options: ConversionOptions, predicted: PCMLength, reporter: ProgressReporter) -> ConversionResult {
        reporter.complete()
        let frames = report.frames
        let blockFrames = reversal?.blockFrames ?? options.blockFrames ?? chain.file.blockFrames ?? 0
        let lengthSource = reversal.map { $0.length.source } ?? (predicted.frames == frames ? predicted.source : .decode)
        return ConversionResult(
            input: chain.file.url, output: output, source: chain.file.info(frames: frames), format: chain.source.format,
            outputFormat: writer.outputFormat, codec: writer.codec, storedSampleFormat: writer.storedSampleFormat,
            frames: frames, blockFrames: blockFrames, reversed: reversal != nil,
            conversions: chain.conversions + writer.conversions, warnings: chain.source.warnings,
            lengthSource: lengthSource, predictedFrames: predicted.frames, decodePasses: reversal?.passes ?? 1,
            temporaryBytes: reversal?.temporaryBytes ?? 0, predictionFailure: predicted.frames == nil ? chain.lengthUnknownReason : nil,
            decodeThreads: report.threadsUsed, singleThreadReason: options.threads > 1 ? singleThreadReason(chain, report) : nil)
    }

    /// Why the decode ran on one thread: a range too short a share of an MP3 to repay finding
    /// its packets, or what the transfer said.
    private static func singleThreadReason(_ chain: Chain, _ report: TransferReport) -> String? {
        guard report.threadsUsed <= 1 else { return nil }
        if chain.file.readsStoredSamples { return Chain.storedSamplesReason }
        return chain.readersRepaySetUp ? report.singleThreadReason : AudioFileSource.shortRangeReason
    }

    /// The sources a conversion reads: the file, converted, cut to a range, one channel taken.
    struct Chain {
        let file: AudioFileSource
        let source: any PCMSource
        let conversions: [String]

        /// The range of the file's own frames, when one is asked for.
        let range: Range<Int64>?

        /// Whether decoding on several threads repays finding what other readers need (see
        /// `AudioFileSource.readersRepaySetUp(for:)`).
        var readersRepaySetUp: Bool { file.readersRepaySetUp(for: range) }

        /// Why PCM read straight from the file is read on one thread.
        static let storedSamplesReason = "PCM read straight from the file: one thread moves it as fast as the page cache gives it (two measured slower)"

        /// The threads to decode on when `asked` are: one for PCM whose bytes are the samples
        /// (a 60-minute WAV reversal took 0.46 s on one thread and 0.51 s on two: the work is
        /// copying, and the segments' seams and second reader only add to it).
        func threads(asked: Int) -> Int { file.readsStoredSamples ? 1 : asked }

        /// The chain `options` asks for over `input`.
        init(_ input: URL, options: ConversionOptions, cancellation: CancellationFlag) throws {
            let file = try AudioFileSource(url: input, cancellation: cancellation)
            self.file = file
            let range = try options.range.map { try $0.frames(atRate: file.format.sampleRate, path: file.name) }
            self.range = range
            let mixes = options.channels == .mix
            let converts = options.sampleFormat.map { $0 != file.format.sampleFormat } ?? false
            var source: any PCMSource = file
            var converter: SampleConverter?
            if let rate = options.sampleRate {
                // A range counts the file's own frames: it is cut before the rate changes.
                if let range { source = RangeSource(source, frames: range) }
                converter = try SampleConverter(source, sampleFormat: options.sampleFormat, sampleRate: rate, mixingToMono: mixes)
                source = converter!
            } else {
                if converts || mixes {
                    converter = try SampleConverter(source, sampleFormat: options.sampleFormat, mixingToMono: mixes)
                    source = converter!
                }
                if let range { source = RangeSource(source, frames: range) }
            }
            var conversions = converter?.conversions ?? []
            if let channel = options.channels.extractedChannel {
                source = try ChannelSelector(source, channel: channel)
                conversions.append("channel \(channel) of \(file.format.channelCount) only")
            }
            self.source = source
            self.conversions = conversions
        }

        /// Why nothing tells the length before decoding, when nothing does.
        var lengthUnknownReason: String? {
            source.format.sampleRate != file.format.sampleRate ? "the sample rate is converted" : file.lengthUnknownReason
        }
    }
}
