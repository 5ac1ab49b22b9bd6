import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

/// The original app's check: reverse a file, reverse the result, and expect the original.
///
/// Writes `NAME-REVERSED.wav` and `NAME-REVERSED-REVERSED.wav` into a folder and compares the
/// second, sample for sample, with the decode of the original (with the same channel choice).
public enum RoundTrip {
    /// What a round trip did and found.
    public struct Report: Sendable {
        /// The original.
        public let input: URL
        /// The first reversal: `NAME-REVERSED.wav`.
        public let reversed: ConversionResult
        /// The reversal of the reversal: `NAME-REVERSED-REVERSED.wav`.
        public let reversedReversed: ConversionResult
        /// Nil when the reversed-reversed audio equals the original; otherwise the first difference.
        public let mismatch: String?

        /// True when the reversed-reversed audio equals the original.
        public var verified: Bool { mismatch == nil }
    }

    /// The seed's output names for `input`: `NAME-REVERSED.wav` and `NAME-REVERSED-REVERSED.wav`
    /// (with the container's extension for another format).
    /// - Parameters:
    ///   - input: the original file.
    ///   - name: the NAME to use instead of the input's file name without extension.
    ///   - container: the output format, whose extension the names take.
    package static func outputNames(for input: URL, name: String? = nil,
                                   format: OutputFormat = .wav) -> (reversed: String, reversedReversed: String) {
        let base = name ?? input.deletingPathExtension().lastPathComponent
        let ext = format.fileExtension
        return ("\(base)-REVERSED.\(ext)", "\(base)-REVERSED-REVERSED.\(ext)")
    }

    /// Reverses `input` into `directory`, reverses that again, and compares.
    /// - Parameters:
    ///   - input: the original file.
    ///   - directory: where both outputs go (made if missing).
    ///   - options: channels, sample format and format of the reversal (reversal is switched on).
    ///   - name: the NAME in the output names (default: the input's name without extension).
    ///   - progress: the whole round trip as one 0...1 progress, 1.0 when verified or not.
    public static func run(_ input: URL, into directory: URL, name: String? = nil,
                           options: ConversionOptions = ConversionOptions(),
                           progress: ProgressHandler? = nil) async throws -> Report {
        try await BlockingWork.run { flag in
            try run(input, into: directory, name: name, options: options, cancellation: flag, progress: progress)
        }
    }

    /// The blocking form of `run(_:into:name:options:progress:)`.
    package static func run(_ input: URL, into directory: URL, name: String? = nil, options: ConversionOptions,
                           cancellation: CancellationFlag, progress: ProgressHandler?) throws -> Report {
        let names = outputNames(for: input, name: name, format: options.outputFormat ?? .wav)
        // As the CLI's -o does: the folder is made when missing.
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw ReverseAudioError.output(.cannotCreateOutput(path: directory.displayPath, reason: "cannot create the folder"))
        }
        let reporter = ProgressReporter(progress)
        var reverseOptions = options
        reverseOptions.reverse = true
        let reversed = try AudioConverter.convert(
            input, to: directory.appendingPathComponent(names.reversed), options: reverseOptions,
            cancellation: cancellation, progress: { reporter.update(0.45 * $0) })
        let reversedReversedURL = directory.appendingPathComponent(names.reversedReversed)
        let secondExisted = FileManager.default.fileExists(atPath: reversedReversedURL.path)
        do {
            // A round trip cancelled after its first file was written leaves nothing either,
            // nor its second, when the cancellation came while the two were being compared.
            if cancellation.isCancelled { throw CancellationError() }
            let report = try verify(original: input, reversed: reversed, reversedReversedURL: reversedReversedURL,
                                    options: reverseOptions, cancellation: cancellation,
                                    progress: reporter.stage(from: 0.45, to: 1))
            reporter.complete()
            return report
        } catch is CancellationError {
            try? FileManager.default.removeItem(at: reversed.output)
            if !secondExisted { try? FileManager.default.removeItem(at: reversedReversedURL) }
            throw CancellationError()
        }
    }

    /// Checks an existing reversal: reverses `reversed.output` to `reversedReversedURL` and
    /// compares it with `original` decoded with the same channel choice.
    package static func verify(original: URL, reversed: ConversionResult, reversedReversedURL: URL,
                              options: ConversionOptions, cancellation: CancellationFlag,
                              progress: @escaping ProgressHandler) throws -> Report {
        var secondOptions = options
        secondOptions.reverse = true
        // The reversed file already holds only the chosen channels.
        secondOptions.channels = .all
        secondOptions.sampleFormat = nil
        secondOptions.sampleRate = nil
        // Same blocks as the first reversal (an empty input has none to copy).
        secondOptions.blockFrames = options.blockFrames ?? (reversed.blockFrames > 0 ? reversed.blockFrames : nil)
        let reversedReversed = try AudioConverter.convert(
            reversed.output, to: reversedReversedURL, options: secondOptions,
            cancellation: cancellation, progress: { progress(0.8 * $0) })
        var forward = options
        forward.reverse = false
        forward.range = nil
        let originalDecode = try AudioChain(url: original, recipe: ChainRecipe(sampleFormat: forward.sampleFormat,
                                                                               sampleRate: forward.sampleRate, channels: forward.channels),
                                            cancellation: cancellation).source
        // The round trip holds the chosen sample format and rate already.
        let roundTrip = try AudioChain(url: reversedReversedURL, recipe: ChainRecipe(sampleFormat: reversedReversed.format.sampleFormat),
                                       cancellation: cancellation).source
        let mismatch = try PCMComparison.firstDifference(roundTrip, originalDecode)
        progress(1)
        return Report(input: original, reversed: reversed, reversedReversed: reversedReversed, mismatch: mismatch)
    }
}
