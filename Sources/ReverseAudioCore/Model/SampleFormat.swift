/// How each sample of interleaved PCM is stored.
public enum SampleFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Unsigned 8-bit (0…255, silence at 128), as in 8-bit WAV.
    case u8
    /// Signed 16-bit: the seed's format and the default of `convert` and `reverse`.
    case s16
    /// Signed 24-bit precision held in 32-bit samples (the low 8 bits zero), as FFmpeg decodes
    /// 24-bit PCM, FLAC and ALAC.
    case s24
    /// Signed 32-bit.
    case s32
    /// 32-bit float, full scale ±1.0 (what MP3 and AAC decoders produce).
    case f32
    /// 64-bit float.
    case f64

    /// Bytes each sample takes in memory (an `s24` sample takes 4).
    public var bytesPerSample: Int {
        switch self {
        case .u8: return 1
        case .s16: return 2
        case .s24, .s32, .f32: return 4
        case .f64: return 8
        }
    }

    /// Bits that carry the signal.
    package var validBits: Int {
        switch self {
        case .u8: return 8
        case .s16: return 16
        case .s24: return 24
        case .s32, .f32: return 32
        case .f64: return 64
        }
    }

    /// True for the floating-point formats.
    package var isFloat: Bool { self == .f32 || self == .f64 }

    /// The name used on the command line and by `ffprobe` where they agree ("s16", "f32").
    public var description: String { rawValue }
}
