import Foundation

/// What a conversion did.
public struct ConversionResult: Sendable {
    public let input: URL
    public let output: URL
    /// The input's description; `frames` is the number of frames actually decoded.
    public let source: AudioInfo
    /// The PCM shape of the output.
    public let format: PCMFormat
    /// Frames written.
    public let frames: Int64
    /// Frames per block written.
    public let blockFrames: Int
    public let reversed: Bool
    /// Problems that did not stop the conversion (skipped packets, a truncated input).
    public let warnings: [String]
    /// How the output length was known before writing: "container", "packets", or "decode"
    /// when the stated length was wrong and the input had to be decoded a second time.
    public let lengthSource: String
    /// The length predicted before decoding (nil when nothing predicted it).
    public let predictedFrames: Int64?
    /// Times the input was decoded (2 only when its container misstated its length).
    public let decodePasses: Int
    /// Temporary disk space used besides the output itself (a reversal needs none).
    public let temporaryBytes: Int64
}
