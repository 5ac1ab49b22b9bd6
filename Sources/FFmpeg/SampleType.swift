import CFFmpeg

/// The numeric type of one sample, as FFmpeg stores it (without the planar/packed distinction).
package enum SampleType: String, Sendable, CaseIterable {
    case u8, s16, s32, s64, float, double

    /// The interleaved (packed) FFmpeg format of this type.
    var packed: AVSampleFormat {
        switch self {
        case .u8: return AV_SAMPLE_FMT_U8
        case .s16: return AV_SAMPLE_FMT_S16
        case .s32: return AV_SAMPLE_FMT_S32
        case .s64: return AV_SAMPLE_FMT_S64
        case .float: return AV_SAMPLE_FMT_FLT
        case .double: return AV_SAMPLE_FMT_DBL
        }
    }

    /// The planar FFmpeg format of this type.
    var planar: AVSampleFormat { av_get_planar_sample_fmt(packed) }

    /// The type of an FFmpeg sample format, packed or planar; nil for none.
    init?(_ format: AVSampleFormat) {
        let packed = av_get_packed_sample_fmt(format)
        guard let type = SampleType.allCases.first(where: { $0.packed == packed }) else { return nil }
        self = type
    }

    /// Bytes per sample.
    package var byteCount: Int { Int(av_get_bytes_per_sample(packed)) }
}
