import FFmpeg
import Foundation

/// Decodes a file's best audio stream to interleaved PCM, block by block, in the stream's own
/// sample format or one you choose.
///
/// With the default `.s16` the samples equal `ffmpeg -i FILE -f s16le -acodec pcm_s16le -`
/// byte for byte (with ``ChannelSelection/mix``, `ffmpeg -ac 1`): the same demuxer, decoder,
/// gapless trimming and swresample conversion at default options. With `sampleFormat: nil` the
/// samples are the decoder's own (24-bit FLAC stays 24-bit, MP3 stays 32-bit float), only
/// interleaved. Each block is one decoded frame, so memory stays flat however long the file is.
///
/// ```swift
/// let decoder = try PCMDecoder(url: url, channels: .all)
/// while let block = try decoder.read() {
///     process(block.samples)
/// }
/// ```
///
/// A decoder is used from one thread at a time. For Swift concurrency use ``DecodedAudio``.
public final class PCMDecoder {
    /// The input file.
    public let url: URL
    /// The channels this decoder delivers.
    public let channels: ChannelSelection

    let source: AudioSource
    private let frames: FrameSource
    private let resampler: Resampler
    private let isCancelled: @Sendable () -> Bool
    /// The stream's own sample format, and the one delivered.
    public let sourceSampleFormat: SampleFormat
    private let outputSampleFormat: SampleFormat
    /// Samples converted to s24 from a wider source keep only their top 24 bits, as FFmpeg's
    /// 24-bit PCM encoders do; a source of 24 bits or fewer already has them.
    private let truncatesTo24Bits: Bool
    private var extractionBuffer: UnsafeMutableRawPointer?
    private var extractionCapacity = 0
    private var flushed = false
    private let requestedSampleRate: Int?

    /// The output position of the next frame: the frames delivered so far, counted from the
    /// start of the stream (after a seek, from the seek's target).
    public private(set) var framesDecoded: Int64 = 0
    /// Where decoding stops (exclusive); nil for the end of the stream.
    public private(set) var endFrame: Int64?
    /// Reaching the end of the stream before ``endFrame`` is an error (see ``limit(to:requiringWholeRange:)``).
    private var requiresEndFrame = false

    /// Opens `url` and prepares to decode its best audio stream.
    /// - Parameters:
    ///   - url: the file (or a pipe, read once).
    ///   - channels: which channels to deliver.
    ///   - sampleFormat: the sample format to deliver; nil keeps the stream's own.
    ///   - sampleRate: the rate to deliver (swresample converts, as `ffmpeg -ar`); nil keeps the stream's.
    ///   - isCancelled: polled between packets (and by FFmpeg during blocking I/O); when it
    ///     returns true, ``read()`` throws `CancellationError`.
    public convenience init(url: URL, channels: ChannelSelection = .all, sampleFormat: SampleFormat? = .s16,
                            sampleRate: Int? = nil, isCancelled: @escaping @Sendable () -> Bool = { false }) throws {
        try self.init(source: AudioSource(url: url, isCancelled: isCancelled), channels: channels,
                      sampleFormat: sampleFormat, sampleRate: sampleRate, isCancelled: isCancelled)
    }

    init(source: AudioSource, channels: ChannelSelection, sampleFormat: SampleFormat? = .s16, sampleRate: Int? = nil,
         isCancelled: @escaping @Sendable () -> Bool) throws {
        self.url = source.url
        self.source = source
        self.channels = channels
        self.isCancelled = isCancelled
        let channelCount = source.parameters.channelCount
        if let index = channels.extractedChannel, index >= channelCount {
            throw ReverseAudioError.channelOutOfRange(path: source.url.displayPath, channel: index, channelCount: channelCount)
        }
        if let sampleRate, sampleRate < 1 || sampleRate > 768_000 {
            throw ReverseAudioError.invalidOption("sample rate must be between 1 and 768000 Hz, not \(sampleRate)")
        }
        sourceSampleFormat = PCMDecoder.nativeFormat(of: source.decoder)
        outputSampleFormat = sampleFormat ?? sourceSampleFormat
        requestedSampleRate = sampleRate
        truncatesTo24Bits = outputSampleFormat == .s24 && ![.u8, .s16, .s24].contains(sourceSampleFormat)
        frames = try ReverseAudioError.mappingFFmpegErrors(path: source.url.displayPath) {
            try FrameSource(source: source, isCancelled: isCancelled)
        }
        resampler = Resampler(channels: channels == .mix ? .mixedToMono : .unchanged,
                              type: PCMDecoder.sampleType(of: outputSampleFormat), sampleRate: sampleRate)
    }

