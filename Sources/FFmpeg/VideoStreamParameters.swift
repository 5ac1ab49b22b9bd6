import CFFmpeg

/// What the container and FFmpeg's probe say about one video stream, copied out of C memory.
package struct VideoStreamParameters: Sendable {
    /// The stream's index in the file.
    package let index: Int
    /// FFmpeg's codec name ("h264", "hevc", "mpeg4").
    package let codecName: String
    package let width: Int
    package let height: Int
    /// The unit of the stream's timestamps.
    package let timeBase: Rational
    /// The average frame rate, when the container or probe knows it.
    package let averageFrameRate: Rational?
    /// The lowest rate that represents every timestamp (FFmpeg's `r_frame_rate`).
    package let realFrameRate: Rational?
    /// The shape of one pixel (width : height), when stated.
    package let sampleAspectRatio: Rational?
    /// The 3×3 display matrix (rotation, flip) the container states, row-major, as FFmpeg keeps it.
    package let displayMatrix: [Int32]?
    /// The stream's first timestamp, in `timeBase`.
    package let startTimestamp: Int64?
    /// The stream's duration as the container states it, in seconds.
    package let durationSeconds: Double?
    /// Frames the container says the stream holds (MP4 and MOV state it), when stated.
    package let statedFrameCount: Int?

    init(stream: UnsafeMutablePointer<AVStream>, format: UnsafeMutablePointer<AVFormatContext>) {
        let parameters = stream.pointee.codecpar.pointee
        index = Int(stream.pointee.index)
        codecName = String(cString: avcodec_get_name(parameters.codec_id))
        width = Int(parameters.width)
        height = Int(parameters.height)
        timeBase = Rational(stream.pointee.time_base)
        let average = Rational(stream.pointee.avg_frame_rate)
        averageFrameRate = average.isValid ? average : nil
        let real = Rational(stream.pointee.r_frame_rate)
        realFrameRate = real.isValid ? real : nil
        let aspect = Rational(av_guess_sample_aspect_ratio(format, stream, nil))
        sampleAspectRatio = aspect.isValid ? aspect : nil
        var matrix = [Int32](repeating: 0, count: 9)
        displayMatrix = ra_stream_display_matrix(stream, &matrix) != 0 ? matrix : nil
        statedFrameCount = stream.pointee.nb_frames > 0 ? Int(stream.pointee.nb_frames) : nil
        startTimestamp = stream.pointee.start_time == ra_av_nopts_value() ? nil : stream.pointee.start_time
        if stream.pointee.duration != ra_av_nopts_value(), stream.pointee.duration > 0 {
            durationSeconds = Double(stream.pointee.duration) * timeBase.doubleValue
        } else {
            durationSeconds = nil
        }
    }

    /// The rotation the display matrix applies, in degrees counter-clockwise (as ffprobe prints
    /// it); nil without a matrix.
    package var rotationDegrees: Double? {
        guard var matrix = displayMatrix else { return nil }
        let degrees = av_display_rotation_get(&matrix)
        return degrees.isNaN ? nil : degrees
    }
}
