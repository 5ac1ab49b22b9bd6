import Foundation

/// How a file is converted.
public struct ConversionOptions: Sendable {
    /// Which channels to keep.
    public var channels: ChannelSelection
    /// Write the audio reversed.
    public var reverse: Bool
    /// Frames per written block; nil means the seed's choice, the first decoded buffer's size.
    package var blockFrames: Int?
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
    /// Effects on what is heard, in order (`Gain`, `Fade`): a fade-in is at the start of
    /// the output, reversed or not.
    public var effects: [any AudioEffect]
    /// Threads a reversal may decode the input on, segment by segment (default: the machine's
    /// cores; 1 reads it once, forwards, on one thread). The output is the same byte for byte;
    /// inputs whose decode cannot restart exactly anywhere (AAC, a pipe, a rate conversion)
    /// use one thread whatever this says.
    public var threads: Int

    /// Told how many seconds of audio the job reads, once the input is open and before any audio
    /// is decoded, or nil when that is found only by decoding (the tool's progress bar takes its
    /// speed from it). Nothing more is read to tell it: a range's length is the range's, not the
    /// whole file's, which would cost an MP3 a pass over every packet.
    package var opened: (@Sendable (Double?) -> Void)?

    /// The cores of this machine: the default for ``threads``.
    public static var availableCores: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// Options with the defaults of `convert`: all channels, forwards, 16-bit, the input's rate, the format the output's name asks for.
    public init(channels: ChannelSelection = .all, reverse: Bool = false, blockFrames: Int? = nil,
                overwrite: Bool = false, sampleFormat: SampleFormat? = .s16, sampleRate: Int? = nil,
                outputFormat: OutputFormat? = nil, range: TimeRange? = nil, effects: [any AudioEffect] = [],
                threads: Int = ConversionOptions.availableCores) {
        self.channels = channels
        self.reverse = reverse
        self.blockFrames = blockFrames
        self.overwrite = overwrite
        self.sampleFormat = sampleFormat
        self.sampleRate = sampleRate
        self.outputFormat = outputFormat
        self.range = range
        self.effects = effects
        self.threads = max(1, threads)
    }
}