    deinit { extractionBuffer?.deallocate() }

    /// The file's description. `frames` is left nil here: ``AudioInfo/read(from:)`` counts them.
    public var info: AudioInfo { source.info(frames: nil) }

    /// The PCM this decoder delivers. The sample rate is the stream's (or the requested one);
    /// if the first decoded frame disagrees with the container, the decoded rate wins once
    /// decoding has started.
    public var format: PCMFormat {
        let rate = resampler.outputSampleRate > 0 ? resampler.outputSampleRate : (requestedSampleRate ?? source.parameters.sampleRate)
        switch channels {
        case .all:
            let layout = outputChannelLayout
            return PCMFormat(sampleFormat: outputSampleFormat, sampleRate: rate, channelCount: layout.channelCount,
                             channelLayoutName: source.parameters.channelLayoutName ?? layout.name)
        case .first, .mix, .channel:
            return PCMFormat(sampleFormat: outputSampleFormat, sampleRate: rate, channelCount: 1, channelLayoutName: "mono")
        }
    }

    /// What the decoder changes on the way from the stream to ``format``, one phrase each
    /// ("sample format f32 → s16"); empty when the samples are the stream's own.
    public var conversions: [String] {
        var result: [String] = []
        if outputSampleFormat != sourceSampleFormat {
            result.append("sample format \(sourceSampleFormat) → \(outputSampleFormat)")
        }
        let rate = format.sampleRate
        if rate != source.parameters.sampleRate {
            result.append("sample rate \(source.parameters.sampleRate) → \(rate) Hz")
        }
        switch channels {
        case .all: break
        case .mix: result.append("\(source.parameters.channelCount) channels mixed to 1")
        case .first, .channel: result.append("channel \(channels.extractedChannel ?? 0) of \(source.parameters.channelCount) only")
        }
        return result
    }

    /// The layout a file written from this decoder's output declares.
    var outputChannelLayout: ChannelLayout {
        guard channels == .all else { return ChannelLayout.mono() }
        return resampler.outputChannelLayout ?? ChannelLayout(defaultFor: source.parameters.channelCount)
    }

    /// The seed's block size: the frame count of the first decoded buffer, counted before
    /// gapless trimming shortens it (an MP3's first frame is 1152 frames even though only 47
    /// survive the encoder-delay trim). Nil until the first block has been read.
    public var firstBufferFrameCount: Int? {
        frames.firstFrameCount.map { max($0, source.decoder.frameSize) }
    }

    /// Problems met so far that did not stop decoding (skipped packets, a truncated file),
    /// one sentence each, as the `ffmpeg` CLI would have logged them.
    public var warnings: [String] {
        var result: [String] = []
        let skipped = frames.skippedPackets
        if skipped > 0 {
            result.append("skipped \(skipped) packet\(skipped == 1 ? "" : "s") FFmpeg could not decode (\(frames.firstSkipReason ?? "invalid data"))")
        }
        if let readFailure = frames.readFailure {
            result.append("reading stopped early: \(readFailure); decoded what came before")
        }
        // Some containers over-state by up to a packet (ALAC in CAF): only a real shortfall counts,
        // and only against a stated length, not one FFmpeg guessed from the bit rate.
        let rate = source.parameters.sampleRate
        let decodedAtSourceRate = format.sampleRate == rate ? framesDecoded : framesDecoded * Int64(rate) / Int64(format.sampleRate)
        if flushed, endFrame == nil, let stated = source.parameters.statedDurationSamples,
           !source.demuxer.durationIsEstimatedFromBitRate,
           stated - decodedAtSourceRate > max(stated / 20, 8192) {
            let decoded = String(format: "%.2f", Double(decodedAtSourceRate) / Double(rate))
            let declared = String(format: "%.2f", Double(stated) / Double(rate))
            // Damage at the end (a cut-off packet, a failed read) means the file lost its tail;
            // a clean decode that is shorter means the header overstates the length. FLAC frames
            // carry a checksum, so a cut-off FLAC always ends in a damaged frame.
            if skipped > 0 || frames.readFailure != nil {
                result.append("decoded \(decoded) s of the \(declared) s the file declares: it looks truncated")
            } else if source.parameters.isFLAC {
                result.append("the header declares \(declared) s but the stream holds \(decoded) s, every frame intact: the header is wrong; the decoded length was used")
            } else {
                result.append("decoded \(decoded) s of the \(declared) s the header declares: the file is truncated or its header overstates the length")
            }
        }
        if flushed, framesDecoded == 0 {
            result.append("the file holds no audio samples")
        }
        return result
    }

