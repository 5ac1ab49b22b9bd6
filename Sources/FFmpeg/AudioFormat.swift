import CFFmpeg

/// Sample format, rate and channel layout of a stream of decoded frames.
struct AudioFormat {
    var sampleFormat: AVSampleFormat
    var sampleRate: Int32
    var channelLayout: ChannelLayout

    func isSame(as other: AudioFormat) -> Bool {
        sampleFormat == other.sampleFormat && sampleRate == other.sampleRate
            && channelLayout.isSame(as: other.channelLayout)
    }

    /// The name FFmpeg uses for a sample format ("s16", "fltp"), or nil for none.
    static func name(of format: AVSampleFormat) -> String? {
        guard let name = av_get_sample_fmt_name(format) else { return nil }
        return String(cString: name)
    }
}
