/// A block of interleaved signed 16-bit PCM, as the seed app's `CMSampleBuffer`s carried.
public struct SampleBuffer: Sendable, Equatable {
    /// Interleaved samples: `frameCount × channelCount` values, channel 0 first in each frame.
    public var samples: [Int16]
    /// Channels per frame.
    public let channelCount: Int
    /// Frames per second.
    public let sampleRate: Int
    /// Index of this block's first frame within its stream (the decode, or the reversed output).
    public let position: Int64

    public init(samples: [Int16], channelCount: Int, sampleRate: Int, position: Int64) {
        precondition(channelCount > 0 && samples.count % channelCount == 0,
                     "samples must hold whole frames")
        self.samples = samples
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        self.position = position
    }

    /// Frames (one sample per channel) in this block.
    public var frameCount: Int { samples.count / channelCount }

    /// This block's length in seconds.
    public var duration: Double { Double(frameCount) / Double(sampleRate) }

    /// The samples of one channel.
    public func channel(_ index: Int) -> [Int16] {
        precondition(index >= 0 && index < channelCount, "channel \(index) out of range")
        return stride(from: index, to: samples.count, by: channelCount).map { samples[$0] }
    }
}
