import FFmpeg
import ReverseAudioCore

/// Which encoder writes a PCM format into an output format, and with what settings.
///
/// Lossless outputs keep the input's sample format where the codec can hold it (24-bit stays
/// 24-bit, float WAV stays float); where it cannot, an exact widening is used and said
/// (8-bit into FLAC becomes 16-bit), and a loss is refused (float into FLAC).
struct EncoderPlan {
    let codec: OutputFormat.Codec
    /// FFmpeg's encoder name.
    let encoderName: String
    /// The sample type handed to the encoder (it converts to its own variant).
    let sampleType: SampleType
    let bitsPerRawSample: Int?
    let bitRate: Int?
    /// Bytes one sample takes in the file, for PCM (3 for 24-bit).
    let storedBytesPerSample: Int
    /// True when the samples are already in the file's byte layout (little-endian PCM).
    let passesThrough: Bool
    /// What changes on the way into the file.
    let conversions: [String]
    /// The sample format the file holds; nil for lossy codecs.
    let storedSampleFormat: SampleFormat?

    init(format: PCMFormat, outputFormat: OutputFormat, source: AudioFileWriter.Input?, path: String) throws {
        let container = outputFormat.container
        codec = outputFormat.resolvedCodec(inputIsLossless: source?.isLossless ?? true)
        let sample = format.sampleFormat
        var conversions: [String] = []
        var bits: Int?
        var bitRate: Int?
        var stored = sample == .s24 ? 3 : sample.bytesPerSample
        var passes = false
        encoderName = EncoderChoice.encoder(for: codec, sampleFormat: sample, in: container)
        switch codec {
        case .pcm:
            passes = EncoderChoice.storesAsInMemory(encoderName, sampleFormat: sample)
        case .flac, .alac:
            if sample.isFloat || sample == .s32 {
                // FFmpeg's FLAC and ALAC encoders hold integers of at most 24 bits.
                throw ReverseAudioError.sampleFormatNotStorable(path: path, codec: codec.rawValue, sampleFormat: sample,
                                                                storable: [.u8, .s16, .s24])
            }
            if sample == .u8 {
                conversions.append("sample format u8 → s16: \(codec.rawValue.uppercased()) has no 8-bit samples (exact)")
            }
            if sample == .s24 { bits = 24 }
            stored = 0
        case .aac, .mp3:
            let chosen = codec
            let sameCodec = source?.codec == chosen
            bitRate = outputFormat.bitRate ?? (sameCodec ? source?.bitRate : nil) ?? EncoderPlan.defaultBitRate(codec, format)
            stored = 0
        }
        if let maximum = EncoderPlan.maximumChannels(codec), format.channelCount > maximum {
            throw ReverseAudioError.tooManyChannels(path: path, codec: codec.rawValue, channels: format.channelCount, maximum: maximum)
        }
        let rates = Encoder.supportedSampleRates(codecName: encoderName)
        if !rates.isEmpty, !rates.contains(format.sampleRate) {
            throw ReverseAudioError.unsupportedSampleRate(path: path, codec: codec.rawValue, sampleRate: format.sampleRate, supported: rates)
        }
        // 8-bit into FLAC or ALAC goes in as 16-bit (the widening said above).
        sampleType = sample == .u8 && codec != .pcm ? .s16 : sample.sampleType
        bitsPerRawSample = bits
        self.bitRate = bitRate
        storedBytesPerSample = stored
        passesThrough = passes
        self.conversions = conversions
        switch codec {
        case .pcm: storedSampleFormat = sample
        case .flac, .alac: storedSampleFormat = sample == .u8 ? .s16 : sample
        case .aac, .mp3: storedSampleFormat = nil
        }
    }

    /// The most channels FFmpeg's encoder of `codec` takes (5.1's: MP3 2; FLAC, ALAC and AAC 8,
    /// as `ffmpeg -c:a flac` says for 9: "9 channels not supported (max 8)"); nil for PCM.
    static func maximumChannels(_ codec: OutputFormat.Codec) -> Int? {
        switch codec {
        case .mp3: return 2
        case .flac, .alac, .aac: return 8
        case .pcm: return nil
        }
    }

    /// 192 kb/s for stereo at CD rates and above; less where MPEG layer 3 allows no more.
    private static func defaultBitRate(_ codec: OutputFormat.Codec, _ format: PCMFormat) -> Int {
        let perChannel = format.sampleRate >= 32000 ? 96_000 : (format.sampleRate >= 16000 ? 64_000 : 32_000)
        let total = perChannel * min(format.channelCount, 2)
        return codec == .mp3 ? min(total, format.sampleRate >= 32000 ? 320_000 : 160_000) : total * max(1, format.channelCount / 2)
    }
}
