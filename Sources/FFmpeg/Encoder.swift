import CFFmpeg

/// Owns one `AVCodecContext` opened as an audio encoder.
///
/// Frames go in with ``send(_:)``; packets come out of ``receive(into:)``. Timestamps are in
/// samples (the time base is 1/sample rate).
package final class Encoder {
    let codecContext: CodecContext
    var context: UnsafeMutablePointer<AVCodecContext> { codecContext.pointer }
    private let path: String

    /// What an encoder is asked for.
    package struct Settings {
        /// FFmpeg's encoder name ("flac", "alac", "aac", "libmp3lame", "pcm_s24le").
        package var codecName: String
        /// The sample type to feed it; the encoder's own packed or planar variant is used.
        package var sampleType: SampleType
        package var sampleRate: Int
        package var channelLayout: ChannelLayout
        /// Bits per second, for lossy codecs.
        package var bitRate: Int?
        /// A variable bit rate's quality instead (`lame -V`'s scale: 0 best), for codecs that have one.
        package var quality: Double?
        /// Valid bits in each sample (24 for 24-bit FLAC/ALAC held in 32-bit samples).
        package var bitsPerRawSample: Int?

        package init(codecName: String, sampleType: SampleType, sampleRate: Int, channelLayout: ChannelLayout,
                     bitRate: Int? = nil, bitsPerRawSample: Int? = nil) {
            self.codecName = codecName
            self.sampleType = sampleType
            self.sampleRate = sampleRate
            self.channelLayout = channelLayout
            self.bitRate = bitRate
            self.bitsPerRawSample = bitsPerRawSample
        }
    }

    /// The sample types `codecName` accepts, in its order of preference; empty when unknown.
    package static func supportedSampleTypes(codecName: String) -> [SampleType] {
        guard let codec = avcodec_find_encoder_by_name(codecName), var formats = codec.pointee.sample_fmts else { return [] }
        var types: [SampleType] = []
        while formats.pointee != AV_SAMPLE_FMT_NONE {
            if let type = SampleType(formats.pointee), !types.contains(type) { types.append(type) }
            formats += 1
        }
        return types
    }

    /// The sample rates `codecName` accepts; empty when it takes any.
    package static func supportedSampleRates(codecName: String) -> [Int] {
        guard let codec = avcodec_find_encoder_by_name(codecName), var rates = codec.pointee.supported_samplerates else { return [] }
        var result: [Int] = []
        while rates.pointee != 0 {
            result.append(Int(rates.pointee))
            rates += 1
        }
        return result
    }

    /// True when this FFmpeg build has an encoder called `codecName`.
    package static func exists(codecName: String) -> Bool {
        avcodec_find_encoder_by_name(codecName) != nil
    }

    /// Opens the encoder.
    /// - Parameters:
    ///   - globalHeader: put the codec's setup in extradata (MP4 and CAF need it).
    ///   - options: the encoder's private options (`["compression_level": "0"]`).
    package init(_ settings: Settings, globalHeader: Bool, path: String, options: [String: String] = [:]) throws(FFmpegError) {
        self.path = path
        guard let codec = avcodec_find_encoder_by_name(settings.codecName) else {
            throw FFmpegError(code: ra_averror_encoder_not_found(), operation: "finding the \(settings.codecName) encoder", path: path)
        }
        codecContext = try CodecContext(codec: codec, path: path)
        let context = codecContext.pointer
        context.pointee.sample_fmt = Encoder.format(of: settings.sampleType, for: codec)
        context.pointee.sample_rate = Int32(settings.sampleRate)
        context.pointee.time_base = AVRational(num: 1, den: Int32(settings.sampleRate))
        if let bitRate = settings.bitRate { context.pointee.bit_rate = Int64(bitRate) }
        if let quality = settings.quality {
            context.pointee.flags |= Int32(AV_CODEC_FLAG_QSCALE)
            context.pointee.global_quality = Int32((quality * Double(FF_QP2LAMBDA)).rounded())
        }
        if let bits = settings.bitsPerRawSample { context.pointee.bits_per_raw_sample = Int32(bits) }
        if globalHeader { context.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER) }
        var layout = Encoder.layout(settings.channelLayout, for: codec).layout
        try FFmpegError.check(av_channel_layout_copy(&context.pointee.ch_layout, &layout), "setting the channel layout", path: path)
        try codecContext.open(operation: "opening the \(settings.codecName) encoder", path: path, options: options)
    }

    /// `layout`, or, when the codec lists the layouts it takes and this is not one of them, the
    /// first listed layout with as many channels: the channels keep their order and samples
    /// (ALAC takes "5.1" but not "5.1(side)"), only their labels change.
    private static func layout(_ layout: ChannelLayout, for codec: UnsafePointer<AVCodec>) -> ChannelLayout {
        guard var candidates = codec.pointee.ch_layouts else { return layout }
        var sameCount: ChannelLayout?
        while candidates.pointee.nb_channels != 0 {
            let candidate = ChannelLayout(copying: candidates.pointee)
            if candidate.isSame(as: layout) { return layout }
            if sameCount == nil && candidate.channelCount == layout.channelCount { sameCount = candidate }
            candidates += 1
        }
        return sameCount ?? layout
    }

    /// The encoder's variant of `type`: packed when it takes packed samples, else planar.
    private static func format(of type: SampleType, for codec: UnsafePointer<AVCodec>) -> AVSampleFormat {
        guard var formats = codec.pointee.sample_fmts else { return type.packed }
        var first = AV_SAMPLE_FMT_NONE
        while formats.pointee != AV_SAMPLE_FMT_NONE {
            if formats.pointee == type.packed || formats.pointee == type.planar { return formats.pointee }
            if first == AV_SAMPLE_FMT_NONE { first = formats.pointee }
            formats += 1
        }
        return first
    }

    /// Turns the encoder's own warnings into verbose messages: for an encoder used for a few
    /// frames out of a longer stream (a fade's), whose queue of samples never matches its output
    /// at the end, and says so at warning level (libmp3lame's "frames left in the queue").
    package func demoteWarnings() {
        context.pointee.log_level_offset = AV_LOG_VERBOSE - AV_LOG_WARNING
    }

    /// Samples per frame the encoder needs; 0 when any count will do (PCM).
    package var frameSize: Int {
        (context.pointee.codec.pointee.capabilities & Int32(AV_CODEC_CAP_VARIABLE_FRAME_SIZE)) != 0
            ? 0 : Int(context.pointee.frame_size)
    }

    /// True when the last frame may be shorter than ``frameSize``.
    package var acceptsShortLastFrame: Bool {
        (context.pointee.codec.pointee.capabilities & Int32(AV_CODEC_CAP_SMALL_LAST_FRAME | AV_CODEC_CAP_VARIABLE_FRAME_SIZE)) != 0
    }

    /// True for libmp3lame (whose last packet's end padding is restated: see ``EncodingStream``).
    var isLAME: Bool { context.pointee.codec_id == AV_CODEC_ID_MP3 }

    /// True for FFmpeg's ALAC encoder (which needs care with a very short last frame).
    var isALAC: Bool { context.pointee.codec_id == AV_CODEC_ID_ALAC }

    /// Samples of priming the encoder puts before the audio (1024 for AAC, 0 for lossless).
    package var initialPadding: Int { Int(context.pointee.initial_padding) }

    /// The format frames must be in.
    var frameFormat: AudioFormat {
        AudioFormat(sampleFormat: context.pointee.sample_fmt, sampleRate: context.pointee.sample_rate,
                    channelLayout: ChannelLayout(copying: context.pointee.ch_layout))
    }

    var timeBase: AVRational { context.pointee.time_base }

    /// Hands over `frame`; nil starts draining at the end of the audio.
    package func send(_ frame: Frame?) throws(FFmpegError) {
        try FFmpegError.check(avcodec_send_frame(context, frame?.pointer), "encoding samples", path: path)
    }

    /// Takes the next packet; false when the encoder needs more input or has finished.
    package func receive(into packet: Packet) throws(FFmpegError) -> Bool {
        packet.unreference()
        let result = avcodec_receive_packet(context, packet.pointer)
        if result == ra_averror_eagain() || result == ra_averror_eof() { return false }
        try FFmpegError.check(result, "encoding samples", path: path)
        return true
    }
}
