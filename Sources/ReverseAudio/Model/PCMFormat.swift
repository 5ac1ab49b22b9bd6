/// The shape of decoded PCM: what a WAV written from it declares.
public struct PCMFormat: Sendable, Equatable, CustomStringConvertible {
    public let sampleRate: Int
    public let channelCount: Int
    /// FFmpeg's name for the channel layout ("mono", "stereo", "5.1"), when known.
    public let channelLayoutName: String?

    public init(sampleRate: Int, channelCount: Int, channelLayoutName: String? = nil) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.channelLayoutName = channelLayoutName
    }

    /// Bytes per frame of 16-bit samples.
    public var bytesPerFrame: Int { 2 * channelCount }

    public var description: String {
        "\(sampleRate) Hz, \(channelLayoutName ?? "\(channelCount) channels"), s16"
    }
}
