import FFmpeg

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

    init(format: PCMFormat, outputFormat: OutputFormat, source: AudioFileWriter.SourceDescription?, path: String) throws {
        let container = outputFormat.container
        codec = outputFormat.resolvedCodec(inputIsLossless: source?.isLossless ?? true)
        let sample = format.sampleFormat
        var conversions: [String] = []
        var bits: Int?
        var bitRate: Int?
        var stored = sample == .s24 ? 3 : sample.bytesPerSample
        var passes = false
        switch codec {
        case .pcm:
            encoderName = EncoderPlan.pcmEncoder(for: sample, in: container)
            // Little-endian PCM (and 8-bit WAV/AIFF) is stored as it is in memory.
            passes = encoderName.hasSuffix("le") || encoderName == "pcm_u8"
            passes = passes && sample != .s24 && 1.littleEndian == 1
        case .flac, .alac:
            let name = codec.rawValue
            if sample.isFloat {
                throw ReverseAudioError.invalidOption(
                    "\(path): \(name.uppercased()) holds integer samples and the audio is \(sample) float; choose --sample-format s16 or s24, or a WAV, AIFF or CAF output")
            }
            if sample == .s32 {
                throw ReverseAudioError.invalidOption(
                    "\(path): \(name.uppercased()) in this FFmpeg holds at most 24 bits and the audio is s32; choose --sample-format s24, or a WAV, AIFF or CAF output")
            }
            if sample == .u8 {
                conversions.append("sample format u8 → s16: \(name.uppercased()) has no 8-bit samples (exact)")
            }
            encoderName = name
            if sample == .s24 { bits = 24 }
            stored = 0
        case .aac, .mp3:
            encoderName = codec == .aac ? "aac" : "libmp3lame"
            let target = codec
            let sameCodec = source.map { $0.codecName == target.rawValue } ?? false
            bitRate = outputFormat.bitRate ?? (sameCodec ? source?.bitRate : nil) ?? EncoderPlan.defaultBitRate(target, format)
            stored = 0
        }
        if codec == .mp3 && format.channelCount > 2 {
            throw ReverseAudioError.invalidOption(
                "\(path): MP3 holds at most 2 channels and the audio has \(format.channelCount); add --channels mix (or a channel), or choose .m4a or .flac")
        }
        let rates = Encoder.supportedSampleRates(codecName: encoderName)
        if !rates.isEmpty, !rates.contains(format.sampleRate) {
            let near = rates.min { abs($0 - format.sampleRate) < abs($1 - format.sampleRate) } ?? 44100
            throw ReverseAudioError.invalidOption(
                "\(path): \(codec.rawValue) cannot hold \(format.sampleRate) Hz audio; add --sample-rate \(near)")
        }
        // 8-bit into FLAC or ALAC goes in as 16-bit (the widening said above).
        sampleType = sample == .u8 && codec != .pcm ? .s16 : PCMDecoder.sampleType(of: sample)
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

    /// The PCM encoder that stores `sample` in `container`'s byte order.
    private static func pcmEncoder(for sample: SampleFormat, in container: OutputFormat.Container) -> String {
        let order = container == .aiff ? "be" : "le"
        switch sample {
        // CAF has no unsigned 8-bit; its signed 8-bit decodes back to the same u8 samples.
        case .u8: return container == .caf ? "pcm_s8" : "pcm_u8"
        case .s16: return "pcm_s16" + order
        case .s24: return "pcm_s24" + order
        case .s32: return "pcm_s32" + order
        case .f32: return "pcm_f32" + order
        case .f64: return "pcm_f64" + order
        }
    }

    /// 192 kb/s for stereo at CD rates and above; less where MPEG layer 3 allows no more.
    private static func defaultBitRate(_ codec: OutputFormat.Codec, _ format: PCMFormat) -> Int {
        let perChannel = format.sampleRate >= 32000 ? 96_000 : (format.sampleRate >= 16000 ? 64_000 : 32_000)
        let total = perChannel * min(format.channelCount, 2)
        return codec == .mp3 ? min(total, format.sampleRate >= 32000 ? 320_000 : 160_000) : total * max(1, format.channelCount / 2)
    }
}
