/// How a file is converted to WAV.
public struct ConversionOptions: Sendable, Equatable {
    /// Which channels to keep.
    public var channels: ChannelSelection
    /// Write the audio reversed.
    public var reverse: Bool
    /// Frames per written block; nil means the seed's choice, the first decoded buffer's size.
    public var blockFrames: Int?
    /// Replace an existing output file (never the input).
    public var overwrite: Bool

    public init(channels: ChannelSelection = .all, reverse: Bool = false, blockFrames: Int? = nil,
                overwrite: Bool = false) {
        self.channels = channels
        self.reverse = reverse
        self.blockFrames = blockFrames
        self.overwrite = overwrite
    }
}
