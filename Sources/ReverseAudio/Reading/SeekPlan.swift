import FFmpeg

/// How far before a seek target decoding must restart for the target's samples to come out as
/// a continuous decode gives them, per codec (libavcodec 5.1, measured against continuous decodes):
///
/// - PCM, FLAC, ALAC: frames decode on their own; no pre-roll, bit-exact.
/// - MP3: a frame's data may start up to 511 bytes back in earlier frames (the bit reservoir's
///   9-bit `main_data_begin`), and its output overlaps the previous frame's. Restarting where
///   the packets before the target's predecessor hold 511 bytes of payload, plus one packet of
///   margin, covers both at every bit rate (2 frames at 192 kb/s, about 9 for VBR `-q:a 9`).
/// - AAC: one packet of overlap; two are decoded. Noise substitution draws from a random
///   generator, so samples may differ by 1 LSB (s16) from the continuous decode.
/// - Opus: its stated pre-roll, at least 320 ms; Vorbis: two of its longest packets.
struct SeekPlan {
    let codecName: String
    /// For container-timestamp seeking: samples to restart before the target.
    let prerollSamples: Int
    /// True when the demuxer cannot seek exactly (MP3, ADTS AAC), so a packet index is used.
    let needsPacketIndex: Bool
    /// Samples per packet of a fixed-size codec (1152 for MP3), else 1.
    let frameSize: Int

    init(source: AudioSource) {
        let parameters = source.parameters
        codecName = parameters.codecName
        let rate = max(parameters.sampleRate, 1)
        switch parameters.codecName {
        case "aac": prerollSamples = 2 * max(parameters.codecFrameSize, 1024)
        case "opus": prerollSamples = max(parameters.seekPrerollSamples, rate * 320 / 1000)
        case "vorbis": prerollSamples = 2 * 8192
        case "mp3", "mp2", "mp1": prerollSamples = 12 * 1152
        default: prerollSamples = parameters.isLossy ? max(parameters.codecFrameSize, 4096) * 2 : 0
        }
        frameSize = max(source.decoder.frameSize, parameters.codecFrameSize, 1)
        let demuxer = source.demuxer.formatName
        needsPacketIndex = ["mp3", "aac"].contains(demuxer) && parameters.isLossy
    }

    /// The packet to restart decoding from for `target`, in `index`.
    func restartPacket(for target: Int64, in index: PacketIndex) -> Int {
        guard let holding = index.packet(containing: target) else { return 0 }
        let entries = index.entries
        switch codecName {
        case "mp3", "mp2", "mp1":
            // The target's predecessor must decode fully: its data starts up to 511 bytes back.
            var start = max(holding - 1, 0)
            var payload = 0
            while start > 0 && payload < 511 {
                start -= 1
                payload += max(entries[start].size - 36, 1)  // header and side information excluded
            }
            return max(start - 1, 0)
        default:
            return max(holding - 2, 0)
        }
    }
}
