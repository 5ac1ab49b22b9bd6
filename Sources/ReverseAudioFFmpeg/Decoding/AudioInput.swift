import FFmpeg
import Foundation
import ReverseAudioCore

/// An input file opened for its best audio stream: the demuxer, the stream's parameters and
/// codec traits, and a decoder, with every failure mapped to a ``ReverseAudioError`` that names
/// the file. What ``AudioFileSource`` decodes, and what the lossless cuts copy packets from.
package final class AudioInput {
    package let url: URL
    package let demuxer: Demuxer
    package let streamIndex: Int
    package let parameters: AudioStreamParameters
    package let decoder: Decoder
    /// False for a pipe: it is read once, in order, and cannot be sought in or read again.
    package let isSeekable: Bool
    package let isCancelled: (@Sendable () -> Bool)?

    /// The codec's traits in this container.
    package var traits: CodecTraits { parameters.traits }

    /// The file as it was named, for messages.
    package let path: String
    /// The decoder's own threads, as asked (0: as many as it uses).
    package let decoderThreads: Int

    /// - Parameters:
    ///   - decoderThreads: the decoder's own threads (0: as many as it uses; 1: one of several decoders side by side).
    ///   - describesPictures: false for a second reader of a file already described: its cover
    ///     art is let go at the open instead of probed (see `Demuxer`).
    package init(url: URL, isCancelled: (@Sendable () -> Bool)? = nil, decoderThreads: Int = 0,
                 describesPictures: Bool = true) throws {
        self.decoderThreads = decoderThreads
        self.isCancelled = isCancelled
        path = url.displayPath
        self.url = url
        isSeekable = AudioInput.isSeekableFile(url)
        FFmpegDiagnostics.applyDefault()
        try AudioInput.checkReadableFile(at: url)
        do {
            demuxer = try Demuxer(path: url.mediaLocation, isCancelled: isCancelled, probesPictures: describesPictures)
        } catch {
            if error.isInterrupted { throw CancellationError() }
            if !isSeekable && (error.isEndOfFile || error.isInvalidData || error.posixErrorNumber == EINVAL) {
                // Nothing to tell an empty pipe from one carrying something that is not audio.
                throw ReverseAudioError.input(.notMedia(path: path, reason: "no audio came through the pipe (it was empty, or not audio FFmpeg can read)"))
            }
            if let bare = AudioInput.bareRefusal(error, path: path, isSeekable: isSeekable) { throw bare }
            throw AudioInput.openingError(error, path: path)
        }
        if demuxer.isRemote && !demuxer.isSeekable {
            throw ReverseAudioError.input(.notSeekable(path: path, reason: "the server does not answer byte ranges, which reading it needs; download it first"))
        }
        do {
            streamIndex = try demuxer.bestAudioStreamIndex()
        } catch {
            let kinds = demuxer.streamKinds
            guard let audio = kinds.firstIndex(of: .audio) else {
                throw ReverseAudioError.input(.noAudioStream(path: path, streams: AudioInput.describe(kinds)))
            }
            let stream = demuxer.audioStream(at: audio)
            if demuxer.stoppedAtReadLimit {
                throw ReverseAudioError.input(.notMedia(
                    path: path, reason: "no \(stream.codecName) frame found in the first \(Demuxer.readLimit >> 20) MiB"))
            }
            if error.isDecoderNotFound { throw ReverseAudioError.input(.unsupportedCodec(path: path, codec: stream.codecName)) }
            // FFmpeg passes over audio streams whose rate or channel count it could not read.
            throw ReverseAudioError.input(.notMedia(
                path: path, reason: "its \(stream.codecName) stream declares no sample rate or channels"))
        }
        parameters = demuxer.audioStream(at: streamIndex)
        do {
            decoder = try Decoder(demuxer: demuxer, streamIndex: streamIndex, threads: decoderThreads)
        } catch {
            if error.isDecoderNotFound { throw ReverseAudioError.input(.unsupportedCodec(path: path, codec: parameters.codecName)) }
            throw ReverseAudioError.input(.decodingFailed(
                path: path, reason: "the \(parameters.codecName) decoder rejected the stream (\(error.message))"))
        }
    }

    /// The same open of the file with a decoder that has decoded nothing, on `threads` threads
    /// of its own (the demuxer is shared).
    private init(reusing other: AudioInput, decoderThreads threads: Int) throws {
        url = other.url
        demuxer = other.demuxer
        streamIndex = other.streamIndex
        parameters = other.parameters
        isSeekable = other.isSeekable
        isCancelled = other.isCancelled
        path = other.path
        decoderThreads = threads
        splicing = other.splicing
        do {
            decoder = try Decoder(openedAs: other.decoder, threads: decoderThreads)
        } catch {
            throw ReverseAudioError.input(.decodingFailed(
                path: path, reason: "the \(parameters.codecName) decoder rejected the stream (\(error.message))"))
        }
    }

    /// This open of the file with a fresh decoder (on `threads` threads; nil: as many as this
    /// one's): what a decode from the start needs after the demuxer was used for something else
    /// (finding the length), or a decoder that keeps to one thread beside others.
    package func withFreshDecoder(threads: Int? = nil) throws -> AudioInput {
        try AudioInput(reusing: self, decoderThreads: threads ?? decoderThreads)
    }

    /// True when a seek back to the stream's start, with a fresh decoder, decodes exactly as a
    /// fresh open does: lossless codecs (no state between frames), streams decoded by a packet
    /// index (MP3, ADTS AAC: the index stamps the start trimming back), and MP4, whose demuxer
    /// restores the edit list's start trimming on a seek. Elsewhere (Ogg's pre-skip) the start
    /// trimming reaches the decoder only on a demuxer's first read.
    package var restartsExactlyFromStart: Bool {
        !traits.isLossy || traits.needsPacketIndex || traits.followsContainerDuration
    }

    /// True when an MP4 edit list splices pieces of the stream's media (more than one edit
    /// that plays media, ``MP4EditList``): the packets' timestamps are then not where their
    /// samples come in the decode. Read once, when first asked, through this open of the file
    /// (the mov demuxer seeks to every packet it reads, so reading its boxes moves nothing).
    package var splicesEdits: Bool {
        if let known = splicing { return known }
        let splices = isSeekable && traits.followsContainerDuration
            && (MP4EditList.mediaEditCount(in: demuxer, track: streamIndex) ?? 0) > 1
        splicing = splices
        return splices
    }
    private var splicing: Bool?

    /// True when a packet's timestamp names the output position of its first sample: the
    /// time base resolves samples, and no edit list splices the media. Otherwise a position is
    /// found by decoding from the start, counting.
    package var timestampsArePositions: Bool {
        parameters.timestampsResolveSamples && !splicesEdits
    }

    /// Moves the demuxer back to the stream's first packet.
    package func rewindDemuxer() throws(FFmpegError) {
        if traits.followsContainerDuration {
            // An MP4's first packets (the encoder's priming) lie before its start time: a seek
            // before every sample lands on the first, whose start trimming the demuxer restores.
            try demuxer.seek(stream: streamIndex, toTimestamp: Int64.min / 2)
        } else {
            try demuxer.seek(stream: streamIndex, toTimestamp: parameters.startTimestamp ?? 0)
        }
    }

    /// The tags a person set (title, artist…), in the file's order: not the ones that describe
    /// how this file was encoded, which would be wrong for a new encoding.
    package var tags: [(key: String, value: String)] {
        let technical: Set<String> = ["encoder", "encoded_by", "major_brand", "minor_version", "compatible_brands",
                                      "handler_name", "vendor_id", "itunsmpb", "itunnorm", "encoder_options",
                                      "creation_time", "duration", "language"]
        return demuxer.tags(stream: streamIndex).filter { !technical.contains($0.key.lowercased()) }
    }

    /// The container's chapters (MP4, Matroska, ID3v2 `CHAP`), each as the frames of the decode
    /// where it starts and ends, and its title, in the order the container lists them.
    package var chapters: [(start: Int64, end: Int64, title: String?)] {
        let rate = Rational(1, Int32(clamping: parameters.sampleRate))
        return demuxer.chapters.map { chapter in
            guard chapter.timeBase.isValid else { return (0, 0, chapter.title) }
            return (chapter.timeBase.rescale(chapter.start, to: rate), chapter.timeBase.rescale(chapter.end, to: rate), chapter.title)
        }
    }

    /// The chapters that overlap output frames `range`, cut to it and counted from its start
    /// (what a cut of `range` keeps).
    package func chapters(within range: Range<Int64>) -> [(start: Int64, end: Int64, title: String?)] {
        chapters.compactMap { chapter in
            let start = max(chapter.start, range.lowerBound)
            let end = min(max(chapter.end, chapter.start), range.upperBound)
            return start < end ? (start - range.lowerBound, end - range.lowerBound, chapter.title) : nil
        }
    }

    /// ``tags`` with `overrides` in place of the tags of the same names (a piece's title and
    /// track number), the others kept in order.
    package func tags(overriding overrides: [(key: String, value: String)]) -> [(key: String, value: String)] {
        let replaced = Set(overrides.map { $0.key.lowercased() })
        return tags.filter { !replaced.contains($0.key.lowercased()) } + overrides
    }

    /// The file's description, with `frames` when the caller already knows it.
    package func info(frames: Int64?, framesSource: LengthSource? = nil) -> AudioInfo {
        AudioInfo(
            path: url.displayPath, container: demuxer.formatName, containerName: demuxer.formatLongName,
            codec: parameters.codecName, codecName: parameters.codecLongName,
            sampleRate: parameters.sampleRate, channelCount: parameters.channelCount,
            channelLayout: parameters.channelLayoutName, sampleFormat: parameters.sampleFormatName,
            bitsPerSample: parameters.bitsPerSample, containerDuration: demuxer.durationSeconds,
            frames: frames, bitRate: demuxer.bitRate ?? parameters.bitRate,
            tags: Dictionary(tags.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first }),
            framesSource: framesSource, streamBitRate: parameters.bitRate,
            videoStreams: demuxer.videoStreamIndices().map { index in
                let stream = demuxer.videoStream(at: index)
                return VideoStreamInfo(index: index, codec: stream.codecName, width: stream.width, height: stream.height,
                                       frameRate: stream.averageFrameRate?.doubleValue, duration: stream.durationSeconds,
                                       isAttachedPicture: demuxer.isAttachedPicture(stream: index))
            })
    }

    /// Turns the common ways a path is not a readable file into clear errors before FFmpeg
    /// reports them as generic "Invalid data".
    /// Accepts regular files, and pipes (a FIFO, or standard input when it is one), which are
    /// read once, in order.
    package static func checkReadableFile(at url: URL) throws {
        // A URL is checked by opening it: what the server answers is the error.
        guard !url.isRemote else { return }
        let path = url.displayPath
        var status = stat()
        guard stat(url.path, &status) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw ReverseAudioError.input(.fileNotFound(path: path)) }
            throw ReverseAudioError.input(.unreadable(path: path, reason: String(cString: strerror(errno))))
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            guard access(url.path, R_OK) == 0 else {
                throw ReverseAudioError.input(.unreadable(path: path, reason: "permission denied"))
            }
            if status.st_size == 0 { throw ReverseAudioError.input(.emptyFile(path: path)) }
        case S_IFIFO, S_IFSOCK:
            break  // a pipe: streamed
        case S_IFDIR:
            throw ReverseAudioError.input(.isDirectory(path: path))
        case S_IFCHR where isTerminal(url):
            throw ReverseAudioError.input(.unreadable(path: path, reason: "it is a terminal; pipe the audio in (cat song.mp3 | reverse-audio … -)"))
        case S_IFCHR, S_IFBLK:
            throw ReverseAudioError.input(.unreadable(path: path, reason: "it is a device, not an audio file or a pipe"))
        default:
            throw ReverseAudioError.input(.unreadable(path: path, reason: "it is not a regular file or a pipe"))
        }
    }

    private static func isTerminal(_ url: URL) -> Bool {
        let descriptor = open(url.path, O_RDONLY | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return isatty(descriptor) == 1
    }

    /// True when `url` is a regular file, which can be read again and sought in (a pipe cannot),
    /// or a URL: one whose server does not answer byte ranges is refused when it is opened.
    package static func isSeekableFile(_ url: URL) -> Bool {
        if url.isRemote { return true }
        var status = stat()
        return stat(url.path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
    }

    /// The reason behind FFmpeg's bare `-1`, which `av_strerror` words as EPERM's "Operation
    /// not permitted" though no permission is involved (the file was checked readable first):
    /// FFmpeg 5.1's demuxers return it where they have no code for the problem. At an open
    /// from a pipe it is the AIFF reader finding the sound data before the COMM chunk (the
    /// order is legal): it must seek back for it, which a pipe cannot. Nil for any other
    /// error, and for an EPERM that carries a reason of our own (a refused input).
    private static func bareRefusal(_ error: FFmpegError, path: String, isSeekable: Bool) -> ReverseAudioError? {
        guard error.posixErrorNumber == EPERM, error.message == FFmpegError.text(for: error.code) else { return nil }
        if !isSeekable {
            return .input(.notSeekable(path: path, reason: "its header can only be read by seeking in it (as an AIFF whose COMM chunk "
                                          + "comes after its sound data), which a pipe cannot do; give the file by name"))
        }
        return .input(.notMedia(path: path, reason: "FFmpeg's reader of its format gave up without a reason (a bare error -1, "
                                    + "which FFmpeg words 'Operation not permitted'; the file itself is readable)"))
    }

    private static func openingError(_ error: FFmpegError, path: String) -> ReverseAudioError {
        if let errno = error.posixErrorNumber, errno == ENOENT { return .input(.fileNotFound(path: path)) }
        if let errno = error.posixErrorNumber, errno == EACCES || errno == EPERM {
            return .input(.unreadable(path: path, reason: error.message))
        }
        return .input(.notMedia(path: path, reason: error.message))
    }

    package static func describe(_ kinds: [MediaKind]) -> [String] {
        var counts: [(MediaKind, Int)] = []
        for kind in kinds {
            if let index = counts.firstIndex(where: { $0.0 == kind }) {
                counts[index].1 += 1
            } else {
                counts.append((kind, 1))
            }
        }
        return counts.map { "\($0.1) \($0.0.rawValue) stream\($0.1 == 1 ? "" : "s")" }
    }
}
