import CFFmpeg

extension Muxer {
    /// Adds a stream carrying `encoder`'s packets, stating the pixel aspect ratio, the frame rate
    /// and the display matrix (rotation) the container should carry; returns its index.
    @discardableResult
    package func addStream(for encoder: VideoEncoder, frameRate: Rational?, displayMatrix: [Int32]?) throws(FFmpegError) -> Int {
        let index = try addStream(for: encoder.codecContext, timeBase: encoder.context.pointee.time_base)
        let stream = context.pointee.streams[index]!
        stream.pointee.sample_aspect_ratio = encoder.context.pointee.sample_aspect_ratio
        if let frameRate {
            stream.pointee.avg_frame_rate = frameRate.av
            stream.pointee.r_frame_rate = frameRate.av
        }
        if var matrix = displayMatrix, matrix.count == 9 {
            try FFmpegError.check(ra_stream_set_display_matrix(stream, &matrix), "stating the picture's rotation", path: path)
        }
        return index
    }

    /// True when libavformat's `formatName` muxer can store `demuxer`'s stream `index` as it is
    /// (a packet copy), by the container's normal rules.
    package static func canStore(copyOf demuxer: Demuxer, stream index: Int, formatName: String) -> Bool {
        guard let format = av_guess_format(formatName, nil, nil) else { return false }
        return avformat_query_codec(format, demuxer.stream(at: index).pointee.codecpar.pointee.codec_id, FF_COMPLIANCE_NORMAL) == 1
    }
}
