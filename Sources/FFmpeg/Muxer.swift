import CFFmpeg

/// Owns one output `AVFormatContext` and its `AVIOContext`: a file written by one of
/// libavformat's muxers (we use "wav"), with a single 16-bit PCM audio stream.
///
/// Every sample reaches the file through `av_write_frame`; the muxer writes the header and, in
/// `finish()`, patches the sizes. ``seek(toByte:)`` lets a caller place packets out of order
/// in a seekable file (used to write a reversed stream at mirrored positions).
public final class Muxer {
    private let context: UnsafeMutablePointer<AVFormatContext>
    private let packet: Packet
    private let path: String
    private var isOpen = false
    private var headerWritten = false
    private var nextTimestamp: Int64 = 0
    private let bytesPerFrame: Int

    /// Creates `path` (truncating it) and prepares a `format` file with one stream of interleaved
    /// signed 16-bit little-endian samples.
    public init(path: String, format: String = "wav", sampleRate: Int,
                channelLayout: ChannelLayout) throws(FFmpegError) {
        self.path = path
        packet = try Packet()
        var allocated: UnsafeMutablePointer<AVFormatContext>?
        try FFmpegError.check(avformat_alloc_output_context2(&allocated, nil, format, path),
                              "preparing the \(format) muxer", path: path)
        bytesPerFrame = 2 * channelLayout.channelCount
        do throws(FFmpegError) {
            try Muxer.addPCM16Stream(to: allocated!, sampleRate: sampleRate, channelLayout: channelLayout,
                                     bytesPerFrame: bytesPerFrame, path: path)
            try FFmpegError.check(avio_open2(&allocated!.pointee.pb, path, ra_avio_flag_write(), nil, nil),
                                  "creating the output file", path: path)
        } catch {
            avformat_free_context(allocated)
            throw error
        }
        // Assigned last: if anything above throws, `self` is incomplete and deinit does not run.
        context = allocated!
        isOpen = true
    }

    private static func addPCM16Stream(to context: UnsafeMutablePointer<AVFormatContext>, sampleRate: Int,
                                       channelLayout: ChannelLayout, bytesPerFrame: Int, path: String) throws(FFmpegError) {
        guard let stream = avformat_new_stream(context, nil) else {
            throw FFmpegError.outOfMemory("adding the audio stream", path: path)
        }
        let parameters = stream.pointee.codecpar!
        parameters.pointee.codec_type = AVMEDIA_TYPE_AUDIO
        parameters.pointee.codec_id = AV_CODEC_ID_PCM_S16LE
        parameters.pointee.sample_rate = Int32(sampleRate)
        parameters.pointee.format = AV_SAMPLE_FMT_S16.rawValue
        parameters.pointee.bits_per_coded_sample = 16
        parameters.pointee.block_align = Int32(bytesPerFrame)
        parameters.pointee.bit_rate = Int64(sampleRate * bytesPerFrame * 8)
        var layout = channelLayout.layout
        try FFmpegError.check(av_channel_layout_copy(&parameters.pointee.ch_layout, &layout),
                              "setting the channel layout", path: path)
        stream.pointee.time_base = AVRational(num: 1, den: Int32(sampleRate))
    }

    deinit {
        if isOpen { avio_closep(&context.pointee.pb) }
        avformat_free_context(context)
    }

    /// Writes the file header.
    /// - Parameter allowRF64: let the wav muxer switch to RF64 if the data outgrows 4 GiB.
    public func writeHeader(allowRF64: Bool) throws(FFmpegError) {
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        if allowRF64 { av_dict_set(&options, "rf64", "auto", 0) }
        try FFmpegError.check(avformat_write_header(context, &options), "writing the header", path: path)
        headerWritten = true
    }

    /// Where the next bytes go, counted from the start of the file.
    public var bytePosition: Int64 { avio_tell(context.pointee.pb) }

    /// Moves the write position; the file must be seekable (a regular file is).
    public func seek(toByte offset: Int64) throws(FFmpegError) {
        let result = avio_seek(context.pointee.pb, offset, SEEK_SET)
        if result < 0 { throw FFmpegError(code: Int32(truncatingIfNeeded: result), operation: "seeking in the output", path: path) }
    }

    /// Hands `frames` interleaved frames to the muxer as one packet, without copying them.
    public func write(_ samples: UnsafeBufferPointer<Int16>, frames: Int) throws(FFmpegError) {
        guard frames > 0 else { return }
        let raw = UnsafeMutableRawPointer(mutating: samples.baseAddress!)
        packet.unreference()
        packet.pointer.pointee.data = raw.assumingMemoryBound(to: UInt8.self)
        packet.pointer.pointee.size = Int32(frames * bytesPerFrame)
        packet.pointer.pointee.stream_index = 0
        // Timestamps count samples in the order they are handed over: the muxer uses them only to
        // count samples (RF64 and fact chunks), and they must not decrease.
        packet.pointer.pointee.pts = nextTimestamp
        packet.pointer.pointee.dts = nextTimestamp
        packet.pointer.pointee.duration = Int64(frames)
        nextTimestamp += Int64(frames)
        let result = av_write_frame(context, packet.pointer)
        // The payload is ours: detach it before the packet is reused or freed.
        packet.pointer.pointee.data = nil
        packet.pointer.pointee.size = 0
        try FFmpegError.check(result, "writing samples", path: path)
    }

    /// Writes the trailer (the muxer patches the header's sizes) and closes the file, reporting
    /// any error the buffered writes met (a full disk, a file size limit).
    public func finish(atByte endOffset: Int64? = nil) throws(FFmpegError) {
        if let endOffset, endOffset != bytePosition { try seek(toByte: endOffset) }
        try FFmpegError.check(av_write_trailer(context), "finishing the file", path: path)
        try close()
    }

    /// Closes the file without a trailer (used when abandoning a partial output).
    public func close() throws(FFmpegError) {
        guard isOpen else { return }
        isOpen = false
        let error = context.pointee.pb.pointee.error
        try FFmpegError.check(avio_closep(&context.pointee.pb), "closing the output file", path: path)
        try FFmpegError.check(error, "writing the output file", path: path)
    }
}
