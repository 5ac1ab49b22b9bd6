import ReverseAudioCore

/// The names of FFmpeg's encoders and muxers the library writes with: the one place where an
/// output's codec is named to FFmpeg.
package enum EncoderChoice {
    /// libavformat's muxer for `container`.
    package static func muxer(for container: OutputFormat.Container) -> String {
        switch container {
        case .wav: return "wav"
        case .aiff: return "aiff"
        case .caf: return "caf"
        case .flac: return "flac"
        case .m4a: return "ipod"
        case .mp3: return "mp3"
        case .aac: return "adts"
        }
    }

    /// The encoder writing `codec` for samples of `sampleFormat` into `container` (PCM in the
    /// container's byte order).
    package static func encoder(for codec: OutputFormat.Codec, sampleFormat: SampleFormat,
                                in container: OutputFormat.Container) -> String {
        switch codec {
        case .pcm: return pcmEncoder(for: sampleFormat, bigEndian: container == .aiff, signedBytes: container == .caf)
        case .flac: return "flac"
        case .alac: return "alac"
        case .aac: return "aac"
        case .mp3: return "libmp3lame"
        }
    }

    /// The PCM encoder storing `sampleFormat`: little-endian unless `bigEndian`; 8-bit unsigned
    /// unless `signedBytes` (CAF has no unsigned 8-bit; its signed 8-bit decodes back to the
    /// same u8 samples).
    package static func pcmEncoder(for sampleFormat: SampleFormat, bigEndian: Bool = false, signedBytes: Bool = false) -> String {
        let order = bigEndian ? "be" : "le"
        switch sampleFormat {
        case .u8: return signedBytes ? "pcm_s8" : "pcm_u8"
        case .s16: return "pcm_s16" + order
        case .s24: return "pcm_s24" + order
        case .s32: return "pcm_s32" + order
        case .f32: return "pcm_f32" + order
        case .f64: return "pcm_f64" + order
        }
    }

    /// True when PCM from `encoder` is stored as it is in memory (little-endian, or 8-bit).
    package static func storesAsInMemory(_ encoder: String, sampleFormat: SampleFormat) -> Bool {
        sampleFormat != .s24 && 1.littleEndian == 1 && (encoder.hasSuffix("le") || encoder == "pcm_u8")
    }

    /// libx264, which writes a reversed video's pictures.
    package static let videoEncoder = "libx264"
}
