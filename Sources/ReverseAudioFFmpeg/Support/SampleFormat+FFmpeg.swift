import FFmpeg
import ReverseAudioCore

extension SampleFormat {
    /// The interleaved FFmpeg sample type that holds this format (24-bit samples live in 32 bits).
    package var sampleType: SampleType {
        switch self {
        case .u8: return .u8
        case .s16: return .s16
        case .s24, .s32: return .s32
        case .f32: return .float
        case .f64: return .double
        }
    }

    /// The format a decoder produces: its sample type, with 32-bit integers that carry 24 bits
    /// or fewer as ``s24``.
    package init(decodedBy decoder: Decoder) {
        switch decoder.sampleType {
        case .u8: self = .u8
        case .s16: self = .s16
        case .s32, .s64: self = decoder.bitsPerRawSample > 0 && decoder.bitsPerRawSample <= 24 ? .s24 : .s32
        case .double: self = .f64
        case .float, nil: self = .f32
        }
    }
}
