import CFFmpeg
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Owns one output `AVFormatContext` and its `AVIOContext`: a file written by one of
/// libavformat's muxers ("wav", "aiff", "caf", "flac", "ipod", "mp3", "adts").
///
/// Streams are added from encoders (or as raw PCM), then the header is written, packets are
/// written, and ``finish(atByte:)`` writes the trailer (the muxer patches sizes and tags). For
/// a seekable output, ``seek(toByte:)`` lets a caller place PCM packets out of order (a
/// reversal writes each block at its mirrored place).
package final class Muxer {
    let context: UnsafeMutablePointer<AVFormatContext>
    let path: String
    private var isOpen = false
    /// The time base each stream's packets are stamped in before rescaling.
    var sourceTimeBases: [AVRational] = []
    /// Write packets through libavformat's interleaving queue (`av_interleaved_write_frame`),
    /// which orders the packets of several streams by time: set it for a file with audio and
    /// video, before the first packet.
    package var interleavesPackets = false

    /// Opens `path` (creating it when missing; a FIFO or device is opened as it is) for the muxer
    /// called `formatName`. A regular file that holds bytes is emptied first; one that is new or
    /// empty (the temporary file an output reserved) is not truncated, because on ext4 a file
    /// truncated to zero is flushed whole when it is closed (`auto_da_alloc`), which cost 0.16 s
    /// at the end of a 635 MB WAV (a quarter of its reversal) where a file merely created costs
    /// nothing.
    ///
    /// `publishedPath` is the name the file will have once published (the temporary one it is
    /// written under is renamed to it): the muxer sees it as its URL, as it would under the
    /// `ffmpeg` CLI, so checks of the name (the ipod muxer's `.m4a` test) are made on the
    /// real one. Not for a muxer that reads its file back by that URL (MP4's `+faststart`).
    package init(path: String, formatName: String, publishedPath: String? = nil) throws(FFmpegError) {
        self.path = path
        var allocated: UnsafeMutablePointer<AVFormatContext>?
        try FFmpegError.check(avformat_alloc_output_context2(&allocated, nil, formatName, publishedPath ?? path),
                              "preparing the \(formatName) muxer", path: path)
        var protocolOptions: OpaquePointer?
        defer { av_dict_free(&protocolOptions) }
        var status = stat()
        let holdsBytes = stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG && status.st_size > 0
        if !holdsBytes { av_dict_set(&protocolOptions, "truncate", "0", 0) }
        let opened = avio_open2(&allocated!.pointee.pb, LocalPath.url(for: path), ra_avio_flag_write(), nil, &protocolOptions)
        if opened < 0 {
            avformat_free_context(allocated)
            throw FFmpegError(code: opened, operation: "creating the output file", path: path)
        }
        // Assigned last: if anything above throws, `self` is incomplete and deinit does not run.
        context = allocated!
        isOpen = true
    }

    deinit {
        if isOpen { avio_closep(&context.pointee.pb) }
        avformat_free_context(context)
    }

    /// True when the format wants codec setup in extradata rather than in the stream (MP4).
    package var needsGlobalHeader: Bool { (context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER) != 0 }

    /// True when the muxer can store `codecName`'s output.
    package func canStore(codecName: String) -> Bool {
        guard let codec = avcodec_find_encoder_by_name(codecName) else { return false }
        return avformat_query_codec(context.pointee.oformat, codec.pointee.id, FF_COMPLIANCE_NORMAL) == 1
    }

    /// Adds a stream carrying `encoder`'s packets; returns its index.
    @discardableResult
    package func addStream(for encoder: Encoder) throws(FFmpegError) -> Int {
        try addStream(for: encoder.codecContext, timeBase: encoder.timeBase)
    }

    /// Adds a stream described by an opened codec context whose packets are stamped in `timeBase`.
    @discardableResult
    func addStream(for codec: CodecContext, timeBase: AVRational) throws(FFmpegError) -> Int {
        guard let stream = avformat_new_stream(context, nil) else {
            throw FFmpegError.outOfMemory("adding a stream", path: path)
        }
        try FFmpegError.check(avcodec_parameters_from_context(stream.pointee.codecpar, codec.pointer),
                              "describing the stream", path: path)
        stream.pointee.time_base = timeBase
        sourceTimeBases.append(timeBase)
        return Int(stream.pointee.index)
    }

    /// Adds a stream that carries `demuxer`'s stream `index` packets unchanged (a packet copy),
    /// with the gapless trimming the output's header should state: `initialPadding` samples the
    /// decoder drops at the start (the MP3 muxer's LAME tag counts its 529-sample decoder delay in
    /// them) and `trailingPadding` at the end.
    @discardableResult
    package func addStream(copying demuxer: Demuxer, stream index: Int, initialPadding: Int,
                           trailingPadding: Int) throws(FFmpegError) -> Int {
        guard let stream = avformat_new_stream(context, nil) else {
            throw FFmpegError.outOfMemory("adding a stream", path: path)
        }
        let source = demuxer.stream(at: index)
        try FFmpegError.check(avcodec_parameters_copy(stream.pointee.codecpar, source.pointee.codecpar),
                              "describing the copied stream", path: path)
        stream.pointee.codecpar.pointee.codec_tag = 0
        stream.pointee.codecpar.pointee.initial_padding = Int32(initialPadding)
        stream.pointee.codecpar.pointee.trailing_padding = Int32(trailingPadding)
        stream.pointee.time_base = source.pointee.time_base
        sourceTimeBases.append(source.pointee.time_base)
        return Int(stream.pointee.index)
    }

    /// Sets the file's tags (title, artist…), written by muxers that can hold them.
    package func setMetadata(_ tags: [(key: String, value: String)]) {
        for (key, value) in tags { av_dict_set(&context.pointee.metadata, key, value, 0) }
    }

    /// Adds chapters (start and end in frames at `sampleRate`, and a title), written by muxers
    /// that can hold them (MP3's ID3v2 `CHAP` frames, MP4's chapter track, FLAC's and Ogg's
    /// `CHAPTERnnn` comments); before ``writeHeader(options:)``.
    package func addChapters(_ chapters: [(start: Int64, end: Int64, title: String?)], sampleRate: Int) throws(FFmpegError) {
        for (number, chapter) in chapters.enumerated() {
            let added = ra_add_chapter(context, Int64(number + 1), AVRational(num: 1, den: Int32(clamping: sampleRate)),
                                       chapter.start, chapter.end, chapter.title)
            try FFmpegError.check(added, "adding a chapter", path: path)
        }
    }

    /// Writes the file header, with muxer options such as `["rf64": "auto"]`.
    package func writeHeader(options: [String: String] = [:]) throws(FFmpegError) {
        var dictionary: OpaquePointer?
        defer { av_dict_free(&dictionary) }
        for (key, value) in options { av_dict_set(&dictionary, key, value, 0) }
        try FFmpegError.check(avformat_write_header(context, &dictionary), "writing the header", path: path)
    }

    /// Where the next bytes go, counted from the start of the file.
    package var bytePosition: Int64 { avio_tell(context.pointee.pb) }

    /// Moves the write position; the file must be seekable (a regular file is).
    package func seek(toByte offset: Int64) throws(FFmpegError) {
        let result = avio_seek(context.pointee.pb, offset, SEEK_SET)
        if result < 0 { throw FFmpegError(code: Int32(truncatingIfNeeded: result), operation: "seeking in the output", path: path) }
    }

    /// Writes an encoder's packet to `stream`, rescaling its timestamps to the stream's time base.
    package func write(_ packet: Packet, stream: Int) throws(FFmpegError) {
        packet.pointer.pointee.stream_index = Int32(stream)
        av_packet_rescale_ts(packet.pointer, sourceTimeBases[stream], context.pointee.streams[stream]!.pointee.time_base)
        if interleavesPackets {
            // Takes the packet's payload (the packet is left empty for reuse).
            try FFmpegError.check(av_interleaved_write_frame(context, packet.pointer), "writing packets", path: path)
            return
        }
        try FFmpegError.check(av_write_frame(context, packet.pointer), "writing samples", path: path)
    }

    /// Writes `byteCount` bytes of PCM as one packet of `frames` frames starting at sample `timestamp`,
    /// without copying them (the bytes must already be in the stream's codec layout).
    package func writePCM(_ bytes: UnsafeRawPointer, byteCount: Int, frames: Int, timestamp: Int64,
                          using packet: Packet, stream: Int = 0) throws(FFmpegError) {
        guard frames > 0 else { return }
        packet.unreference()
        packet.pointer.pointee.data = UnsafeMutablePointer(mutating: bytes.assumingMemoryBound(to: UInt8.self))
        packet.pointer.pointee.size = Int32(byteCount)
        packet.pointer.pointee.pts = timestamp
        packet.pointer.pointee.dts = timestamp
        packet.pointer.pointee.duration = Int64(frames)
        packet.pointer.pointee.stream_index = Int32(stream)
        av_packet_rescale_ts(packet.pointer, sourceTimeBases[stream], context.pointee.streams[stream]!.pointee.time_base)
        let result = av_write_frame(context, packet.pointer)
        // The payload is the caller's: detach it before the packet is reused or freed.
        packet.pointer.pointee.data = nil
        packet.pointer.pointee.size = 0
        try FFmpegError.check(result, "writing samples", path: path)
    }

    /// Writes the trailer (the muxer patches the header's sizes) and closes the file, reporting
    /// any error the buffered writes met (a full disk, a file size limit).
    /// - Parameter endOffset: where the file ends, for a file written out of order.
    package func finish(atByte endOffset: Int64? = nil) throws(FFmpegError) {
        if let endOffset, endOffset != bytePosition { try seek(toByte: endOffset) }
        try FFmpegError.check(av_write_trailer(context), "finishing the file", path: path)
        try close()
    }

    /// Closes the file without a trailer (used when abandoning a partial output).
    package func close() throws(FFmpegError) {
        guard isOpen else { return }
        isOpen = false
        let error = context.pointee.pb.pointee.error
        try FFmpegError.check(avio_closep(&context.pointee.pb), "closing the output file", path: path)
        try FFmpegError.check(error, "writing the output file", path: path)
    }
}
