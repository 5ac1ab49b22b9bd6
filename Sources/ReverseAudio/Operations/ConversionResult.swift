import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

/// What a conversion did.
public struct ConversionResult: Sendable {
    /// The file read; nil when the conversion read a `PCMSource` rather than a file.
    public let input: URL?
    /// The file written.
    public let output: URL
    /// The input's description; `frames` is the number of frames actually decoded.
    public let source: AudioInfo
    /// The PCM written (before encoding): sample format, rate, channels.
    public let format: PCMFormat
    /// The container and codec written.
    public let outputFormat: OutputFormat
    /// The codec written (for `.m4a`, the automatic choice resolved).
    package let codec: String
    /// The sample format the file holds (8-bit into FLAC is 16-bit); nil for a lossy codec.
    package let storedSampleFormat: SampleFormat?
    /// Frames written.
    public let frames: Int64
    /// Frames per block written.
    package let blockFrames: Int
    /// True for a reversal.
    public let reversed: Bool
    /// What was changed on the way (sample format, rate, channels), one phrase each; empty when
    /// the samples are written as the input holds them.
    public let conversions: [String]
    /// Problems that did not stop the conversion (skipped packets, a truncated input).
    public let warnings: [ReverseAudioWarning]
    /// How the output length was known before writing.
    package let lengthSource: LengthSource
    /// The length predicted before decoding (nil when nothing predicted it).
    package let predictedFrames: Int64?
    /// Why nothing predicted the length, when nothing did.
    package let predictionFailure: String?
    /// Times the input was decoded (2 only when its container misstated its length).
    package let decodePasses: Int
    /// Threads that decoded the input: 1, or the threads of a segment-parallel reversal.
    package internal(set) var decodeThreads: Int
    /// Why the input was decoded on one thread though more were allowed, when it was.
    package internal(set) var singleThreadReason: OneReaderReason?
    /// Temporary disk space used besides the output itself: 0 for a reversal into PCM, the raw
    /// reversed audio for an encoded output or a pipe (removed before returning).
    package let temporaryBytes: Int64

    init(input: URL?, output: URL, source: AudioInfo, format: PCMFormat, outputFormat: OutputFormat,
         codec: String, storedSampleFormat: SampleFormat?, frames: Int64, blockFrames: Int, reversed: Bool, conversions: [String],
         warnings: [ReverseAudioWarning], lengthSource: LengthSource, predictedFrames: Int64?, decodePasses: Int,
         temporaryBytes: Int64, predictionFailure: String?, decodeThreads: Int = 1, singleThreadReason: OneReaderReason? = nil) {
        self.input = input
        self.output = output
        self.source = source
        self.format = format
        self.outputFormat = outputFormat
        self.codec = codec
        self.storedSampleFormat = storedSampleFormat
        self.frames = frames
        self.blockFrames = blockFrames
        self.reversed = reversed
        self.conversions = conversions
        self.warnings = warnings
        self.lengthSource = lengthSource
        self.predictedFrames = predictedFrames
        self.decodePasses = decodePasses
        self.temporaryBytes = temporaryBytes
        self.predictionFailure = predictionFailure
        self.decodeThreads = decodeThreads
        self.singleThreadReason = singleThreadReason
    }
}
