/// The shape of interleaved PCM: sample format, rate and channels.
public struct PCMFormat: Sendable, Equatable, CustomStringConvertible {
    /// How each sample is stored.
    public let sampleFormat: SampleFormat
    /// Frames per second.
    public let sampleRate: Int
    /// Samples per frame, one per channel.
    public let channelCount: Int
    /// FFmpeg's name for the channel layout ("mono", "stereo", "5.1"), when known.
    public let channelLayoutName: String?

    /// A format; the layout name is FFmpeg's ("stereo", "5.1") when known.
    public init(sampleFormat: SampleFormat = .s16, sampleRate: Int, channelCount: Int, channelLayoutName: String? = nil) {
        self.sampleFormat = sampleFormat
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.channelLayoutName = channelLayoutName
    }

    /// Bytes per frame (one sample of every channel).
    package var bytesPerFrame: Int { sampleFormat.bytesPerSample * channelCount }

    /// "44100 Hz, stereo, s16".
    public var description: String {
        "\(sampleRate) Hz, \(channelLayoutName ?? ChannelCountText.phrase(channelCount)), \(sampleFormat)"
    }

    /// The same format with another sample format.
    package func with(sampleFormat: SampleFormat) -> PCMFormat {
        PCMFormat(sampleFormat: sampleFormat, sampleRate: sampleRate, channelCount: channelCount,
                  channelLayoutName: channelLayoutName)
    }

    /// One channel of this format (its sample format and rate).
    package var mono: PCMFormat {
        PCMFormat(sampleFormat: sampleFormat, sampleRate: sampleRate, channelCount: 1, channelLayoutName: "mono")
    }

    /// True when frames of `other` are frames of this format: the same sample format, rate and
    /// channel count (a layout's name is not part of the samples).
    package func holdsSameFrames(as other: PCMFormat) -> Bool {
        sampleFormat == other.sampleFormat && sampleRate == other.sampleRate && channelCount == other.channelCount
    }

    /// The byte value of digital silence in this format: zero, or 128 for unsigned 8-bit.
    package var silenceByte: UInt8 { sampleFormat == .u8 ? 0x80 : 0 }
}
