import CFFmpeg

/// Owns one `AVCodecContext` opened as a video encoder (H.264 through libx264).
///
/// Frames go in with ``send(_:)`` with timestamps in ``timeBase``; packets come out of
/// ``receive(into:)`` in decoding order, their timestamps in the same time base.
package final class VideoEncoder {
    let codecContext: CodecContext
    var context: UnsafeMutablePointer<AVCodecContext> { codecContext.pointer }
    private let path: String

    /// How hard the encoder compresses.
    package enum Quality: Sendable, Equatable {
        /// x264's constant rate factor (0 best … 51 worst; 18 is visually transparent).
        case crf(Double)
        /// x264 at quantiser 0: 8-bit 4:2:0 pictures decode exactly as they went in.
        case lossless
    }

    /// What the encoder is asked for.
    package struct Settings {
        /// FFmpeg's encoder name ("libx264").
        package var codecName: String
        package var width: Int
        package var height: Int
        package var pixelFormat: PixelFormat
        /// The unit of the frames' timestamps (the input stream's, so durations carry over exactly).
        package var timeBase: Rational
        /// The nominal frame rate, for rate control and the container; nil when unknown.
        package var frameRate: Rational?
        package var quality: Quality
        /// x264's preset ("medium").
        package var preset: String

        package init(codecName: String, width: Int, height: Int, pixelFormat: PixelFormat, timeBase: Rational,
                     frameRate: Rational?, quality: Quality, preset: String) {
            self.codecName = codecName
            self.width = width
            self.height = height
            self.pixelFormat = pixelFormat
            self.timeBase = timeBase
            self.frameRate = frameRate
            self.quality = quality
            self.preset = preset
        }
    }

    /// The pixel formats `codecName` takes, in its order; empty when unknown.
    package static func supportedPixelFormats(codecName: String) -> [PixelFormat] {
        guard let codec = avcodec_find_encoder_by_name(codecName), var formats = codec.pointee.pix_fmts else { return [] }
        var result: [PixelFormat] = []
        while formats.pointee != AV_PIX_FMT_NONE {
            result.append(PixelFormat(formats.pointee))
            formats += 1
        }
        return result
    }

    /// True when this FFmpeg build has an encoder called `codecName`.
    package static func exists(codecName: String) -> Bool {
        avcodec_find_encoder_by_name(codecName) != nil
    }

    /// Opens the encoder.
    /// - Parameters:
    ///   - model: a frame whose colour description and pixel aspect ratio the stream states.
    ///   - globalHeader: put the codec's setup in extradata (MP4, MOV and Matroska want it).
    package init(_ settings: Settings, model: Frame, globalHeader: Bool, path: String) throws(FFmpegError) {
        self.path = path
        guard let codec = avcodec_find_encoder_by_name(settings.codecName) else {
            throw FFmpegError(code: ra_averror_encoder_not_found(), operation: "finding the \(settings.codecName) encoder", path: path)
        }
        codecContext = try CodecContext(codec: codec, path: path)
        let context = codecContext.pointer
        context.pointee.width = Int32(settings.width)
        context.pointee.height = Int32(settings.height)
        context.pointee.pix_fmt = settings.pixelFormat.raw
        context.pointee.time_base = settings.timeBase.av
        if let rate = settings.frameRate { context.pointee.framerate = rate.av }
        let source = model.pointer.pointee
        let aspect = Rational(source.sample_aspect_ratio)
        context.pointee.sample_aspect_ratio = aspect.isValid ? aspect.av : AVRational(num: 0, den: 1)
        context.pointee.color_range = source.color_range
        context.pointee.color_primaries = source.color_primaries
        context.pointee.color_trc = source.color_trc
        context.pointee.colorspace = source.colorspace
        context.pointee.chroma_sample_location = source.chroma_location
        context.pointee.thread_count = 0
        if globalHeader { context.pointee.flags |= Int32(ra_codec_flag_global_header()) }
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        av_dict_set(&options, "preset", settings.preset, 0)
        switch settings.quality {
        case .crf(let value): av_dict_set(&options, "crf", String(value), 0)
        case .lossless: av_dict_set(&options, "qp", "0", 0)
        }
        try FFmpegError.check(avcodec_open2(context, codec, &options),
                              "opening the \(settings.codecName) encoder (\(settings.width)×\(settings.height) \(settings.pixelFormat.name))",
                              path: path)
    }

    /// The unit of timestamps going in and coming out.
    package var timeBase: Rational { Rational(context.pointee.time_base) }

    /// Hands over `frame`; nil starts draining at the end of the video.
    package func send(_ frame: Frame?) throws(FFmpegError) {
        try FFmpegError.check(avcodec_send_frame(context, frame?.pointer), "encoding a picture", path: path)
    }

    /// Takes the next packet; false when the encoder needs more input or has finished.
    package func receive(into packet: Packet) throws(FFmpegError) -> Bool {
        packet.unreference()
        let result = avcodec_receive_packet(context, packet.pointer)
        if result == ra_averror_eagain() || result == ra_averror_eof() { return false }
        try FFmpegError.check(result, "encoding a picture", path: path)
        return true
    }
}