    /// What a seek asked for and what it reached, as Symphonia's accurate seek reports them.
    public struct SeekResult: Sendable, Equatable {
        /// The frame asked for.
        public let required: Int64
        /// The frame the next block starts at: `required`, or the end of the stream when the
        /// request lies beyond it.
        public let reached: Int64
    }

    /// Moves decoding so the next block starts exactly at output frame `frame` of a continuous
    /// decode from the start: bit-exact for PCM, FLAC, ALAC and MP3. AAC's noise substitution
    /// draws from a generator whose state only a continuous decode has, so where a stream uses
    /// it the noise-filled bands differ (the position and length stay exact).
    /// Costs time in proportion to the codec's pre-roll, not to `frame` (MP3 and ADTS AAC also
    /// read, without decoding, the packets before `frame` the first time).
    /// - Throws: ``ReverseAudioError/invalidOption(_:)`` for a negative frame, or when the
    ///   decoder converts the sample rate.
    @discardableResult
    public func seek(toFrame frame: Int64) throws -> SeekResult {
        try seek(toFrame: frame, decodingUntil: .max)
    }

    private func seek(toFrame frame: Int64, decodingUntil end: Int64) throws -> SeekResult {
        guard frame >= 0 else { throw ReverseAudioError.invalidOption("\(url.displayPath): cannot seek to frame \(frame)") }
        if let rate = requestedSampleRate, rate != source.parameters.sampleRate {
            throw ReverseAudioError.invalidOption("\(url.displayPath): seeking while converting the sample rate is not supported; convert the range first")
        }
        let reached = try ReverseAudioError.mappingFFmpegErrors(path: url.displayPath) {
            try frames.seek(toFrame: frame, decodingUntil: end)
        }
        resampler.reset()
        flushed = false
        framesDecoded = reached
        return SeekResult(required: frame, reached: reached)
    }

    /// Decodes only output frames `range` of the stream: seeks to its start and stops at its end
    /// (an upper bound of `Int64.max` is the end of the stream).
    /// - Parameters:
    ///   - range: output frames of a continuous decode from the start.
    ///   - requiringWholeRange: true for a range a person asked for: a start past the end of the
    ///     stream fails here, and an end past it fails when decoding reaches the stream's end,
    ///     naming the true length either way (a header may misstate it).
    public func limit(to range: Range<Int64>, requiringWholeRange: Bool = false) throws {
        let seek = try seek(toFrame: range.lowerBound, decodingUntil: range.upperBound)
        if requiringWholeRange && seek.reached < range.lowerBound {
            // A seek that lands past the end decodes nothing to tell the length by: count it.
            var length = seek.reached
            if length == 0, source.isSeekable,
               let counted = try? FrameCounter.count(AudioSource(url: url), isCancelled: isCancelled).0.prediction?.frames {
                length = counted
            }
            throw pastEnd("starts at frame \(range.lowerBound)", length: length)
        }
        endFrame = range.upperBound == .max ? nil : range.upperBound
        requiresEndFrame = requiringWholeRange
    }

    /// The error for a range that goes past a stream of `length` frames.
    private func pastEnd(_ what: String, length: Int64) -> ReverseAudioError {
        .rangePastEnd(path: url.displayPath, what: what, length: length, sampleRate: format.sampleRate)
    }

    /// Decodes the next block; nil at the end of the audio.
    public func read() throws -> SampleBuffer? {
        var block: SampleBuffer?
        let position = framesDecoded
        _ = try readChunk { bytes, _ in
            block = SampleBuffer(copying: bytes, format: format, position: position)
        }
        return block
    }

    /// Decodes the next non-empty chunk and hands it to `body` without copying: interleaved
    /// bytes valid only during the call, and the frame count.
    /// - Returns: false at the end of the audio (and `body` was not called).
    func readChunk(_ body: (UnsafeRawBufferPointer, Int) throws -> Void) throws -> Bool {
        try ReverseAudioError.mappingFFmpegErrors(path: url.displayPath) { try decodeChunk(body) }
    }

