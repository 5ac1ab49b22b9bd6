import FFmpeg
import Foundation

/// Decodes a file's best audio stream to interleaved signed 16-bit PCM, block by block.
///
/// The samples equal `ffmpeg -i FILE -f s16le -acodec pcm_s16le -` byte for byte (with
/// ``ChannelSelection/mix``, `ffmpeg -ac 1`): the same demuxer, decoder, gapless trimming and
/// swresample conversion at default options. Each block is one decoded frame, so memory stays
/// flat however long the file is.
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

    private let source: AudioSource
    private let packet: Packet
    private let frame: Frame
    private let resampler: Resampler
    private let isCancelled: @Sendable () -> Bool
    private var extractionBuffer: [Int16] = []
    private var state = State.reading
    private var firstFrameCount: Int?
    private var skippedPackets = 0
    private var firstSkipReason: String?
    private var readFailure: String?
    /// The decoder refused `packet` until its output is taken: offer it again before reading on.
    private var packetWaiting = false

    private enum State {
        case reading, draining, flushingResampler, finished
    }

    /// Frames delivered so far.
    public private(set) var framesDecoded: Int64 = 0

    /// Opens `url` and prepares to decode its best audio stream.
    /// - Parameters:
    ///   - channels: which channels to deliver.
    ///   - isCancelled: polled between packets (and by FFmpeg during blocking I/O); when it
    ///     returns true, ``read()`` throws `CancellationError`.
    public convenience init(url: URL, channels: ChannelSelection = .all,
                            isCancelled: @escaping @Sendable () -> Bool = { false }) throws {
        try self.init(source: AudioSource(url: url, isCancelled: isCancelled), channels: channels,
                      isCancelled: isCancelled)
    }

    init(source: AudioSource, channels: ChannelSelection, isCancelled: @escaping @Sendable () -> Bool) throws {
        self.url = source.url
        self.source = source
        self.channels = channels
        self.isCancelled = isCancelled
        let channelCount = source.parameters.channelCount
        if let index = channels.extractedChannel, index >= channelCount {
            throw ReverseAudioError.channelOutOfRange(path: source.url.displayPath, channel: index, channelCount: channelCount)
        }
        packet = try Packet()
        frame = try Frame()
        resampler = Resampler(channels: channels == .mix ? .mixedToMono : .unchanged)
    }

    /// The file's description. `frames` is left nil here: ``AudioInfo/read(from:)`` counts them.
    public var info: AudioInfo { source.info(frames: nil) }

    /// The PCM this decoder delivers. The sample rate is the stream's; if the first decoded
    /// frame disagrees with the container, the decoded rate wins once decoding has started.
    public var format: PCMFormat {
        let rate = resampler.outputSampleRate > 0 ? resampler.outputSampleRate : source.parameters.sampleRate
        switch channels {
        case .all:
            let layout = resampler.outputChannelLayout ?? ChannelLayout(defaultFor: source.parameters.channelCount)
            return PCMFormat(sampleRate: rate, channelCount: layout.channelCount,
                             channelLayoutName: source.parameters.channelLayoutName ?? layout.name)
        case .first, .mix, .channel:
            return PCMFormat(sampleRate: rate, channelCount: 1, channelLayoutName: "mono")
        }
    }

    /// The layout a WAV of this decoder's output declares.
    var outputChannelLayout: ChannelLayout {
        guard channels == .all else { return ChannelLayout.mono() }
        return resampler.outputChannelLayout ?? ChannelLayout(defaultFor: source.parameters.channelCount)
    }

    /// The seed's block size: the frame count of the first decoded buffer, counted before
    /// gapless trimming shortens it (an MP3's first frame is 1152 frames even though only 47
    /// survive the encoder-delay trim). Nil until the first block has been read.
    public var firstBufferFrameCount: Int? {
        firstFrameCount.map { max($0, source.decoder.frameSize) }
    }

    /// Problems met so far that did not stop decoding (skipped packets, a truncated file),
    /// one sentence each, as the `ffmpeg` CLI would have logged them.
    public var warnings: [String] {
        var result: [String] = []
        if skippedPackets > 0 {
            result.append("skipped \(skippedPackets) packet\(skippedPackets == 1 ? "" : "s") FFmpeg could not decode (\(firstSkipReason ?? "invalid data"))")
        }
        if let readFailure {
            result.append("reading stopped early: \(readFailure); decoded what came before")
        }
        // Some containers over-state by up to a packet (ALAC in CAF): only a real shortfall counts,
        // and only against a stated length, not one FFmpeg guessed from the bit rate.
        if state == .finished, let stated = source.parameters.statedDurationSamples,
           !source.demuxer.durationIsEstimatedFromBitRate,
           source.parameters.sampleRate == format.sampleRate,
           stated - framesDecoded > max(stated / 20, 8192) {
            let decoded = String(format: "%.2f", Double(framesDecoded) / Double(format.sampleRate))
            let declared = String(format: "%.2f", Double(stated) / Double(format.sampleRate))
            // Damage at the end (a cut-off packet, a failed read) means the file lost its tail;
            // a clean decode that is shorter means the header overstates the length.
            // FLAC frames carry a checksum, so a cut-off FLAC always ends in a damaged frame.
            if skippedPackets > 0 || readFailure != nil {
                result.append("decoded \(decoded) s of the \(declared) s the file declares: it looks truncated")
            } else if source.parameters.isFLAC {
                result.append("the header declares \(declared) s but the stream holds \(decoded) s, every frame intact: the header is wrong; the decoded length was used")
            } else {
                result.append("decoded \(decoded) s of the \(declared) s the header declares: the file is truncated or its header overstates the length")
            }
        }
        if state == .finished, framesDecoded == 0 {
            result.append("the file holds no audio samples")
        }
        return result
    }

    /// Decodes the next block; nil at the end of the audio.
    public func read() throws -> SampleBuffer? {
        var block: SampleBuffer?
        let position = framesDecoded
        _ = try readChunk { [resampler] samples, channelCount in
            // The rate is known once a frame has been converted: no need to rebuild `format`.
            block = SampleBuffer(samples: Array(samples), channelCount: channelCount,
                                 sampleRate: resampler.outputSampleRate, position: position)
        }
        return block
    }

    /// Decodes the next non-empty chunk and hands it to `body` without copying: interleaved
    /// samples valid only during the call, and the channel count.
    /// - Returns: false at the end of the audio (and `body` was not called).
    func readChunk(_ body: (UnsafeBufferPointer<Int16>, Int) throws -> Void) throws -> Bool {
        while state != .finished {
            if isCancelled() { throw CancellationError() }
            switch state {
            case .reading, .draining:
                if try receiveFrame(), try deliver(convert { () throws(FFmpegError) in try resampler.convert(frame) }, to: body) { return true }
            case .flushingResampler:
                state = .finished
                if try deliver(convert { () throws(FFmpegError) in try resampler.flush() }, to: body) { return true }
            case .finished:
                break
            }
        }
        return false
    }

    /// Gets one decoded frame into `frame`, feeding packets as the decoder asks.
    /// - Returns: false when the decoder has nothing more (state moves on to flushing).
    private func receiveFrame() throws -> Bool {
        let decoder = source.decoder
        while true {
            let result: Decoder.ReceiveResult
            do {
                result = try decoder.receive(into: frame)
            } catch {
                noteSkipped(error)
                if state == .draining { state = .flushingResampler; return false }
                try feed()
                continue
            }
            switch result {
            case .frame:
                if firstFrameCount == nil, frame.sampleCount > 0 { firstFrameCount = frame.sampleCount }
                return true
            case .needsInput:
                if state == .draining { state = .flushingResampler; return false }
                try feed()
            case .endOfStream:
                state = .flushingResampler
                return false
            }
        }
    }

    /// Sends the next packet of our stream, or starts draining at the end of the file.
    private func feed() throws {
        if isCancelled() { throw CancellationError() }
        let decoder = source.decoder
        if packetWaiting {
            packetWaiting = try decoder.send(packet) == .outputPending
            return
        }
        while true {
            let hasPacket: Bool
            do {
                hasPacket = try source.demuxer.readPacket(into: packet)
            } catch {
                if error.isInterrupted { throw CancellationError() }
                // The ffmpeg CLI treats a read error as the end of the input: so do we.
                readFailure = error.message
                hasPacket = false
            }
            if !hasPacket {
                _ = try? decoder.send(nil)
                state = .draining
                return
            }
            guard packet.streamIndex == source.streamIndex else { continue }
            do {
                packetWaiting = try decoder.send(packet) == .outputPending
                return
            } catch {
                noteSkipped(error)
            }
        }
    }

    /// Runs a sample conversion, naming the file and the reason when swresample refuses it.
    private func convert(_ conversion: () throws(FFmpegError) -> UnsafeBufferPointer<Int16>) throws -> UnsafeBufferPointer<Int16> {
        do {
            return try conversion()
        } catch {
            var reason = "\(error.operation) failed (\(error.message))"
            let channelCount = frame.channelCount
            if channelCount > Resampler.maximumChannelCount {
                reason += ": the converter handles at most \(Resampler.maximumChannelCount) channels and the file has \(channelCount)"
            }
            throw ReverseAudioError.decodingFailed(path: url.displayPath, reason: reason)
        }
    }

    private func noteSkipped(_ error: FFmpegError) {
        skippedPackets += 1
        if firstSkipReason == nil { firstSkipReason = error.message }
    }

    /// Applies the channel selection and hands non-empty output to `body`.
    private func deliver(_ converted: UnsafeBufferPointer<Int16>,
                         to body: (UnsafeBufferPointer<Int16>, Int) throws -> Void) throws -> Bool {
        let sourceChannels = resampler.outputChannelCount
        guard sourceChannels > 0, converted.count > 0 else { return false }
        let frames = converted.count / sourceChannels
        if let channel = channels.extractedChannel {
            if extractionBuffer.count < frames { extractionBuffer = [Int16](repeating: 0, count: frames) }
            try extractionBuffer.withUnsafeMutableBufferPointer { destination in
                var source = channel
                for index in 0..<frames {
                    destination[index] = converted[source]
                    source += sourceChannels
                }
                try body(UnsafeBufferPointer(rebasing: destination[0..<frames]), 1)
            }
        } else {
            try body(converted, sourceChannels)
        }
        framesDecoded += Int64(frames)
        return true
    }
}
