import CFFmpeg

/// Writes one RGB picture as an image file through a libavcodec image encoder and libavformat's
/// image2 muxer.
package enum PictureWriter {
    /// The image encoders a picture can be written with.
    package enum Codec: Sendable {
        /// Lossless PNG, RGB as drawn.
        case png
        /// JPEG through the MJPEG encoder: full-range YUV without chroma subsampling (thin
        /// coloured lines and small text stay sharp), at a fine quantiser.
        case jpeg
    }

    /// The MJPEG encoder's quantiser: 2 is near the finest (1), at a fraction of its size.
    private static let jpegQuantiser: Int32 = 2

    /// Encodes `pixels` (`height` rows of `width` RGB triplets, top row first) into `path`.
    package static func write(_ pixels: [UInt8], width: Int, height: Int, codec: Codec, to path: String) throws(FFmpegError) {
        guard width > 0, height > 0, pixels.count == width * height * 3 else {
            throw FFmpegError.invalidArgument("drawing a \(width)×\(height) picture", path: path)
        }
        let (codecID, format, name) = switch codec {
        case .png: (AV_CODEC_ID_PNG, AV_PIX_FMT_RGB24, "PNG")
        case .jpeg: (AV_CODEC_ID_MJPEG, AV_PIX_FMT_YUVJ444P, "MJPEG")
        }
        guard let encoder = avcodec_find_encoder(codecID) else {
            throw FFmpegError(code: ra_averror_encoder_not_found(), operation: "finding the \(name) encoder", path: path)
        }
        let context = try CodecContext(codec: encoder, path: path)
        context.pointer.pointee.width = Int32(width)
        context.pointer.pointee.height = Int32(height)
        context.pointer.pointee.pix_fmt = format
        context.pointer.pointee.time_base = AVRational(num: 1, den: 1)
        if codec == .jpeg {
            context.pointer.pointee.color_range = AVCOL_RANGE_JPEG
            context.pointer.pointee.flags |= Int32(AV_CODEC_FLAG_QSCALE)
            context.pointer.pointee.global_quality = jpegQuantiser * Int32(FF_QP2LAMBDA)
        }
        try context.open(operation: "opening the \(name) encoder", path: path)

        // The RGB frame is a temporary: at 16384 × 4096 it is 200 MiB, released once converted.
        let frame = format == AV_PIX_FMT_RGB24
            ? try rgbFrame(pixels, width: width, height: height)
            : try converted(rgbFrame(pixels, width: width, height: height), to: PixelFormat(format))
        if codec == .jpeg {
            frame.pointer.pointee.color_range = AVCOL_RANGE_JPEG
            frame.pointer.pointee.quality = context.pointer.pointee.global_quality
        }
        frame.pointer.pointee.pts = 0
        let packet = try Packet()
        try FFmpegError.check(avcodec_send_frame(context.pointer, frame.pointer), "encoding the picture", path: path)
        try FFmpegError.check(avcodec_send_frame(context.pointer, nil), "encoding the picture", path: path)
        try FFmpegError.check(avcodec_receive_packet(context.pointer, packet.pointer), "encoding the picture", path: path)

        let muxer = try Muxer(path: path, formatName: "image2")
        try muxer.addStream(for: context, timeBase: AVRational(num: 1, den: 1))
        // One picture, written to the name as it is (no frame-number pattern).
        try muxer.writeHeader(options: ["update": "1"])
        try muxer.write(packet, stream: 0)
        try muxer.finish()
    }

    /// A frame holding `pixels`, RGB rows top first.
    private static func rgbFrame(_ pixels: [UInt8], width: Int, height: Int) throws(FFmpegError) -> Frame {
        let frame = try Frame()
        try frame.preparePicture(format: PixelFormat(AV_PIX_FMT_RGB24), width: width, height: height)
        let stride = Int(frame.pointer.pointee.linesize.0)
        pixels.withUnsafeBytes { source in
            for row in 0..<height {
                (frame.pointer.pointee.data.0! + row * stride)
                    .update(from: source.baseAddress!.assumingMemoryBound(to: UInt8.self) + row * width * 3, count: width * 3)
            }
        }
        return frame
    }

    /// `frame` converted to `format` by swscale.
    private static func converted(_ frame: Frame, to format: PixelFormat) throws(FFmpegError) -> Frame {
        let output = try Frame()
        try PictureConverter(width: frame.width, height: frame.height, from: frame.pixelFormat, to: format)
            .convert(frame, into: output)
        return output
    }
}