    private func decodeChunk(_ body: (UnsafeRawBufferPointer, Int) throws -> Void) throws -> Bool {
        while !flushed {
            if let endFrame, framesDecoded >= endFrame { return false }
            if isCancelled() { throw CancellationError() }
            if try frames.next() {
                let converted = try convert { () throws(FFmpegError) in try resampler.convert(frames.frame) }
                if try deliver(converted, dropping: frames.leadingSamplesToDrop, to: body) { return true }
            } else {
                flushed = true
                if try deliver(convert { () throws(FFmpegError) in try resampler.flush() }, dropping: 0, to: body) { return true }
            }
        }
        if requiresEndFrame, let endFrame, framesDecoded < endFrame {
            throw pastEnd("ends at frame \(endFrame)", length: framesDecoded)
        }
        return false
    }

    /// Runs a sample conversion, naming the file and the reason when swresample refuses it.
    private func convert(_ conversion: () throws(FFmpegError) -> UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer {
        do {
            return try conversion()
        } catch {
            var reason = "\(error.operation) failed (\(error.message))"
            let channelCount = frames.frame.channelCount
            if channelCount > Resampler.maximumChannelCount {
                reason += ": the converter handles at most \(Resampler.maximumChannelCount) channels and the file has \(channelCount)"
                if outputSampleFormat != sourceSampleFormat { reason += "; --sample-format native needs no converter" }
            }
            throw ReverseAudioError.decodingFailed(path: url.displayPath, reason: reason)
        }
    }

    /// Applies the channel selection and the 24-bit truncation, and hands non-empty output to `body`.
    private func deliver(_ converted: UnsafeRawBufferPointer, dropping leading: Int,
                         to body: (UnsafeRawBufferPointer, Int) throws -> Void) throws -> Bool {
        let frameBytes = resampler.outputBytesPerFrame
        guard frameBytes > 0, converted.count > leading * frameBytes, let start = converted.baseAddress else { return false }
        let base = start + leading * frameBytes
        var frameCount = converted.count / frameBytes - leading
        if let endFrame { frameCount = Int(min(Int64(frameCount), max(0, endFrame - framesDecoded))) }
        guard frameCount > 0 else { return false }
        if truncatesTo24Bits {
            let samples = UnsafeMutableRawPointer(mutating: base).assumingMemoryBound(to: Int32.self)
            for index in 0..<(frameCount * frameBytes / 4) { samples[index] &= ~0xFF }
        }
        if let channel = channels.extractedChannel {
            // The stream's first frame fixes the channels; a container that promised more than
            // the decoder delivers must not send the copy past the end of each frame.
            let delivered = resampler.outputChannelCount
            guard channel < delivered else {
                throw ReverseAudioError.channelOutOfRange(path: url.displayPath, channel: channel, channelCount: delivered)
            }
            let sampleBytes = outputSampleFormat.bytesPerSample
            let destination = reserveExtraction(bytes: frameCount * sampleBytes)
            var from = base + channel * sampleBytes
            var to = destination
            for _ in 0..<frameCount {
                to.copyMemory(from: from, byteCount: sampleBytes)
                from += frameBytes
                to += sampleBytes
            }
            try body(UnsafeRawBufferPointer(start: destination, count: frameCount * sampleBytes), frameCount)
        } else {
            try body(UnsafeRawBufferPointer(start: base, count: frameCount * frameBytes), frameCount)
        }
        framesDecoded += Int64(frameCount)
        return true
    }

    private func reserveExtraction(bytes: Int) -> UnsafeMutableRawPointer {
        if bytes > extractionCapacity {
            extractionBuffer?.deallocate()
            extractionCapacity = max(bytes, extractionCapacity * 2)
            extractionBuffer = .allocate(byteCount: extractionCapacity, alignment: 16)
        }
        return extractionBuffer!
    }

    /// The sample format the decoder produces, as ``SampleFormat``.
    static func nativeFormat(of decoder: Decoder) -> SampleFormat {
        switch decoder.sampleType {
        case .u8: return .u8
        case .s16: return .s16
        case .s32, .s64: return decoder.bitsPerRawSample > 0 && decoder.bitsPerRawSample <= 24 ? .s24 : .s32
        case .double: return .f64
        case .float, nil: return .f32
        }
    }

    /// The interleaved FFmpeg sample type that holds `format`.
    static func sampleType(of format: SampleFormat) -> SampleType {
        switch format {
        case .u8: return .u8
        case .s16: return .s16
        case .s24, .s32: return .s32
        case .f32: return .float
        case .f64: return .double
        }
    }
}
