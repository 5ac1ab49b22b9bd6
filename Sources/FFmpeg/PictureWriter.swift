import CFFmpeg

/// Writes one RGB picture as a PNG file through libavcodec's PNG encoder and libavformat's
/// image2 muxer.
package enum PictureWriter {
    /// Encodes `pixels` (`height` rows of `width` RGB triplets, top row first) into `path`.
    package static func writePNG(_ pixels: [UInt8], width: Int, height: Int, to path: String) throws(FFmpegError) {
        guard width > 0, height > 0, pixels.count == width * height * 3 else {
            throw FFmpegError.invalidArgument("drawing a \(width)×\(height) picture", path: path)
        }
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_PNG) else {
            throw FFmpegError(code: ra_averror_encoder_not_found(), operation: "finding the PNG encoder", path: path)
        }
        let context = try CodecContext(codec: codec, path: path)
        context.pointer.pointee.width = Int32(width)
        context.pointer.pointee.height = Int32(height)
        context.pointer.pointee.pix_fmt = AV_PIX_FMT_RGB24
        context.pointer.pointee.time_base = AVRational(num: 1, den: 1)
        try context.open(operation: "opening the PNG encoder", path: path)

        let frame = try Frame()
        frame.pointer.pointee.width = Int32(width)
        frame.pointer.pointee.height = Int32(height)
        frame.pointer.pointee.format = AV_PIX_FMT_RGB24.rawValue
        frame.pointer.pointee.pts = 0
        try FFmpegError.check(av_frame_get_buffer(frame.pointer, 0), "allocating the picture", path: path)
        let stride = Int(frame.pointer.pointee.linesize.0)
        pixels.withUnsafeBytes { source in
            for row in 0..<height {
                (frame.pointer.pointee.data.0! + row * stride)
                    .update(from: source.baseAddress!.assumingMemoryBound(to: UInt8.self) + row * width * 3, count: width * 3)
            }
        }
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
}
