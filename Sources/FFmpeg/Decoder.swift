import CFFmpeg

/// Owns one `AVCodecContext` opened as the decoder of a demuxer's stream.
package final class Decoder {
    private let codecContext: CodecContext
    var context: UnsafeMutablePointer<AVCodecContext> { codecContext.pointer }
    package let streamIndex: Int
    private let path: String
    /// The parameters the decoder was opened with: the stream's, as the file's open found them.
    private let openedParameters: CodecParameters
    private let timeBase: AVRational

    /// Opens the decoder FFmpeg registers for stream `streamIndex` of `demuxer`.
    /// - Parameter threads: the decoder's own threads; 0 for as many as the codec uses on this
    ///   machine (frame threads for FLAC), 1 for a decoder that is one of several running side by side.
    package convenience init(demuxer: Demuxer, streamIndex: Int, threads: Int = 0) throws(FFmpegError) {
        let stream = demuxer.stream(at: streamIndex)
        try self.init(parameters: CodecParameters(copying: stream.pointee.codecpar, path: demuxer.path),
                      timeBase: stream.pointee.time_base, streamIndex: streamIndex, threads: threads, path: demuxer.path)
    }

    /// A decoder that has decoded nothing, opened as `other` was (from the stream's parameters
    /// as the file's open found them), on `threads` threads.
    package convenience init(openedAs other: Decoder, threads: Int) throws(FFmpegError) {
        try self.init(parameters: other.openedParameters, timeBase: other.timeBase, streamIndex: other.streamIndex,
                      threads: threads, path: other.path)
    }

    private init(parameters: CodecParameters, timeBase: AVRational, streamIndex: Int, threads: Int, path: String) throws(FFmpegError) {
        self.streamIndex = streamIndex
        self.path = path
        openedParameters = parameters
        self.timeBase = timeBase
        guard let codec = avcodec_find_decoder(parameters.pointer.pointee.codec_id) else {
            throw FFmpegError(code: ra_averror_decoder_not_found(), operation: "finding a decoder", path: path)
        }
        codecContext = try CodecContext(codec: codec, path: path)
        let context = codecContext.pointer
        try FFmpegError.check(avcodec_parameters_to_context(context, parameters.pointer), "opening the decoder", path: path)
        // As the ffmpeg CLI does: timestamps in the stream's time base let libavcodec apply
        // the container's gapless trimming (skip samples, discard padding) exactly.
        context.pointee.pkt_timebase = timeBase
        // Also as the CLI does ("threads auto"): codecs with frame threads (FLAC) decode on
        // every core. The output is the same; only the work is spread.
        context.pointee.thread_count = Int32(max(threads, 0))
        try codecContext.open(operation: "opening the decoder", path: path)
    }

    /// The type of the samples the decoder produces, once opened (planar or packed).
    package var sampleType: SampleType? { SampleType(context.pointee.sample_fmt) }

    /// Bits of each sample that carry the signal (24 for 24-bit PCM, FLAC or ALAC); 0 when unknown.
    package var bitsPerRawSample: Int { Int(context.pointee.bits_per_raw_sample) }

    /// Forgets everything buffered, as after a seek (`avcodec_flush_buffers`).
    package func flush() { avcodec_flush_buffers(context) }

    /// Makes the next frame carry the rate a fresh decoder gives the stream's first frame, for
    /// a decoder about to decode that first packet again. libavcodec's MPEG audio decoder labels
    /// each frame with the rate of the frame before it (it takes the frame's buffer before it
    /// stores the rate it read), the stream's first with the container's: a stream whose rate
    /// changes decodes its first frame at the container's rate on a fresh open and at the last
    /// frame's after a flush, unless this resets it.
    package func startAsFresh() { context.pointee.sample_rate = openedParameters.pointer.pointee.sample_rate }

    /// Samples per frame the codec uses once opened (1152 for MP3 layer 3); 0 when it varies.
    package var frameSize: Int { Int(context.pointee.frame_size) }

    /// What happened to a packet offered to the decoder.
    enum SendResult {
        case accepted
        /// The decoder's output must be drained first; offer the same packet again.
        case outputPending
    }

    /// Offers `packet` to the decoder; `nil` starts draining at the end of the stream.
    /// Throws the decoder's error for packets it cannot decode (the caller may skip them).
    func send(_ packet: Packet?) throws(FFmpegError) -> SendResult {
        let result = avcodec_send_packet(context, packet?.pointer)
        if result == ra_averror_eagain() { return .outputPending }
        if result == ra_averror_eof() { return .accepted }  // already draining: nothing more to take
        try FFmpegError.check(result, "decoding a packet", path: path)
        return .accepted
    }

    /// What the decoder produced.
    enum ReceiveResult {
        case frame
        case needsInput
        case endOfStream
    }

    /// Takes the next decoded frame into `frame`.
    func receive(into frame: Frame) throws(FFmpegError) -> ReceiveResult {
        frame.unreference()
        let result = avcodec_receive_frame(context, frame.pointer)
        if result == ra_averror_eagain() { return .needsInput }
        if result == ra_averror_eof() { return .endOfStream }
        try FFmpegError.check(result, "decoding a frame", path: path)
        return .frame
    }
}
