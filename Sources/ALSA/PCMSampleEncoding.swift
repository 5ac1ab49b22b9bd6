#if os(Linux)
import CALSA

/// The interleaved sample encodings a playback PCM is opened with (little-endian, as
/// libavcodec's packed formats are on the machines ALSA runs on).
package enum PCMSampleEncoding: Sendable {
    /// Unsigned 8-bit.
    case u8
    /// Signed 16-bit.
    case s16
    /// Signed 32-bit (also 24-bit samples in the top bits of 32).
    case s32
    /// 32-bit float.
    case float
    /// 64-bit float.
    case double

    var alsaFormat: snd_pcm_format_t {
        switch self {
        case .u8: return SND_PCM_FORMAT_U8
        case .s16: return SND_PCM_FORMAT_S16_LE
        case .s32: return SND_PCM_FORMAT_S32_LE
        case .float: return SND_PCM_FORMAT_FLOAT_LE
        case .double: return SND_PCM_FORMAT_FLOAT64_LE
        }
    }
}
#endif
