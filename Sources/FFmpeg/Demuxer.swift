import CFFmpeg

/// Owns one input `AVFormatContext`: an opened, probed file whose packets can be read in order.
///
/// The format is found from the content (FFmpeg's probe), never from the file name's extension.
package final class Demuxer {
    let context: UnsafeMutablePointer<AVFormatContext>
    package let path: String
    /// Polled by FFmpeg during I/O: cancellation and the read budget.
    private let interrupt: InterruptCheck
    /// What FFmpeg reads: a path, or for a FIFO an I/O context of ours that never blocks
    /// (kept until the format context is closed).
    private let input: LocalPath.Input
    /// The context's `io_open`: what the input names (a playlist's entries) is not opened
    /// unless allowed, and remote addresses stay on the allowed hosts.
    private let nestedOpens: NestedOpenGuard

    /// Bytes read without a packet coming out (or while opening) before the input is taken for
    /// junk. Real files need far less: a probe reads at most a few MiB, and a packet is small.
    package static let readLimit: Int64 = 64 << 20

    /// Opens and probes `path`.
    /// - Parameters:
    ///   - isCancelled: polled by FFmpeg during blocking I/O; returning true aborts it.
    ///   - probesPictures: false for an open that reads the audio alone (a second reader of a
    ///     file already described): the pictures attached to it (cover art, which FFmpeg holds
    ///     in memory from the open and decodes whole to probe it: a 27 MB PNG costs 87 MB) are
    ///     let go before the probe instead.
    package init(path: String, isCancelled: (@Sendable () -> Bool)? = nil, probesPictures: Bool = true) throws(FFmpegError) {
        self.path = path
        guard let allocated = avformat_alloc_context() else {
            throw .outOfMemory("allocating a demuxer", path: path)
        }
        let interrupt = InterruptCheck(isCancelled: isCancelled, readLimit: Demuxer.readLimit)
        self.interrupt = interrupt
        allocated.pointee.interrupt_callback = interrupt.callback
        interrupt.context = allocated
        var opened: UnsafeMutablePointer<AVFormatContext>? = allocated
        let input: LocalPath.Input
        do {
            input = try LocalPath.input(for: path) { interrupt.shouldStop() }
        } catch {
            avformat_free_context(allocated)
            switch error {
            case .cancelled: throw FFmpegError(code: ra_averror_exit(), operation: "opening the file", path: path)
            case .system(let code): throw FFmpegError(code: -code, operation: "opening the file", path: path)
            }
        }
        self.input = input
        let allowsPlaylist = InputRules.allowsPlaylist(at: path)
        let nestedOpens = NestedOpenGuard(inputURL: input.url, allowsNested: allowsPlaylist,
                                          protocols: input.isRemote ? LocalPath.remoteProtocols : "file,pipe")
        self.nestedOpens = nestedOpens
        nestedOpens.install(in: allocated)
        if let custom = input.context {
            allocated.pointee.pb = custom
            allocated.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        }
        var options: OpaquePointer?
        // Raw demuxers (FLAC's among them) hand their parser 1 KiB reads by default; 32 KiB
        // reads give the same packets, positions and stamps for a third less of the parser's
        // CPU (about 0.08 s a 30-minute FLAC file). Demuxers without the option leave it unused.
        av_dict_set(&options, "raw_packet_size", "32768", 0)
        av_dict_set(&options, "protocol_whitelist", nestedOpens.protocols, 0)
        if allowsPlaylist {
            // The concat demuxer's own check refuses absolute paths and `..`; here the guard
            // applies the input's rules to what it names instead.
            av_dict_set(&options, "safe", "0", 0)
        } else {
            av_dict_set(&options, "format_whitelist", InputRules.directFormatList, 0)
        }
        if input.isRemote {
            for (key, value) in LocalPath.remoteOptions { av_dict_set(&options, key, value, 0) }
        }
        // avformat_open_input frees the context itself when it fails.
        let openResult = avformat_open_input(&opened, input.url, nil, &options)
        av_dict_free(&options)
        if openResult < 0 {
            interrupt.context = nil
            if let refusal = nestedOpens.refusal {
                throw FFmpegError(code: ra_averror_eperm(), operation: "opening the file", path: path, message: "refused: \(refusal)")
            }
            if !allowsPlaylist, !input.isRemote, input.context == nil, openResult == ra_averror_einval(),
               let format = InputRules.probedFormat(of: input.url), InputRules.indirectFormats.contains(format) {
                throw Demuxer.playlistRefusal(format, path: path)
            }
            throw Demuxer.error(openResult, "opening the file", path: path, interrupt: interrupt)
        }
        interrupt.context = opened

        if !probesPictures, let context = opened { Demuxer.releaseAttachedPictures(context) }
        let probed = avformat_find_stream_info(opened, nil)
        // A probe the interrupt callback cut short can still return success, with streams it had
        // no time to read: a cancellation then looks like junk unless it is checked here.
        if isCancelled?() == true {
            interrupt.context = nil
            avformat_close_input(&opened)
            throw FFmpegError(code: ra_averror_exit(), operation: "reading the stream parameters", path: path)
        }
        if probed < 0 {
            interrupt.context = nil
            avformat_close_input(&opened)
            throw Demuxer.error(probed, "reading the stream parameters", path: path, interrupt: interrupt)
        }
        interrupt.resetBudget()
        // Assigned last: if anything above throws, `self` is incomplete and deinit does not run.
        context = opened!
    }

    /// Lets go of the pictures attached to the file (cover art): their streams are discarded,
    /// their packets freed, and the copies queued for the first reads dropped with them.
    private static func releaseAttachedPictures(_ context: UnsafeMutablePointer<AVFormatContext>) {
        var released = false
        for index in 0..<Int(context.pointee.nb_streams) {
            guard let stream = context.pointee.streams[index],
                  (stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC) != 0 else { continue }
            stream.pointee.discard = AVDISCARD_ALL
            av_packet_unref(&stream.pointee.attached_pic)
            // A size the probe takes as known, so it neither waits for the picture it will not
            // get nor warns that it found none; nothing of this open ever shows the picture.
            if stream.pointee.codecpar.pointee.width == 0 { stream.pointee.codecpar.pointee.width = 1 }
            if stream.pointee.codecpar.pointee.height == 0 { stream.pointee.codecpar.pointee.height = 1 }
            if stream.pointee.codecpar.pointee.format < 0 { stream.pointee.codecpar.pointee.format = AV_PIX_FMT_RGB24.rawValue }
            released = true
        }
        if released { avformat_flush(context) }
    }

    /// The error for an input that is a playlist or another indirection (`format`), not opened.
    private static func playlistRefusal(_ format: String, path: String) -> FFmpegError {
        FFmpegError(code: ra_averror_eperm(), operation: "opening the file", path: path,
                    message: "refused: a playlist or indirection (\(format)), which names other files or addresses to read, is not opened")
    }

    /// The error for a failed call, telling an input that was junk from a cancellation.
    private static func error(_ code: Int32, _ operation: String, path: String, interrupt: InterruptCheck) -> FFmpegError {
        guard interrupt.exceededReadLimit else { return FFmpegError(code: code, operation: operation, path: path) }
        return FFmpegError(code: ra_averror_invaliddata(), operation: operation, path: path,
                           message: "no audio or video found in \(readLimit >> 20) MiB of data")
    }

    deinit {
        var owned: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&owned)
    }

    /// True when the input can be sought in: a file, or a server that answers byte ranges.
    package var isSeekable: Bool {
        guard let io = context.pointee.pb else { return false }
        return (io.pointee.seekable & AVIO_SEEKABLE_NORMAL) != 0
    }

    /// True when the input is an `http://` or `https://` URL.
    package var isRemote: Bool { input.isRemote }

    /// True when probing stopped at ``readLimit`` bytes without finding a packet: the input is junk
    /// that merely resembles a format.
    package var stoppedAtReadLimit: Bool { interrupt.exceededReadLimit }

    /// FFmpeg's short name of the container format ("wav", "mov,mp4,m4a,3gp,3g2,mj2").
    package var formatName: String { String(cString: context.pointee.iformat.pointee.name) }
    /// FFmpeg's descriptive name of the container format ("WAV / WAVE (Waveform Audio)").
    package var formatLongName: String {
        context.pointee.iformat.pointee.long_name.map { String(cString: $0) } ?? formatName
    }

    /// The container's duration in seconds, if it states or FFmpeg estimated one.
    package var durationSeconds: Double? {
        let duration = context.pointee.duration
        guard duration != ra_av_nopts_value(), duration >= 0 else { return nil }
        return Double(duration) / Double(ra_av_time_base())
    }

    /// True when FFmpeg only guessed the duration from the bit rate (e.g. an MP3 without a Xing tag).
    package var durationIsEstimatedFromBitRate: Bool {
        context.pointee.duration_estimation_method == AVFMT_DURATION_FROM_BITRATE
    }

    /// The container's total bit rate in bits per second, when known.
    package var bitRate: Int? { context.pointee.bit_rate > 0 ? Int(context.pointee.bit_rate) : nil }

    /// The file's tags (title, artist, album…), with those of stream `index` after the file's
    /// own where the container keeps them per stream (Ogg, some MP4s); keys as FFmpeg names them.
    package func tags(stream index: Int) -> [(key: String, value: String)] {
        var result: [(key: String, value: String)] = []
        for dictionary in [context.pointee.metadata, context.pointee.streams[index]!.pointee.metadata] {
            var entry: UnsafeMutablePointer<AVDictionaryEntry>?
            while let next = av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
                entry = next
                let key = String(cString: next.pointee.key)
                if !result.contains(where: { $0.key == key }) { result.append((key, String(cString: next.pointee.value))) }
            }
        }
        return result
    }

    /// One chapter of the container (MP4 chapters, Matroska chapters, ID3v2 `CHAP` frames).
    package struct Chapter: Sendable, Equatable {
        /// Where it starts and ends, in ``timeBase`` units.
        package let start: Int64
        package let end: Int64
        package let timeBase: Rational
        package let title: String?
    }

    /// The container's chapters, in the order FFmpeg lists them.
    package var chapters: [Chapter] {
        (0..<Int(context.pointee.nb_chapters)).compactMap { index in
            guard let chapter = context.pointee.chapters[index] else { return nil }
            let title = av_dict_get(chapter.pointee.metadata, "title", nil, 0).map { String(cString: $0.pointee.value) }
            return Chapter(start: chapter.pointee.start, end: chapter.pointee.end, timeBase: Rational(chapter.pointee.time_base), title: title)
        }
    }

    /// The kind of every stream in the file, in stream order.
    package var streamKinds: [MediaKind] {
        (0..<Int(context.pointee.nb_streams)).map { index in
            MediaKind(context.pointee.streams[index]!.pointee.codecpar.pointee.codec_type)
        }
    }

    /// The index of the audio stream FFmpeg considers best (as the `ffmpeg` CLI would pick).
    /// Throws `AVERROR_STREAM_NOT_FOUND` when there is none and `AVERROR_DECODER_NOT_FOUND`
    /// when no decoder exists for it.
    package func bestAudioStreamIndex() throws(FFmpegError) -> Int {
        let index = av_find_best_stream(context, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        try FFmpegError.check(index, "finding an audio stream", path: path)
        return Int(index)
    }

    /// What the container and probe say about audio stream `index`.
    package func audioStream(at index: Int) -> AudioStreamParameters {
        AudioStreamParameters(stream: context.pointee.streams[index]!, containerName: formatName)
    }

    /// Reads the next packet of any stream into `packet` (``PacketReader`` is how the rest of
    /// the library reads).
    /// - Returns: false at the end of the file, which is not an error.
    func readPacket(into packet: Packet) throws(FFmpegError) -> Bool {
        packet.unreference()
        let result = av_read_frame(context, packet.pointer)
        if result == ra_averror_eof() { return false }
        if result < 0 { throw Demuxer.error(result, "reading a packet", path: path, interrupt: interrupt) }
        interrupt.resetBudget()
        return true
    }

    /// Moves reading to the last keyframe of stream `index` at or before `timestamp` (in the
    /// stream's time base). The demuxer's own index decides where that is.
    package func seek(stream index: Int, toTimestamp timestamp: Int64) throws(FFmpegError) {
        try FFmpegError.check(av_seek_frame(context, Int32(index), timestamp, ra_seek_flag_backward()),
                              "seeking", path: path)
        interrupt.resetBudget()
    }

    /// Caps the index FFmpeg builds from the packets it reads, for formats that keep one (WAV,
    /// FLAC, MP3: `max_index_size`; when full, every other entry goes). Each entry is inserted
    /// in timestamp order, so reading a file from its end backwards moves the whole index once
    /// per packet: a small cap keeps that cheap.
    package func limitIndexMemory(to bytes: Int) {
        context.pointee.max_index_size = UInt32(clamping: bytes)
    }

    /// Entries in stream `index`'s seek index now: a container's own table (MP4's samples, a
    /// FLAC seek table) gives many at once; none means a seek searches the file for its place.
    package func indexEntryCount(stream index: Int) -> Int {
        Int(avformat_index_get_entries_count(stream(at: index)))
    }

    /// Moves reading to byte `offset` of the file (a packet's start, from an earlier read).
    package func seek(toByte offset: Int64) throws(FFmpegError) {
        try FFmpegError.check(av_seek_frame(context, -1, offset, ra_seek_flag_byte()), "seeking", path: path)
        interrupt.resetBudget()
    }

    /// Reads up to `count` bytes of the file from byte `offset` into `buffer`, past the
    /// demuxer (PCM whose stored bytes are the samples, read in large blocks through the same
    /// open of the file): packets are no longer read from this demuxer afterwards.
    /// - Returns: the bytes read; fewer than `count` only at the end of the file.
    package func readBytes(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int64) throws(FFmpegError) -> Int {
        guard let io = context.pointee.pb else { throw .invalidArgument("reading the file's bytes") }
        let moved = avio_seek(io, offset, SEEK_SET)
        if moved < 0 { throw FFmpegError(code: Int32(truncatingIfNeeded: moved), operation: "seeking", path: path) }
        var filled = 0
        while filled < count {
            // Larger than the I/O buffer: read straight into `buffer`, no copy in between.
            let got = avio_read(io, buffer.assumingMemoryBound(to: UInt8.self) + filled, Int32(clamping: count - filled))
            if got == ra_averror_eof() || got == 0 { break }
            if got < 0 { throw Demuxer.error(got, "reading the file", path: path, interrupt: interrupt) }
            filled += Int(got)
        }
        interrupt.resetBudget()
        return filled
    }

    /// Up to `count` bytes of the file from byte `offset`, read through the demuxer's own open
    /// of the file (no other open of it), which is then put back where it was: for a header the
    /// demuxer reads but does not tell (an MP4 edit list, a WAV data size). Empty when the
    /// input cannot be read there.
    package func peekBytes(count: Int, at offset: Int64) -> [UInt8] {
        guard let io = context.pointee.pb, count > 0, offset >= 0 else { return [] }
        let here = avio_tell(io)
        defer { _ = avio_seek(io, here, SEEK_SET) }
        guard avio_seek(io, offset, SEEK_SET) >= 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBufferPointer { buffer in
                avio_read(io, buffer.baseAddress! + filled, Int32(clamping: count - filled))
            }
            if got <= 0 { break }
            filled += Int(got)
        }
        return Array(bytes.prefix(filled))
    }

    /// The file's size in bytes, when the input knows it (not a pipe).
    package var fileSize: Int64? {
        guard let io = context.pointee.pb else { return nil }
        let size = avio_size(io)
        return size >= 0 ? size : nil
    }

    func stream(at index: Int) -> UnsafeMutablePointer<AVStream> {
        context.pointee.streams[index]!
    }
}

/// The kind of media a stream carries.
package enum MediaKind: String, Sendable {
    case audio, video, subtitle, data, attachment, unknown

    init(_ type: AVMediaType) {
        switch type {
        case AVMEDIA_TYPE_AUDIO: self = .audio
        case AVMEDIA_TYPE_VIDEO: self = .video
        case AVMEDIA_TYPE_SUBTITLE: self = .subtitle
        case AVMEDIA_TYPE_DATA: self = .data
        case AVMEDIA_TYPE_ATTACHMENT: self = .attachment
        default: self = .unknown
        }
    }
}
