import CFFmpeg

/// What the container and FFmpeg's probe say about one audio stream, copied out of C memory.
package struct AudioStreamParameters: Sendable, Equatable {
    /// FFmpeg's codec name ("mp3", "aac", "pcm_s16le", "flac", "alac").
    package let codecName: String
    /// FFmpeg's descriptive codec name ("MP3 (MPEG audio layer 3)").
    package let codecLongName: String
    package let sampleRate: Int
    package let channelCount: Int
    /// FFmpeg's layout name ("mono", "stereo", "5.1"); nil when the file gives only a count.
    package let channelLayoutName: String?
    /// The decoder's sample format ("s16", "s32", "fltp"), when known.
    package let sampleFormatName: String?
    /// Bits per sample as stored (e.g. 24 for 24-bit PCM or FLAC), when meaningful.
    package let bitsPerSample: Int?
    /// The stream's bit rate in bits per second, when known.
    package let bitRate: Int?
    /// The stream's duration as the container states it, in samples at `sampleRate`.
    package let statedDurationSamples: Int64?
    /// Samples per packet the codec nominally uses (1152 for MP3, 1024 for AAC); 0 if variable.
    package let codecFrameSize: Int
    /// What the library needs to know about the codec in this container.
    package let traits: CodecTraits
    /// True for lossy codecs (MP3, AAC...): their decoders emit whole frames of `codecFrameSize`.
    package var isLossy: Bool { traits.isLossy }
    /// Bytes of one frame of every channel, for PCM (0 when not stated).
    package let blockAlign: Int
    /// Samples a decoder needs before a seek point to converge, as the container states it
    /// (only Opus states one); 0 when not stated.
    package let seekPrerollSamples: Int
    /// The timestamp of the stream's first output sample, in samples (the demuxer's start time:
    /// the first packet's timestamp plus the samples its decoder drops); nil when not stated.
    package let startSamples: Int64?
    /// The same in the stream's time base: where a decode from the start begins.
    package let startTimestamp: Int64?
    /// FLAC: the largest frame in bytes, as STREAMINFO states it (the encoder writes it once it
    /// has seen every frame); nil when unknown (0 there) or not FLAC.
    package let flacMaxFrameBytes: Int?
    /// The stream's time base (the unit of packet timestamps and durations) in seconds.
    package let timeBaseNumerator: Int32
    package let timeBaseDenominator: Int32

    init(stream: UnsafeMutablePointer<AVStream>, containerName: String) {
        let parameters = stream.pointee.codecpar.pointee
        let codecID = parameters.codec_id
        codecName = String(cString: avcodec_get_name(codecID))
        let descriptor = avcodec_descriptor_get(codecID)
        codecLongName = descriptor?.pointee.long_name.map { String(cString: $0) } ?? codecName
        traits = CodecTraits(stream: stream, containerName: containerName)
        let isLossy = traits.isLossy
        blockAlign = Int(max(parameters.block_align, 0))
        sampleRate = Int(parameters.sample_rate)
        channelCount = Int(parameters.ch_layout.nb_channels)
        let layout = ChannelLayout(copying: parameters.ch_layout)
        channelLayoutName = layout.isSpecified ? layout.name : nil
        sampleFormatName = AudioFormat.name(of: AVSampleFormat(rawValue: parameters.format))
        // A lossy codec's "bits per sample" is only the container's nominal 16: not meaningful.
        if parameters.bits_per_raw_sample > 0 {
            bitsPerSample = Int(parameters.bits_per_raw_sample)
        } else if parameters.bits_per_coded_sample > 0, !isLossy {
            bitsPerSample = Int(parameters.bits_per_coded_sample)
        } else {
            bitsPerSample = nil
        }
        bitRate = parameters.bit_rate > 0 ? Int(parameters.bit_rate) : nil
        codecFrameSize = Int(parameters.frame_size)
        seekPrerollSamples = Int(parameters.seek_preroll)
        flacMaxFrameBytes = codecID == AV_CODEC_ID_FLAC ? Self.maxFrameBytes(streamInfo: parameters) : nil
        timeBaseNumerator = stream.pointee.time_base.num
        timeBaseDenominator = stream.pointee.time_base.den
        if stream.pointee.start_time != ra_av_nopts_value(), sampleRate > 0 {
            startTimestamp = stream.pointee.start_time
            startSamples = av_rescale_q(stream.pointee.start_time, stream.pointee.time_base, AVRational(num: 1, den: Int32(sampleRate)))
        } else {
            startTimestamp = nil
            startSamples = nil
        }
        if stream.pointee.duration != ra_av_nopts_value(), stream.pointee.duration >= 0, sampleRate > 0 {
            statedDurationSamples = av_rescale_q(
                stream.pointee.duration, stream.pointee.time_base, AVRational(num: 1, den: Int32(sampleRate)))
        } else {
            statedDurationSamples = nil
        }
    }

    /// True when a timestamp can name every sample: one unit of the time base is at most one
    /// sample. Matroska's milliseconds cannot (a 20 ms Opus packet is 960 samples, but a
    /// 2.9 ms Vorbis one is not a whole number of them). Nor can Vorbis's in Ogg, in practice:
    /// FFmpeg 5.1 stamps its packets from the pages' granule positions, which after a seek
    /// name other samples than the decoder gives (ranges came out thousands of samples off),
    /// and its last packet's duration can be negative. Such streams are counted from the start.
    package var timestampsResolveSamples: Bool {
        traits.family != .vorbis
            && timeBaseNumerator > 0 && Int64(timeBaseNumerator) * Int64(sampleRate) <= Int64(timeBaseDenominator)
    }

    /// Converts samples at `rate` to this stream's time base.
    package func timeBaseUnits(fromSamples samples: Int64, sampleRate rate: Int) -> Int64 {
        av_rescale_q(samples, AVRational(num: 1, den: Int32(rate)),
                     AVRational(num: timeBaseNumerator, den: timeBaseDenominator))
    }

    /// Converts a duration in this stream's time base to samples at `sampleRate`.
    package func samples(fromTimeBaseUnits units: Int64, sampleRate rate: Int) -> Int64 {
        av_rescale_q(units, AVRational(num: timeBaseNumerator, den: timeBaseDenominator),
                     AVRational(num: 1, den: Int32(rate)))
    }

    /// STREAMINFO's maximum frame size (bytes 7–9 of the 34-byte block, big-endian; FLAC's own
    /// format, which FFmpeg keeps as the stream's extradata, with the `fLaC` marker and block
    /// header before it in some containers); nil when it says 0 (unknown).
    private static func maxFrameBytes(streamInfo parameters: AVCodecParameters) -> Int? {
        guard let data = parameters.extradata else { return nil }
        let size = Int(parameters.extradata_size)
        let marked = size >= 42 && data[0] == 0x66 && data[1] == 0x4C && data[2] == 0x61 && data[3] == 0x43
        let start = marked ? 8 : 0
        guard size >= start + 34 else { return nil }
        let bytes = Int(data[start + 7]) << 16 | Int(data[start + 8]) << 8 | Int(data[start + 9])
        return bytes > 0 ? bytes : nil
    }
}
