import FFmpeg
import Foundation
import ReverseAudioCore

/// A file's best audio stream, decoded: the one `PCMSource` over FFmpeg, and the only place
/// where demuxing, decoding, gapless trimming, pre-roll and lengths that headers misstate are
/// handled.
///
/// Samples come out interleaved in the stream's own sample format (24-bit FLAC as `SampleFormat/s24`,
/// MP3 as `SampleFormat/f32`), exactly as the `ffmpeg` CLI decodes them: the same demuxer,
/// decoder and gapless trimming (the LAME tag's delay and padding; an MP4 edit list's start,
/// and its end, as Apple's players honour it). Wrapped in a ``SampleConverter`` (for 16-bit, a
/// mix-down, another rate), the conversion happens in the same swresample pass as the
/// interleaving, so `SampleConverter(AudioFileSource(url:), sampleFormat: .s16)` equals
/// `ffmpeg -i FILE -f s16le -` byte for byte.
///
/// ``length`` is resolved the first time it is asked (see ``resolveLength()``); ``seek(to:endingAt:)``
/// restarts decoding the codec's pre-roll before its target so the next frame is exactly the
/// continuous decode's (bit-exact for PCM, FLAC, ALAC and MP3; AAC with noise substitution
/// differs in its noise bands). Memory stays flat: one decoded packet at a time.
///
/// ```swift
/// let source = try AudioFileSource(url: url)
/// print(source.format, try source.resolveLength())
/// while let chunk = try source.read(maximumFrames: 4096) { consume(chunk.bytes) }
/// ```
package final class AudioFileSource: PCMSource {
    /// The file.
    package let url: URL
    /// The decoder's threads when the file was opened (0: as many as it uses), and after every
    /// restart from the start.
    private var openedDecoderThreads: Int
    private var input: AudioInput
    private var positioner: FramePositioner
    private let isCancelled: @Sendable () -> Bool
    private let cancellation: CancellationFlag
    private var conversion: Conversion
    private var resampler: Resampler
    /// The samples delivered.
    package private(set) var format: PCMFormat
    /// The stream's own sample format.
    package let sourceSampleFormat: SampleFormat
    /// The index of the next frame read.
    package private(set) var position: Int64 = 0
    /// Where the container says the audio ends (an MP4 edit list's end), when it does.
    private let statedEnd: Int64?
    /// True until anything is delivered or sought: the first decoded frame is still held.
    private var atStart = true
    /// The rest of the last converted frame, not yet delivered.
    private var pending = PendingFrames()
    private var flushed = false
    private var resolution: LengthResolver.Resolution?
    /// The length reading gave, once it reached the end from the start or after a seek.
    private var decodedLength: Int64?
    /// True when the first frame came only after packets that would not decode.
    private var damagedAtStart = false
    /// Where in the file the stream's first packet starts, as the decode from the start read
    /// it when the file was opened (later positioners may start reading after a seek).
    private var streamStartPosition: Int64?
    /// The cap on the index FFmpeg keeps of the packets read, when one is set.
    private var indexMemoryLimit: Int?
    /// PCM read from the file without decoding, once the first read or seek found it possible.
    private var raw: RawPCMReader?
    private var rawDecided = false
    /// True once the demuxer failed to seek: FFmpeg 5.1's FLAC demuxer cannot seek in frames of
    /// some 150 KB or more (65535-sample blocks at 96 kHz) and reads nothing more afterwards, so
    /// every later seek opens the file again and reads it from the start, passing over the
    /// packets before the target without decoding them.
    private var seeksByReadingFromStart = false
    /// True once a seek met a stream whose frames depart from its stated rate or size: seeks
    /// decode from the start (``decodeFromStart(to:)``).
    private var seeksByDecodingFromStart = false

    /// What the samples are converted to on the way out.
    package struct Conversion: Equatable {
        package var sampleFormat: SampleFormat?
        package var sampleRate: Int?
        package var mixesToMono = false

        package init(sampleFormat: SampleFormat? = nil, sampleRate: Int? = nil, mixesToMono: Bool = false) {
            self.sampleFormat = sampleFormat
            self.sampleRate = sampleRate
            self.mixesToMono = mixesToMono
        }
    }

    /// Opens `url` (a regular file, or a pipe read once) and decodes its first packet, which
    /// fixes ``format``.
    /// - Parameters:
    ///   - url: the file.
    ///   - cancellation: polled between packets and by FFmpeg during blocking I/O; once set,
    ///     reading throws `CancellationError`.
    ///   - resolvingLength: find the length now, on this open of the file, before anything is
    ///     decoded (what a reversal, progress or a seek by index needs): the file is then opened
    ///     once. Otherwise it is found the first time ``length`` is asked, on an open of its own.
    ///   - checkingFrames: for a FLAC file, check every frame's CRC when resolving the length, to
    ///     find frames the decoder rejects before decoding (what a length, a seek or a warning
    ///     needs). A job that decodes the whole file leaves it to the decode, which reports each
    ///     such frame: the check is then made only when the decode met one (``warnings``).
    ///   - readersSideBySide: the whole file is decoded by readers side by side, each checking
    ///     what the length's resolution takes on trust: a FLAC stream's timestamps are taken for
    ///     its positions without a scan first (each reader checks that every frame continues the
    ///     one before), an MP3's length is its tag frame's (the packet index the first reader to
    ///     seek builds for all checks it). ``resolveForOneReader()`` resolves it fully when the
    ///     file is decoded otherwise.
    ///   - reading: the part of the file the job reads, when it reads up to an end: a FLAC
    ///     stream regular up to that end is scanned no further (nothing after it can move what
    ///     is read; a seek past it scans the rest first).
    ///   - seeking: the job seeks (a range, readers on other threads, playback): a length found
    ///     when the file is opened keeps an MP3's packet index for it. A job that reads the file
    ///     once from the start keeps none (about 9 MB an hour of MP3), so its memory stays flat.
    package convenience init(url: URL, cancellation: CancellationFlag? = nil, resolvingLength: Bool = false,
                             checkingFrames: Bool = true, readersSideBySide: Bool = false, reading range: TimeRange? = nil,
                             seeking: Bool = true) throws {
        try self.init(url: url, cancellation: cancellation ?? CancellationFlag(), sharing: nil, resolvingLength: resolvingLength,
                      checkingFrames: checkingFrames, readersSideBySide: readersSideBySide, reading: range, seeking: seeking)
    }

    /// Opens `url` again, taking `facts` another open of the same file learnt for its length and
    /// seek index instead of reading the file for them (``facts``): the decode, its seeks and
    /// its length are those of that open. Its decoder keeps to one thread.
    package convenience init(url: URL, facts: StreamFacts, cancellation: CancellationFlag? = nil) throws {
        try self.init(url: url, cancellation: cancellation ?? CancellationFlag(), sharing: facts.resolution, resolvingLength: false)
    }

    /// What resolving the length learnt, for later opens of the same file
    /// (``init(url:facts:cancellation:)``); nil until the length is resolved in full, and where
    /// an open of its own could not take it on trust (a pipe, a stream damaged at its start, a
    /// resolution left to readers side by side or stopped before the stream's end).
    package var facts: StreamFacts? {
        guard let resolution, resolution.length.frames != nil, decodedLength == nil, !damagedAtStart, input.isSeekable,
              !resolution.isForReadersSideBySide, resolution.checkedFrames, resolution.checkedThrough == nil,
              !resolution.positionsOnlyByDecoding,
              !input.traits.needsPacketIndex || resolution.index?.isComplete == true else { return nil }
        return StreamFacts(resolution: resolution, info: info)
    }

    /// Opens `url`; with `shared`, another reader's resolved length (and packet index) is taken
    /// instead of being resolved again.
    private init(url: URL, cancellation flag: CancellationFlag, sharing shared: LengthResolver.Resolution?,
                 resolvingLength: Bool, checkingFrames: Bool = true, readersSideBySide: Bool = false,
                 reading range: TimeRange? = nil, seeking: Bool = true) throws {
        self.url = url
        cancellation = flag
        isCancelled = flag.check
        // One of several readers decoding side by side keeps its decoder to its own thread.
        openedDecoderThreads = shared == nil ? 0 : 1
        let input = try AudioInput(url: url, isCancelled: flag.check, decoderThreads: openedDecoderThreads,
                                   describesPictures: shared == nil)
        self.input = input
        resolution = shared
        positioner = try mappingFFmpegErrors(path: input.path) { try FramePositioner(input: input, isCancelled: flag.check) }
        positioner.checksContinuity = shared?.positionsChecked == false
        sourceSampleFormat = SampleFormat(decodedBy: input.decoder)
        conversion = Conversion()
        resampler = Resampler(channels: .unchanged, type: sourceSampleFormat.sampleType)
        let parameters = input.parameters
        statedEnd = parameters.traits.followsContainerDuration ? parameters.statedDurationSamples.flatMap { $0 > 0 ? $0 : nil } : nil
        format = PCMFormat(sampleFormat: sourceSampleFormat, sampleRate: parameters.sampleRate, channelCount: parameters.channelCount,
                           channelLayoutName: parameters.channelLayoutName)
        adoptResolution()
        // FLAC's length is found before anything is decoded, always: which decode the stream
        // gives (on frame threads or one) depends on what the scan finds (see
        // ``LengthResolver/Resolution/decodesOnOneThread``).
        let isFLAC = parameters.traits.family == .flac
        if shared == nil && (resolvingLength || isFLAC) && input.isSeekable {
            // Found with this open's demuxer, which nothing has read yet (keeping an MP3's
            // packet index: the way back to its start); then decoding starts from the first
            // packet with a fresh decoder, as a fresh open would.
            // Without seeks an MP3 goes back to its start by a byte seek (exact for its demuxer)
            // and keeps no index; other streams keep it to go back by.
            let keepsIndex = parameters.traits.needsPacketIndex && (seeking || input.demuxer.formatName != "mp3")
            resolution = try LengthResolver.resolve(url, parameters: parameters, keepingIndex: keepsIndex,
                                                    damagedAtStart: false, isCancelled: flag.check, using: input,
                                                    checkingFrames: checkingFrames, readersSideBySide: readersSideBySide,
                                                    readingTo: Self.end(of: range, atRate: parameters.sampleRate))
            // A resolution for readers side by side is for decoders on one thread each.
            if resolution?.decodesOnOneThread == true || resolution?.isForReadersSideBySide == true { openedDecoderThreads = 1 }
            try restartFromStart(decoderThreads: openedDecoderThreads)
            damagedAtStart = positioner.skippedPackets > 0
            if damagedAtStart { resolution = nil }  // checked again by a whole decode, when asked
            format = outputFormat()
        } else {
            if isFLAC && openedDecoderThreads != 1 {
                // A pipe cannot be scanned first: decoded as every irregular FLAC stream is, on
                // one thread (the demuxer has read nothing yet that a new decoder would miss).
                openedDecoderThreads = 1
                let single = try input.withFreshDecoder(threads: 1)
                self.input = single
                positioner = try mappingFFmpegErrors(path: single.path) { try FramePositioner(input: single, isCancelled: flag.check) }
            }
            try decodeFirstFrame()
        }
        streamStartPosition = positioner.firstPacketPosition
    }

    /// Decodes the first frame, whose rate and channels are what the decode gives (a container
    /// may misstate them), and holds it for the first read.
    private func decodeFirstFrame() throws {
        if try positioner.next() { positioner.holdCurrentFrame() }
        damagedAtStart = positioner.skippedPackets > 0
        if damagedAtStart { resolution = nil }  // checked again by a whole decode, when asked
        format = outputFormat()
    }

    /// The file as it was named.
    package var name: String { input.path }

    /// The file's description, with the frame count once the length is resolved.
    package var info: AudioInfo {
        let length = self.length
        return input.info(frames: length.frames, framesSource: length.source)
    }

    /// The file's description with `frames`, a count the caller decoded.
    package func info(frames: Int64) -> AudioInfo {
        input.info(frames: frames, framesSource: .decode)
    }

    /// What a writer converting this file keeps of it: its codec (to keep its bit rate), tags.
    package var writerInput: AudioFileWriter.Input { input.writerInput }

    /// The file's own codec, as an output codec, when it is one we write.
    package var outputCodec: String? { input.outputCodec }

    /// The codec's traits in the file's container.
    package var traits: CodecTraits { input.traits }

    /// The opened file (for a cut that copies its packets, which reads them itself).
    package var openedInput: AudioInput { input }

    /// The frames of the first decoded packet before gapless trimming shortens it (an MP3's
    /// first frame is 1152 though only 47 samples survive the encoder-delay trim): the seed's
    /// block size.
    package var blockFrames: Int? {
        positioner.firstFrameCount.map { max($0, input.decoder.frameSize) }
    }

    /// What conversion changes on the way from the stream to ``format``, one phrase each
    /// ("sample format f32 → s16"); empty when the samples are the stream's own.
    package var conversions: [String] {
        var result: [String] = []
        if format.sampleFormat != sourceSampleFormat { result.append("sample format \(sourceSampleFormat) → \(format.sampleFormat)") }
        let rate = input.parameters.sampleRate
        if format.sampleRate != rate { result.append("sample rate \(rate) → \(format.sampleRate) Hz") }
        if conversion.mixesToMono { result.append("\(ChannelCountText.phrase(input.parameters.channelCount)) mixed to 1") }
        return result
    }

    // MARK: Length

    /// The frames the decode gives (see ``resolveLength()``); unknown for a pipe.
    package var length: PCMLength {
        if let decodedLength { return PCMLength(frames: decodedLength, source: .decode) }
        return (try? resolveLength()) ?? .unknown
    }

    /// Resolves the length without decoding the whole file, once: the container's statement,
    /// checked against the file (PCM's data size against the file's size; FLAC by decoding the
    /// frame that should be last); an MP4 edit list's end; otherwise the packets, read without
    /// decoding and summed as libavcodec will emit them. A decode that reaches another end
    /// later corrects it (and warns). Unless it was found when the file was opened
    /// (`resolvingLength`), it is found on this open when nothing was delivered yet and the
    /// decode can start again from the first packet exactly (what a range's first seek and a
    /// decision to split need: a WAV or an M4A range then opens its file once), else on an
    /// open of its own.
    /// - Throws: `CancellationError`.
    @discardableResult
    package func resolveLength() throws -> PCMLength {
        if let decodedLength { return PCMLength(frames: decodedLength, source: .decode) }
        if resolution == nil {
            resolution = try resolvedOnThisOpen()
                ?? LengthResolver.resolve(url, parameters: input.parameters, keepingIndex: false,
                                          damagedAtStart: damagedAtStart, isCancelled: isCancelled)
            // Where a rejected packet moved every later one, seeks go by the index made of them.
            adoptResolution()
        }
        if let departed = resolution, departed.positionsOnlyByDecoding, departed.length.frames == nil {
            resolution = try departed.counted(byDecoding: countedByDecoding())
        }
        return resolution!.length
    }

    /// The frames a decode of the whole stream delivers, converted as this reader converts
    /// them, and the packets it rejected, on an open of its own: the length of a stream whose
    /// frames depart from its stated rate or size, which nothing else tells.
    private func countedByDecoding() throws -> (frames: Int64, rejected: Int, reason: String?) {
        let counter = try AudioFileSource(url: url, cancellation: cancellation, sharing: nil, resolvingLength: false, seeking: false)
        _ = counter.adopt(conversion)
        var frames: Int64 = 0
        while let chunk = try counter.read(maximumFrames: 1 << 16) { frames += Int64(chunk.frameCount) }
        return (frames, counter.positioner.skippedPackets, counter.positioner.firstSkipReason)
    }

    /// The length resolved with this open's demuxer, brought back to the first packet, and the
    /// decode restarted from there as a fresh open decodes; nil where that is not exact (after
    /// anything was delivered; a stream seeking by a packet index, which this resolution does
    /// not keep; one whose start trimming only a first read gives) or the demuxer cannot go back.
    private func resolvedOnThisOpen() throws -> LengthResolver.Resolution? {
        guard atStart, pending.isEmpty, !damagedAtStart, input.isSeekable, input.restartsExactlyFromStart,
              !input.traits.needsPacketIndex, !seeksByReadingFromStart else { return nil }
        do {
            try input.rewindDemuxer()
        } catch {
            if error.isInterrupted { throw CancellationError() }
            return nil
        }
        let resolved = try LengthResolver.resolve(url, parameters: input.parameters, keepingIndex: false, damagedAtStart: false,
                                                  isCancelled: isCancelled, using: input)
        resolution = resolved
        // On as many decoder threads as before (a reader kept to one stays so).
        try restartFromStart()
        return resolved
    }

    /// Seeks by the packet index the resolution made, when it made one, or by the one readers
    /// side by side share.
    private func adoptResolution() {
        if let index = resolution?.index { positioner.adopt(index) }
        positioner.sharedIndex = resolution?.indexToShare
        // A stream that seeks by a packet index of ours (MP3, ADTS AAC) never uses the demuxer's
        // own index of the packets read, which only costs: each byte seek's estimated timestamps
        // make it insert into the middle of it, and a stream counted on this open and read again
        // from its first packet inserts every packet so (a tenth of a 30-minute MP3's decode on
        // one thread, 3 MB an hour), as readers side by side do after every seek.
        if input.traits.needsPacketIndex && indexMemoryLimit == nil { limitIndexMemory(to: 4096) }
    }

    /// Starts decoding again from the stream's first packet with a fresh decoder, exactly as a
    /// fresh open decodes, and (unless the caller seeks next) decodes the first frame: on this
    /// open of the file where a seek back is exact (``AudioInput/restartsExactlyFromStart``) and
    /// lands on the first frame, else on a new open.
    /// - Parameter decoderThreads: the fresh decoder's threads (nil: as the last one's).
    /// - Returns: the frame reached (0, or the end of an empty stream).
    @discardableResult
    private func restartFromStart(decodingFirstFrame: Bool = true, decoderThreads: Int? = nil,
                                  reopening: Bool = false) throws -> Int64 {
        let threads = decoderThreads ?? input.decoderThreads
        let indexed = input.traits.needsPacketIndex
        // An index readers side by side share, not built yet, or an MP3 counted without keeping
        // one (read once, without seeks): back to the first packet by a byte seek. (An index
        // kept but left incomplete, by damage, opens the file again.)
        let countedWithoutIndex = resolution?.index == nil && input.demuxer.formatName == "mp3" ? resolution?.streamStart : nil
        let sharedIndexStart = indexed && resolution?.index?.isComplete != true
            ? resolution?.indexToShare?.streamStart ?? countedWithoutIndex : nil
        let rewinds = !reopening && input.isSeekable && input.restartsExactlyFromStart
            && (!indexed || resolution?.index?.isComplete == true || sharedIndexStart != nil)
        let fresh: AudioInput
        if rewinds && !seeksByReadingFromStart {
            fresh = try input.withFreshDecoder(threads: threads)
            // A stream decoded by a packet index goes back by the index (its first seek).
            if let sharedIndexStart {
                try mappingFFmpegErrors(path: fresh.path) { try fresh.demuxer.seek(toByte: sharedIndexStart) }
            } else if !indexed {
                do {
                    try fresh.rewindDemuxer()
                } catch {
                    if error.isInterrupted { throw CancellationError() }
                    // A demuxer that cannot seek is opened again (``seeksByReadingFromStart``).
                    seeksByReadingFromStart = true
                    return try restartFromStart(decodingFirstFrame: decodingFirstFrame, decoderThreads: threads, reopening: true)
                }
            }
        } else {
            fresh = try AudioInput(url: url, isCancelled: isCancelled, decoderThreads: threads)
        }
        if let indexMemoryLimit { fresh.demuxer.limitIndexMemory(to: indexMemoryLimit) }
        let flag = isCancelled
        positioner = try mappingFFmpegErrors(path: fresh.path) { try FramePositioner(input: fresh, isCancelled: flag) }
        positioner.checksContinuity = checksPositions
        input = fresh
        resampler = makeResampler()
        adoptResolution()
        guard decodingFirstFrame else { return 0 }
        if positioner.hasCompleteIndex {
            // Every packet stamped from the index, as a read in order from the start stamps it
            // (the demuxer's own stamps are estimates after a seek).
            return try positioner.seek(toFrame: 0, decodingUntil: nil)
        }
        let decoded = try positioner.next()
        if rewinds && !indexed && !fresh.traits.followsContainerDuration {
            // A seek back by timestamp in a damaged file can land past its first frames, or past
            // every one: then it is opened again.
            let start = fresh.parameters.startSamples ?? 0
            if !decoded || positioner.frameTimestampSamples.map({ $0 != start }) == true {
                return try restartFromStart(decoderThreads: threads, reopening: true)
            }
        }
        if decoded { positioner.holdCurrentFrame() }
        return 0
    }

    /// Why nothing tells the length before decoding, when nothing does.
    package var lengthUnknownReason: String? { resolution?.unknownReason }

    /// Resolves the length and keeps every packet's place on the way (MP3, ADTS AAC), for a
    /// reader that will seek often (playback).
    package func resolveLengthKeepingIndex() throws -> PCMLength {
        // Also when the length was resolved without keeping the index (a range asked for it first).
        if input.traits.needsPacketIndex, resolution?.index == nil, resolution?.indexToShare == nil {
            resolution = try LengthResolver.resolve(url, parameters: input.parameters, keepingIndex: true,
                                                   damagedAtStart: damagedAtStart, isCancelled: isCancelled)
            adoptResolution()
        }
        return try resolveLength()
    }

    /// Whether decoding `range` (nil: everything) on several threads repays what readers on
    /// other threads need first: the length, and for an MP3 the place of every packet (they
    /// seek by it). A stated length costs nothing; an MP3's packets cost a read of every packet
    /// header of the file (about 0.1 s an hour), which a range repays only when it is a good
    /// share of the file (a seek alone reads just the packets before its target).
    package func readersRepaySetUp(for range: Range<Int64>?) -> Bool {
        guard let range, input.traits.needsPacketIndex else { return true }
        guard let seconds = input.demuxer.durationSeconds, seconds > 0 else { return false }
        let fileFrames = seconds * Double(format.sampleRate)
        let kept = min(Double(range.upperBound), fileFrames) - Double(range.lowerBound)
        return kept >= fileFrames / 4
    }

    /// Why a range that does not ``readersRepaySetUp(for:)`` is decoded on one thread.
    package static let shortRangeReason = "the range is less than a quarter of the file: finding every packet for other threads would cost more than they save"

    // MARK: Readers on other threads

    /// Why the file cannot be decoded by several readers side by side, each seeking exactly;
    /// nil when it can. Its length must be resolved first (and for an MP3 its packet index,
    /// which the readers share).
    package var splitRefusal: String? {
        if !input.isSeekable { return "the input is a pipe, read once" }
        switch input.traits.seekExactness {
        case .bitExact: break
        case .bitExactWithoutNoiseSubstitution:
            return "\(input.traits.name)'s decode restarted after a seek is not bit-exact (its noise substitution draws from the whole decode before it)"
        case .converges: return "\(input.traits.name)'s decode restarted after a seek is not bit-exact"
        }
        if conversion.sampleRate != nil { return "the sample rate is converted (a resampler's output depends on everything before it)" }
        if !input.parameters.timestampsResolveSamples {
            return "its timestamps do not name samples: every seek decodes from the start"
        }
        if damagedAtStart { return "the stream is damaged at its start" }
        if resolution?.positionsOnlyByDecoding == true { return LengthResolver.departureSplitReason }
        guard decodedLength == nil, let resolution, resolution.length.frames != nil,
              !input.traits.needsPacketIndex || resolution.index != nil || resolution.indexToShare != nil else {
            return "the length is not known before decoding"
        }
        if input.traits.needsPacketIndex && resolution.index?.isComplete != true && resolution.indexToShare == nil {
            return "only the stream's last packets are indexed (read from a URL): readers on other threads would each fetch the file"
        }
        return nil
    }

    /// Why PCM read straight from the file is read on one thread.
    package static let storedSamplesReason = "PCM read straight from the file: one thread moves it as fast as the page cache gives it (two measured slower)"

    /// A new reader of the same frames on an open of its own, at frame 0, sharing this
    /// reader's resolved length and packet index (complete, so never changing again, or built
    /// once for all by the first reader to seek); its decoder keeps to its own thread. Only
    /// when ``splitRefusal`` is nil.
    package func openReader() throws -> AudioFileSource {
        try AudioFileSource(url: url, cancellation: cancellation, sharing: resolution, resolvingLength: false)
    }

    /// Problems the decode met so far that a continuous decode reports (skipped packets, a read
    /// that stopped early): a segment during which this grows met damage.
    package var problemCount: Int {
        positioner.skippedPackets + (positioner.readFailure == nil ? 0 : 1) + positioner.discontinuities
            + (positioner.sharedIndexDisagrees ? 1 : 0)
    }

    /// Where in the file the frames read come from, while its readers check its positions
    /// (``checksPositions``): the scheduler checks that segments read side by side meet.
    package var segmentMarks: SegmentMarks? {
        guard checksPositions else { return nil }
        return SegmentMarks(inputStart: streamStartPosition, landing: positioner.landingPacketPosition,
                            current: positioner.framePacketPosition)
    }

    /// True while the stream's timestamps are taken for the decode's positions unchecked
    /// (``LengthResolver/Resolution/positionsChecked``): every reader checks them as it decodes.
    private var checksPositions: Bool { resolution?.positionsChecked == false }

    /// Resolves the length fully where it was resolved for readers side by side
    /// (``LengthResolver/Resolution/isForReadersSideBySide``), before one reader decodes the
    /// file alone, or again after readers side by side met what only one continuous decode
    /// handles: a FLAC stream is scanned, an MP3's packets counted (on this open, from its first
    /// packet); the length, the index and the decoder's threads are then as when the file is
    /// opened without readers side by side. At the stream's start.
    package func resolveForOneReader() throws {
        guard let provisional = resolution, provisional.isForReadersSideBySide else { return }
        var given: AudioInput?
        if let start = provisional.indexToShare?.streamStart {
            let rewound = try input.withFreshDecoder()
            try mappingFFmpegErrors(path: rewound.path) { try rewound.demuxer.seek(toByte: start) }
            given = rewound
        }
        let resolved = try LengthResolver.resolve(url, parameters: input.parameters, keepingIndex: input.traits.needsPacketIndex,
                                                  damagedAtStart: false, isCancelled: isCancelled, using: given, checkingFrames: false)
        resolution = resolved
        openedDecoderThreads = resolved.decodesOnOneThread ? 1 : 0
        try restart()
    }

    /// Makes this reader as it was when opened: at frame 0, nothing decoded, its warnings
    /// forgotten, its decoder on as many threads as at first (a fresh decode after readers side
    /// by side met damage).
    package func restart() throws {
        if resolution?.isForReadersSideBySide == true {
            try resolveForOneReader()
            return
        }
        pending.clear()
        flushed = false
        decodedLength = nil
        position = 0
        try restartFromStart(decoderThreads: openedDecoderThreads)
        atStart = true
    }

    /// Keeps the decoder to one thread, as every other reader beside this one does (a decoder's
    /// own frame threads would hide the damage a reader must see: FLAC's reports a bad frame
    /// only when decoded on one thread). Only before anything is delivered.
    package func decodeOnOneThread() throws {
        guard input.decoderThreads != 1, atStart, pending.isEmpty else { return }
        try restartFromStart(decoderThreads: 1)
    }

    // MARK: Reading

    /// Lends the next frames, at most `maximumFrames` (see `PCMSource/read(maximumFrames:)`).
    package func read(maximumFrames: Int) throws -> PCMChunk? {
        if !rawDecided { decideRaw() }
        if let raw {
            if isCancelled() { throw CancellationError() }
            guard let chunk = try raw.read(maximumFrames: maximumFrames) else {
                reachEnd()
                return nil
            }
            position = raw.position
            atStart = false
            return chunk
        }
        let frameBytes = format.bytesPerFrame
        while true {
            if let chunk = pending.take(maximumFrames, frameBytes: frameBytes, position: position) {
                position += Int64(chunk.frameCount)
                atStart = false
                return chunk
            }
            if flushed || (statedEnd.map { position >= $0 } ?? false) {
                reachEnd()
                return nil
            }
            if isCancelled() { throw CancellationError() }
            if try positioner.next() {
                let converted = try convert { () throws(FFmpegError) in try resampler.convert(positioner.frame) }
                keep(converted, dropping: positioner.leadingSamplesToDrop)
            } else {
                flushed = true
                keep(try convert { () throws(FFmpegError) in try resampler.flush() }, dropping: 0)
            }
        }
    }

    /// Makes `converted` (less `leading` frames, and anything past the stated end) the next to deliver.
    private func keep(_ converted: UnsafeRawBufferPointer, dropping leading: Int) {
        let frameBytes = format.bytesPerFrame
        guard frameBytes > 0, let base = converted.baseAddress, converted.count > leading * frameBytes else { return }
        var frames = converted.count / frameBytes - leading
        if let statedEnd { frames = Int(min(Int64(frames), max(0, statedEnd - position))) }
        guard frames > 0 else { return }
        let start = base + leading * frameBytes
        if format.sampleFormat == .s24 && ![.u8, .s16, .s24].contains(sourceSampleFormat) {
            // Samples narrowed to 24 bits keep only their top 24, as FFmpeg's 24-bit PCM encoders do.
            let samples = UnsafeMutableRawPointer(mutating: start).assumingMemoryBound(to: Int32.self)
            for index in 0..<(frames * frameBytes / 4) { samples[index] &= ~0xFF }
        }
        pending.set(start, frames: frames)
    }

    /// Reads PCM straight from the file from now on when its bytes are the decoded samples, no
    /// conversion is asked, and its data's place and length are known (a regular file whose
    /// first packet was decoded cleanly).
    /// True when a seek searches the file for its place (a FLAC file without a seek table, Ogg):
    /// no packet index of ours, no table of the container's, no arithmetic of PCM's. Such a
    /// seek costs about a millisecond. A container's table fills the demuxer's index when the
    /// file opens (an hour of M4A: 155,000 entries; a FLAC seek table: one every 10 s); without
    /// one it holds only the few packets probing read (3 for a FLAC file).
    package var seeksBySearching: Bool {
        !input.traits.needsPacketIndex && input.traits.family != .pcm
            && input.demuxer.indexEntryCount(stream: input.streamIndex) < 16
    }

    /// True when the samples are read straight from the file (PCM whose bytes are the samples,
    /// no conversion): no decoder, so nothing for other threads to share.
    package var readsStoredSamples: Bool {
        if !rawDecided { decideRaw() }
        return raw != nil
    }

    private func decideRaw() {
        guard input.traits.storesDecodedSamples, input.isSeekable, conversion == Conversion(), statedEnd == nil, !damagedAtStart,
              format.sampleFormat == sourceSampleFormat, input.parameters.blockAlign == format.bytesPerFrame else {
            rawDecided = true
            return
        }
        let frames = (try? resolveLength())?.frames
        rawDecided = true
        guard let frames, let dataStart = positioner.firstPacketPosition else { return }
        raw = RawPCMReader(demuxer: input.demuxer, path: name, dataStart: dataStart, frameBytes: format.bytesPerFrame, frames: frames)
    }

    /// The frame `range` ends at, at `rate`, when it has an end.
    private static func end(of range: TimeRange?, atRate rate: Int) -> Int64? {
        guard let end = range.flatMap({ try? $0.frames(atRate: rate).upperBound }), end != .max else { return nil }
        return end
    }

    /// Notes where the stream ended: the length reading gave.
    private func reachEnd() {
        if decodedLength == nil || position > decodedLength! { decodedLength = position }
    }

    /// Moves so the next frame read is `frame` (see `PCMSource/seek(to:endingAt:)`).
    @discardableResult
    package func seek(to frame: Int64, endingAt end: Int64?) throws -> SeekedTo {
        guard frame >= 0 else { throw ReverseAudioError.range(.cannotSeek(path: name, frame: frame, reason: "a frame index is never negative")) }
        if frame == 0 && atStart { return SeekedTo(required: 0, reached: 0) }
        if !rawDecided { decideRaw() }
        if let raw {
            position = raw.seek(to: frame)
            atStart = false
            return SeekedTo(required: frame, reached: position)
        }
        if conversion.sampleRate != nil && frame != 0 {
            throw ReverseAudioError.range(.cannotSeek(path: name, frame: frame, reason: "the sample rate is being converted; convert the range first"))
        }
        pending.clear()
        flushed = false
        if input.traits.family == .flac && input.isSeekable && decodedLength == nil
            && (resolution == nil || resolution?.checkedThrough.map { frame >= $0 } == true) {
            // A frame rejected before the target moves it earlier in the decode than its
            // timestamp says: resolving the length finds such frames first (``FLACDamageScan``),
            // here past where a range's scan stopped (on an open of its own).
            let partly = resolution != nil
            resolution = nil
            _ = try resolveLength()
            if partly && resolution?.decodesOnOneThread == true {
                openedDecoderThreads = 1
                try restartFromStart(decodingFirstFrame: false, decoderThreads: 1)
            }
        }
        var reached: Int64
        if seeksByDecodingFromStart || resolution?.positionsOnlyByDecoding == true {
            reached = try decodeFromStart(to: frame)
        } else if frame == 0 && input.traits.restartsWithFreshDecoder && input.isSeekable {
            // A fresh decoder from the start decodes exactly as the continuous decode does, even
            // where a seek cannot (AAC's noise substitution draws from the decoder's history).
            reached = try restartFromStart()
        } else if input.isSeekable && input.traits.isLossy
                    && (frame <= Int64(input.traits.prerollSamples) || !input.timestampsArePositions) {
            // A restart at the stream's first packet: its start trimming (an encoder's delay, an
            // Opus pre-skip) reaches the decoder as a fresh open's does.
            try restartFromStart(decodingFirstFrame: false)
            reached = try seekOrReadFromStart(toFrame: frame, decodingUntil: end)
        } else if seeksByReadingFromStart {
            reached = try readFromStart(toFrame: frame)
        } else {
            resampler.reset()
            reached = try seekOrReadFromStart(toFrame: frame, decodingUntil: end)
        }
        if let statedEnd { reached = min(reached, statedEnd) }
        position = reached
        atStart = false
        return SeekedTo(required: frame, reached: reached)
    }

    /// Seeks to `frame`; where the demuxer cannot seek (FFmpeg 5.1's FLAC demuxer through large
    /// frames, MP3 in a WAV file), reads from the start instead, from then on.
    private func seekOrReadFromStart(toFrame frame: Int64, decodingUntil end: Int64?) throws -> Int64 {
        do {
            return try positioner.seek(toFrame: frame, decodingUntil: end)
        } catch is FramePositioner.SeekUnavailable {
            seeksByReadingFromStart = true
            return try readFromStart(toFrame: frame)
        } catch is FramePositioner.PositionsOnlyByDecoding {
            return try decodeFromStart(to: frame)
        }
    }

    /// Reaches `frame` by decoding from the first packet, through the conversion, and passing
    /// over what comes before it: the one way for a stream whose frames depart from its stated
    /// rate or size (their samples are converted to the first frame's rate on the way out, so
    /// neither packets nor timestamps count them), from then on. Costs decoding up to `frame`.
    private func decodeFromStart(to frame: Int64) throws -> Int64 {
        seeksByDecodingFromStart = true
        try restartFromStart()
        pending.clear()
        flushed = false
        position = 0
        while position < frame {
            guard try read(maximumFrames: Int(min(frame - position, 1 << 16))) != nil else { break }
        }
        return position
    }

    /// Reaches `frame` on a new open of the file, read from its start (see
    /// ``seeksByReadingFromStart``).
    private func readFromStart(toFrame frame: Int64) throws -> Int64 {
        try restartFromStart(decodingFirstFrame: false, reopening: true)
        return try positioner.readFromStart(toFrame: frame)
    }

    /// Caps the index FFmpeg builds of the packets it reads (WAV, FLAC, MP3 keep one), for a
    /// reader that goes backwards: each entry is inserted in timestamp order, so reading a file
    /// from its end moves the whole index once per packet, which a small cap keeps cheap.
    package func limitIndexMemory(to bytes: Int) {
        indexMemoryLimit = bytes
        input.demuxer.limitIndexMemory(to: bytes)
    }

    // MARK: Conversion

    /// Takes over a conversion a ``SampleConverter`` would otherwise do on the interleaved
    /// samples, so it happens in the interleaving pass. Only before anything is delivered.
    /// - Returns: false when it is too late.
    package func adopt(_ requested: Conversion) -> Bool {
        guard atStart, pending.isEmpty else { return false }
        conversion = requested
        resampler = makeResampler()
        format = outputFormat()
        return true
    }

    private func makeResampler() -> Resampler {
        Resampler(channels: conversion.mixesToMono ? .mixedToMono : .unchanged,
                  type: (conversion.sampleFormat ?? sourceSampleFormat).sampleType, sampleRate: conversion.sampleRate)
    }

    /// The format delivered: the conversion's, on the first frame's rate and channels.
    private func outputFormat() -> PCMFormat {
        let held = positioner.frame
        let rate = conversion.sampleRate ?? (held.sampleRate > 0 ? held.sampleRate : input.parameters.sampleRate)
        let channels = held.channelCount > 0 ? held.channelCount : input.parameters.channelCount
        let sampleFormat = conversion.sampleFormat ?? sourceSampleFormat
        if conversion.mixesToMono {
            return PCMFormat(sampleFormat: sampleFormat, sampleRate: rate, channelCount: 1, channelLayoutName: "mono")
        }
        return PCMFormat(sampleFormat: sampleFormat, sampleRate: rate, channelCount: channels,
                         channelLayoutName: input.parameters.channelLayoutName ?? ChannelLayout(defaultFor: channels).name)
    }

    /// Runs a sample conversion, naming the file and the reason when swresample refuses it.
    private func convert(_ conversion: () throws(FFmpegError) -> UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer {
        do {
            return try conversion()
        } catch {
            var reason = "\(error.operation) failed (\(error.message))"
            let channels = positioner.frame.channelCount
            if channels > Resampler.maximumChannelCount {
                reason += ": the converter handles at most \(Resampler.maximumChannelCount) channels and the file has \(channels)"
            }
            throw ReverseAudioError.input(.decodingFailed(path: name, reason: reason))
        }
    }

    // MARK: Warnings

    /// Checks the frames a resolution left unchecked (``init(url:cancellation:resolvingLength:checkingFrames:)``)
    /// once the decode met what a check would have found (a rejected frame, another length), so
    /// that the warnings say what every other command says of the file. On an open of its own.
    private func checkFramesAfterDamage() {
        guard let unchecked = resolution, !unchecked.checkedFrames else { return }
        let lengthDiffers = decodedLength.map { $0 != unchecked.length.frames } ?? false
        guard positioner.skippedPackets > 0 || lengthDiffers else { return }
        if let checked = try? LengthResolver.resolve(url, parameters: input.parameters, keepingIndex: false, damagedAtStart: false,
                                                     isCancelled: isCancelled) {
            resolution = checked
            checkedAfterDecode = true
        }
    }

    /// True once ``checkFramesAfterDamage()`` checked the frames: its count of rejected frames is
    /// the file's (a decode that went through the file twice, its length learnt, met each twice).
    private var checkedAfterDecode = false

    /// Problems met so far that did not stop decoding (skipped packets, a truncated file, a
    /// header that misstates the length), as the `ffmpeg` CLI would have logged them.
    package var warnings: [ReverseAudioWarning] {
        checkFramesAfterDamage()
        var kinds: [ReverseAudioWarning.Kind] = []
        // What the decode met so far, or what resolving the length found of the whole file
        // (every command says the same of a file, whatever part of it it decodes).
        let rejected = resolution?.rejectedPackets ?? 0
        let skipped = checkedAfterDecode && rejected > 0 ? rejected : max(positioner.skippedPackets, rejected)
        if skipped > 0 {
            let reason = positioner.firstSkipReason ?? resolution?.rejectionReason ?? FFmpegError.invalidDataText
            kinds.append(.skippedPackets(count: skipped, reason: reason))
        }
        if let failure = positioner.readFailure { kinds.append(.readStoppedEarly(reason: failure)) }
        let damaged = skipped > 0 || positioner.readFailure != nil
        let parameters = input.parameters
        let rate = parameters.sampleRate
        // The length used, at the stream's rate: what decoding gave, or what resolving found.
        let known = decodedLength.map { format.sampleRate == rate ? $0 : $0 * Int64(rate) / Int64(max(format.sampleRate, 1)) }
            ?? resolution?.length.frames
        // At another rate whole output frames are counted: mapped back, the count is uncertain by
        // one output frame's worth of stream frames (at 1 Hz, half a second rounds to nothing).
        let slack = format.sampleRate == rate ? 0 : Int64(rate / max(format.sampleRate, 1)) + 1
        // The header's own statement where FFmpeg states what the file holds instead (a WAV cut
        // short); otherwise FFmpeg's, unless it only estimated it from the bit rate.
        let statement = resolution?.declaredFrames
            ?? (input.demuxer.durationIsEstimatedFromBitRate ? nil : parameters.statedDurationSamples)
        if let stated = statement, stated > 0, let known, abs(known - stated) > slack {
            if parameters.traits.containerStatesLength {
                // PCM and FLAC state their length exactly: any difference is worth a word. Less
                // audio than stated is a file cut short unless every frame decoded cleanly (a
                // FLAC header that is simply wrong), or packets rejected inside the stream held
                // what is missing (a file damaged, not cut).
                let cutShort = known < stated && (damaged || parameters.traits.family == .pcm || resolution?.endIsDamaged == true)
                if known < stated && resolution?.losesFramesInside == true {
                    kinds.append(.damagedPacketsLost(decodedFrames: known, statedFrames: stated, sampleRate: rate))
                } else if known > stated && damaged {
                    // More than stated, though frames were lost: the header is wrong, but not
                    // every frame is intact.
                    kinds.append(.lengthDiffers(predictedFrames: stated, decodedFrames: known, isRange: false))
                } else {
                    kinds.append(cutShort ? .truncated(decodedFrames: known, statedFrames: stated, sampleRate: rate)
                                          : .headerMisstatesLength(statedFrames: stated, decodedFrames: known, sampleRate: rate))
                }
            } else if stated - known > max(stated / 20, 8192) {
                // Other containers state lengths roughly (ALAC in CAF over-states by up to a packet).
                kinds.append(.truncated(decodedFrames: known, statedFrames: stated, sampleRate: rate))
            }
        }
        if let decodedLength, let predicted = resolution?.length, predicted.source == .packets,
           let frames = predicted.frames, frames != decodedLength, kinds.isEmpty {
            kinds.append(.lengthDiffers(predictedFrames: frames, decodedFrames: decodedLength, isRange: false))
        }
        if decodedLength == 0 && (slack == 0 || (parameters.statedDurationSamples ?? 0) <= slack) { kinds.append(.noSamples) }
        return kinds.map { ReverseAudioWarning($0, subject: name) }
    }
}

extension AudioFileSource {
    /// The frames `url` decodes to, or nil if it cannot be decoded (cancellation still
    /// stops): how a file written without decoding (a packet copy) is checked before it is kept.
    package static func decodedFrames(of url: URL, cancellation: CancellationFlag) throws -> Int64? {
        do {
            let check = try AudioFileSource(url: url, cancellation: cancellation)
            while try check.read(maximumFrames: .max) != nil {}
            return check.position
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return nil
        }
    }
}
