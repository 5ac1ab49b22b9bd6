/// How a file is converted.
public struct ConversionOptions: Sendable, Equatable {
    /// Which channels to keep.
    public var channels: ChannelSelection
    /// Write the audio reversed.
    public var reverse: Bool
    /// Frames per written block; nil means the seed's choice, the first decoded buffer's size.
    public var blockFrames: Int?
    /// Replace an existing output file (never the input).
    public var overwrite: Bool
    /// The sample format to write; nil keeps the input's own (24-bit stays 24-bit, float stays float).
    public var sampleFormat: SampleFormat?
    /// The sample rate to write (swresample converts, as `ffmpeg -ar`); nil keeps the input's.
    public var sampleRate: Int?
    /// The container and codec; nil picks them from the output's extension.
    public var outputFormat: OutputFormat?
    /// The part of the input to convert; nil for all of it. Exact to the frame.
    public var range: TimeRange?

    /// Options with the defaults of `convert`: all channels, forwards, 16-bit, the input's rate, the format the output's name asks for.
    public init(channels: ChannelSelection = .all, reverse: Bool = false, blockFrames: Int? = nil,
                overwrite: Bool = false, sampleFormat: SampleFormat? = .s16, sampleRate: Int? = nil,
                outputFormat: OutputFormat? = nil, range: TimeRange? = nil) {
        self.channels = channels
        self.reverse = reverse
        self.blockFrames = blockFrames
        self.overwrite = overwrite
        self.sampleFormat = sampleFormat
        self.sampleRate = sampleRate
        self.outputFormat = outputFormat
        self.range = range
    }
}
