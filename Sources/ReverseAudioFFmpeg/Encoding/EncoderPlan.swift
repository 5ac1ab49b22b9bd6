import FFmpeg
import ReverseAudioCore

/// Which encoder writes a PCM format into an output format, and with what settings, from the
/// format's and codec's descriptions (``FileFormat``, ``CodecFormat``).
///
/// Lossless outputs keep the input's sample format where the codec can hold it (24-bit stays
/// 24-bit, float WAV stays float); where it cannot, an exact widening is used and said
/// (8-bit into FLAC becomes 16-bit), and a loss is refused (float into FLAC).
struct EncoderPlan {
    let codec: CodecFormat
    /// FFmpeg's encoder name.
    let encoderName: String
    /// The sample type handed to the encoder (it converts to its own variant).
    let sampleType: SampleType
    let bitsPerRawSample: Int?
    let bitRate: Int?
    /// Bytes one sample takes in the file, for PCM (3 for 24-bit); 0 when not stored as such.
    let storedBytesPerSample: Int
    /// True when the samples are already in the file's byte layout (little-endian PCM).
    let passesThrough: Bool
    /// What changes on the way into the file.
    let conversions: [String]
    /// The sample format the file holds; nil for lossy codecs.
    let storedSampleFormat: SampleFormat?

    init(format: PCMFormat, outputFormat: OutputFormat, source: AudioFileWriter.Input?, path: String) throws {
        codec = outputFormat.resolvedCodec(inputIsLossless: source?.isLossless ?? true)
        let sample = format.sampleFormat
        encoderName = codec.encoder(sample)
        var conversions: [String] = []
        if let stores = codec.stores {
            guard let stored = stores[sample] else {
                throw ReverseAudioError.output(.sampleFormatNotStorable(path: path, codec: codec.name, sampleFormat: sample,
                                                                storable: SampleFormat.allCases.filter { stores[$0] != nil }))
            }
            if stored != sample {
                conversions.append("sample format \(sample) → \(stored): \(codec.name.uppercased()) has no \(sample.validBits)-bit samples (exact)")
            }
            storedSampleFormat = stored
            // 8-bit into FLAC or ALAC goes in as 16-bit (the widening said above).
            sampleType = stored.sampleType
            bitsPerRawSample = stored == .s24 ? 24 : nil
            bitRate = nil
        } else {
            storedSampleFormat = nil
            sampleType = sample.sampleType
            bitsPerRawSample = nil
            let sameCodec = source?.codec == codec.name
            bitRate = outputFormat.bitRate ?? (sameCodec ? source?.bitRate : nil) ?? codec.defaultBitRate(format)
        }
        passesThrough = codec.storesAsInMemory(sample)
        storedBytesPerSample = codec.name == "pcm" ? (sample == .s24 ? 3 : sample.bytesPerSample) : 0
        if let maximum = codec.maximumChannels, format.channelCount > maximum {
            throw ReverseAudioError.output(.tooManyChannels(path: path, codec: codec.name, channels: format.channelCount, maximum: maximum))
        }
        let rates = Encoder.supportedSampleRates(codecName: encoderName)
        if !rates.isEmpty, !rates.contains(format.sampleRate) {
            throw ReverseAudioError.output(.unsupportedSampleRate(path: path, codec: codec.name, sampleRate: format.sampleRate, supported: rates))
        }
        self.conversions = conversions
    }
}
