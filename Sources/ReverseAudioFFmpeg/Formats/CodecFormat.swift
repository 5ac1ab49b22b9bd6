import ReverseAudioCore

/// A codec as the library writes it: FFmpeg's encoder, the samples it stores, its bit rates,
/// rates and channels. Described where it is first used (PCM for WAV, FLAC for `.flac`, Opus
/// for `.opus`) and shared by every ``FileFormat`` that holds it.
package struct CodecFormat: Sendable {
    /// The codec's name (`--codec NAME`).
    package let name: String
    /// True when every sample is kept exactly.
    package let isLossless: Bool
    /// FFmpeg's encoder for samples of a sample format.
    package let encoder: @Sendable (SampleFormat) -> String
    /// The sample formats a lossless codec stores, each written as the one it maps to (8-bit
    /// into FLAC goes in as 16-bit, exactly); a format it has no entry for cannot be stored
    /// without loss. Nil for a lossy codec (its encoder takes any).
    package let stores: [SampleFormat: SampleFormat]?
    /// True when samples of a format are already the file's bytes (little-endian PCM): written
    /// as they are, and at any position (a reversal writes each block at its mirrored place).
    package let storesAsInMemory: @Sendable (SampleFormat) -> Bool
    /// Bits per second a lossy codec takes, when it takes a bit rate.
    package let bitRates: ClosedRange<Int>?
    /// Its bit rate when none is asked for and the input's is not of this codec.
    package let defaultBitRate: @Sendable (PCMFormat) -> Int?
    /// The most channels its encoder takes (nil: any).
    package let maximumChannels: Int?
    /// The only rates it takes, when it takes only a few: the input is resampled to the nearest
    /// (as the `ffmpeg` CLI does for Opus, 48 kHz for 44.1 kHz).
    package let resamplesTo: [Int]?

    package init(name: String, isLossless: Bool, encoder: @escaping @Sendable (SampleFormat) -> String,
                 stores: [SampleFormat: SampleFormat]? = nil,
                 storesAsInMemory: @escaping @Sendable (SampleFormat) -> Bool = { _ in false },
                 bitRates: ClosedRange<Int>? = nil, defaultBitRate: @escaping @Sendable (PCMFormat) -> Int? = { _ in nil },
                 maximumChannels: Int? = nil, resamplesTo: [Int]? = nil) {
        self.name = name
        self.isLossless = isLossless
        self.encoder = encoder
        self.stores = stores
        self.storesAsInMemory = storesAsInMemory
        self.bitRates = bitRates
        self.defaultBitRate = defaultBitRate
        self.maximumChannels = maximumChannels
        self.resamplesTo = resamplesTo
    }

    /// The rate written for audio at `rate`: the same, or for a codec of few rates the nearest
    /// it takes (the higher of two as near).
    package func rate(for rate: Int) -> Int {
        guard let rates = resamplesTo, !rates.contains(rate), !rates.isEmpty else { return rate }
        return rates.min { (abs($0 - rate), -$0) < (abs($1 - rate), -$1) }!
    }

    /// 192 kb/s for stereo at CD rates and above, less at lower rates: what lossy codecs
    /// without a rate of their own write.
    package static func commonBitRate(_ format: PCMFormat) -> Int {
        let perChannel = format.sampleRate >= 32000 ? 96_000 : (format.sampleRate >= 16000 ? 64_000 : 32_000)
        return perChannel * min(format.channelCount, 2) * max(1, format.channelCount / 2)
    }
}
