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
///
/// The type is one concept in several files, one per part of its contract: this one opens and
/// reads; `+Length`, `+Seeking`, `+Restart`, `+Readers`, `+Conversion` and `+Warnings` do the rest.
/// Its state is internal rather than private only so that those files reach it; nothing else
/// in the module does.
package final class AudioFileSource: PCMSource {
    /// The file.
    package let url: URL
    /// The decoder's threads when the file was opened (0: as many as it uses), and after every
    /// restart from the start.
    var openedDecoderThreads: Int
    var input: AudioInput
    var positioner: FramePositioner
    let isCancelled: @Sendable () -> Bool
    let cancellation: CancellationFlag
    var conversion: Conversion
    var resampler: Resampler
    /// The samples delivered.
    package internal(set) var format: PCMFormat
    /// The stream's own sample format.
    package let sourceSampleFormat: SampleFormat
    /// The index of the next frame read.
    package internal(set) var position: Int64 = 0
    /// Where the container says the audio ends (an MP4 edit list's end), when it does.
    let statedEnd: Int64?
    /// True until anything is delivered or sought: the first decoded frame is still held.
    var atStart = true
    /// The rest of the last converted frame, not yet delivered.
    var pending = PendingFrames()
    var flushed = false
    var resolution: LengthResolver.Resolution?
    /// The length reading gave, once it reached the end from the start or after a seek.
    var decodedLength: Int64?
    /// True when the first frame came only after packets that would not decode.
    var damagedAtStart = false
    /// Where in the file the stream's first packet starts, as the decode from the start read
    /// it when the file was opened (later positioners may start reading after a seek).
    var streamStartPosition: Int64?
    /// The cap on the index FFmpeg keeps of the packets read, when one is set.
    var indexMemoryLimit: Int?
    /// True when the length, whenever found, keeps every packet's place (``OpenPlan/keepsPacketIndex``).
    let keepsPacketIndex: Bool
    /// PCM read from the file without decoding, once the first read or seek found it possible.
    var raw: RawPCMReader?
    var rawDecided = false
    /// True once the demuxer failed to seek: FFmpeg 5.1's FLAC demuxer cannot seek in frames of
    /// some 150 KB or more (65535-sample blocks at 96 kHz) and reads nothing more afterwards, so
    /// every later seek opens the file again and reads it from the start, passing over the
    /// packets before the target without decoding them.
    var seeksByReadingFromStart = false
    /// True once a seek met a stream whose frames depart from its stated rate or size: seeks
    /// decode from the start (``decodeFromStart(to:)``).
    var seeksByDecodingFromStart = false

    /// Opens `url` (a regular file, or a pipe read once) and decodes its first packet, which
    /// fixes ``format``.
    /// - Parameters:
    ///   - url: the file.
    ///   - cancellation: polled between packets and by FFmpeg during blocking I/O; once set,
    ///     reading throws `CancellationError`.
    ///   - plan: what the opening prepares before decoding, as the job needs (``OpenPlan``).
    package convenience init(url: URL, cancellation: CancellationFlag? = nil, plan: OpenPlan = OpenPlan()) throws {
        try self.init(url: url, cancellation: cancellation ?? CancellationFlag(), sharing: nil, plan: plan)
    }

    /// Opens `url` again, taking `facts` another open of the same file learnt for its length and
    /// seek index instead of reading the file for them (``facts``): the decode, its seeks and
    /// its length are those of that open. Its decoder keeps to one thread. Of `plan`, only what
    /// is not about finding the length applies (``OpenPlan/demuxerIndexBytes``).
    package convenience init(url: URL, facts: StreamFacts, cancellation: CancellationFlag? = nil, plan: OpenPlan = OpenPlan()) throws {
        try self.init(url: url, cancellation: cancellation ?? CancellationFlag(), sharing: facts.resolution, plan: plan)
    }

    /// Opens `url`; with `shared`, another reader's resolved length (and packet index) is taken
    /// instead of being resolved again.
    init(url: URL, cancellation flag: CancellationFlag, sharing shared: LengthResolver.Resolution?, plan: OpenPlan) throws {
        self.url = url
        cancellation = flag
        keepsPacketIndex = plan.keepsPacketIndex
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
        if shared == nil && (plan.resolvesLength || isFLAC) && input.isSeekable {
            // Found with this open's demuxer, which nothing has read yet (keeping an MP3's
            // packet index: the way back to its start); then decoding starts from the first
            // packet with a fresh decoder, as a fresh open would.
            // Without seeks an MP3 goes back to its start by a byte seek (exact for its demuxer)
            // and keeps no index; other streams keep it to go back by.
            let keepsIndex = parameters.traits.needsPacketIndex && (plan.seeks || input.demuxer.formatName != "mp3")
            resolution = try LengthResolver.resolve(url, parameters: parameters, keepingIndex: keepsIndex,
                                                    damagedAtStart: false, isCancelled: flag.check, using: input,
                                                    checkingFrames: plan.checksFrames, readersSideBySide: plan.readersSideBySide,
                                                    readingTo: Self.end(of: plan.range, atRate: parameters.sampleRate))
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
        if let bytes = plan.demuxerIndexBytes { limitIndexMemory(to: bytes) }
    }

    /// Decodes the first frame, whose rate and channels are what the decode gives (a container
    /// may misstate them), and holds it for the first read.
    func decodeFirstFrame() throws {
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

    /// The opened file: its codec's traits, tags and output codec, for what writes from it, and
    /// its packets, for a cut that copies them.
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
    func keep(_ converted: UnsafeRawBufferPointer, dropping leading: Int) {
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

    /// True when the samples are read straight from the file (PCM whose bytes are the samples,
    /// no conversion): no decoder, so nothing for other threads to share.
    var readsStoredSamples: Bool {
        if !rawDecided { decideRaw() }
        return raw != nil
    }

    /// Reads PCM straight from the file from now on when its bytes are the decoded samples, no
    /// conversion is asked, and its data's place and length are known (a regular file whose
    /// first packet was decoded cleanly).
    func decideRaw() {
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
    static func end(of range: TimeRange?, atRate rate: Int) -> Int64? {
        guard let end = range.flatMap({ try? $0.frames(atRate: rate).upperBound }), end != .max else { return nil }
        return end
    }

    /// Notes where the stream ended: the length reading gave.
    func reachEnd() {
        if decodedLength == nil || position > decodedLength! { decodedLength = position }
    }

    /// True once ``checkFramesAfterDamage()`` checked the frames: its count of rejected frames is
    /// the file's (a decode that went through the file twice, its length learnt, met each twice).
    var checkedAfterDecode = false

}
