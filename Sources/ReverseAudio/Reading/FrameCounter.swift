import FFmpeg
import Foundation

/// Works out how many frames a decode of a file will produce, without decoding it.
///
/// PCM and FLAC state their length exactly in the container (data size, STREAMINFO), and it is
/// trusted. For other codecs the packets are read once, without decoding: each contributes what
/// its decoder will emit (a lossy codec's whole frame, e.g. 1024 for AAC even where an MP4 edit
/// list shortens the last packet's duration; otherwise the packet's duration), minus the
/// gapless trimming the demuxer attaches (skip samples at the start, discard padding at the
/// end), and packets flagged decode-only emit nothing. That mirrors what libavcodec does with
/// them. Where packets carry no duration (ALAC in CAF), it is the step to the next packet's
/// timestamp, and the last packet is measured by decoding it alone. The count is a prediction;
/// callers that depend on it verify it.
enum FrameCounter {
    /// What counting found.
    enum Count: Sendable {
        /// The frames a decode will produce, and where that came from.
        case known(frames: Int64, source: LengthSource)
        /// Nothing predicts the length; why, for `--verbose`.
        case unknown(reason: String)

        var prediction: (frames: Int64, source: LengthSource)? {
            if case .known(let frames, let source) = self { return (frames, source) }
            return nil
        }
    }

    /// Predicts the frame count of `source`'s stream. Packets are read (not decoded) with the
    /// source's own demuxer, which is then moved back to the first packet, so the file is opened
    /// once and a decode afterwards is the same as one from a fresh open.
    /// - Returns: the count, and the source to decode from: `source` rewound, or the file opened
    ///   again if its demuxer cannot seek back.
    /// - Parameter keepingIndex: also keep where each packet is (``AudioSource/packetIndex``) for
    ///   a decode that will seek in a stream without exact seeking (MP3, ADTS AAC). Off for
    ///   decodes that do not seek: the index grows with the file's length.
    /// - Throws: `CancellationError`; nothing else (a count that fails is `.unknown`).
    static func count(_ source: AudioSource, keepingIndex: Bool = false,
                      isCancelled: @escaping @Sendable () -> Bool) throws -> (Count, AudioSource) {
        let parameters = source.parameters
        guard source.isSeekable else {
            return (.unknown(reason: "the input is a pipe, read once"), source)
        }
        if parameters.isPCM || parameters.isFLAC, let stated = parameters.statedDurationSamples, stated > 0 {
            return (.known(frames: stated, source: .container), source)
        }
        if parameters.isLossy && parameters.codecFrameSize == 0 && !parameters.timestampsResolveSamples {
            return (.unknown(reason: "its packets vary in length and the container's timestamps are coarser than a sample"), source)
        }
        let counted: Count
        var earliestTimestamp: Int64?
        let index = keepingIndex && SeekPlan(source: source).needsPacketIndex
            ? PacketIndex(frameSize: max(source.decoder.frameSize, parameters.codecFrameSize, 1)) : nil
        do {
            let result = try countPackets(source.demuxer, streamIndex: source.streamIndex, parameters: parameters,
                                          index: index, isCancelled: isCancelled)
            earliestTimestamp = result.earliestTimestamp
            counted = result.frames.map { .known(frames: $0, source: .packets) } ?? .unknown(reason: "packets carry no durations or timestamps")
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            counted = .unknown(reason: "reading the packets failed: \((error as? FFmpegError)?.message ?? String(describing: error))")
        }
        if isCancelled() { throw CancellationError() }
        // Back to the first packet; a demuxer that cannot go back is replaced by a fresh open.
        var rewound = source
        // A count that failed stopped at a packet it could not account for: the file is damaged
        // or odd, and a seek back in it may not land where the first read began (a damaged
        // FLAC's frame numbers, an MP4's broken time table). Open it afresh then.
        if counted.prediction == nil || earliestTimestamp == nil
            || (try? source.demuxer.seek(stream: source.streamIndex, toTimestamp: earliestTimestamp!)) == nil {
            rewound = try AudioSource(url: source.url, isCancelled: isCancelled)
        }
        if let index, index.isComplete { rewound.packetIndex = index }
        return (counted, rewound)
    }

    private static func countPackets(_ demuxer: Demuxer, streamIndex: Int, parameters: AudioStreamParameters,
                                     index: PacketIndex?, isCancelled: () -> Bool)
        throws -> (frames: Int64?, earliestTimestamp: Int64?) {
        let packet = try Packet()
        let undated = try Packet()
        let wholeFrame = parameters.isLossy && parameters.codecFrameSize > 0 ? Int64(parameters.codecFrameSize) : nil
        // Ogg states where a stream ends with the last page's granule position, and FFmpeg's Ogg
        // demuxer shortens the last packet's duration to it besides attaching the same amount as
        // discard padding: counted once. (Matroska keeps whole durations beside the padding.)
        let durationsAreTrimmed = demuxer.formatName == "ogg"
        // A lossy codec of variable frame size (Opus, Vorbis) may emit nothing for a packet that
        // only primes it: its output spans from the start time to the last packet's end.
        let spansTimestamps = parameters.isLossy && wholeFrame == nil && parameters.startSamples != nil
        var lastEnd: (samples: Int64, endSkip: Int)?
        var total = TrimmedTotal()
        var earliestTimestamp: Int64?
        // A packet without a duration waits for the next one's timestamp.
        var waiting: (timestamp: Int64, skip: (start: Int, end: Int))?
        while try demuxer.readPacket(into: packet) {
            if isCancelled() { throw CancellationError() }
            guard packet.streamIndex == streamIndex else { continue }
            // The earliest, not the first: a damaged file's timestamps need not rise, and a seek
            // to a later one than some packet's lands past that packet.
            let timestamp = packet.presentationTimestamp ?? 0
            earliestTimestamp = min(earliestTimestamp ?? timestamp, timestamp)
            guard !packet.isDiscarded else { continue }
            if spansTimestamps, let timestamp = packet.presentationTimestamp, packet.duration > 0 {
                lastEnd = (parameters.samples(fromTimeBaseUnits: timestamp + packet.duration, sampleRate: parameters.sampleRate),
                           packet.skipSamples.end)
            }
            index?.append(packet)
            if let pending = waiting {
                guard let timestamp = packet.presentationTimestamp, timestamp > pending.timestamp else {
                    return (nil, earliestTimestamp)
                }
                total.add(parameters.samples(fromTimeBaseUnits: timestamp - pending.timestamp, sampleRate: parameters.sampleRate),
                          skip: pending.skip)
                waiting = nil
            }
            if let wholeFrame {
                total.add(wholeFrame, skip: packet.skipSamples)
            } else if packet.duration > 0 {
                let skip = packet.skipSamples
                total.add(parameters.samples(fromTimeBaseUnits: packet.duration, sampleRate: parameters.sampleRate),
                          skip: durationsAreTrimmed ? (skip.start, 0) : skip)
            } else if let timestamp = packet.presentationTimestamp {
                waiting = (timestamp, packet.skipSamples)
                try undated.reference(packet)
            } else {
                return (nil, earliestTimestamp)
            }
        }
        if waiting != nil {
            // The decoder applies the packet's own trimming here.
            total.add(try decodedLength(of: undated, demuxer: demuxer, streamIndex: streamIndex), skip: (0, 0))
        }
        index?.markComplete()
        if spansTimestamps, let lastEnd, let start = parameters.startSamples {
            return (lastEnd.samples - start - Int64(durationsAreTrimmed ? 0 : lastEnd.endSkip), earliestTimestamp)
        }
        return (total.frames, earliestTimestamp)
    }

    /// Frames one packet decodes to on its own, with a fresh decoder.
    private static func decodedLength(of packet: Packet, demuxer: Demuxer, streamIndex: Int) throws -> Int64 {
        let decoder = try Decoder(demuxer: demuxer, streamIndex: streamIndex)
        let frame = try Frame()
        var frames: Int64 = 0
        _ = try decoder.send(packet)
        _ = try decoder.send(nil)
        while try decoder.receive(into: frame) == .frame {
            frames += Int64(frame.sampleCount)
        }
        return frames
    }
}

/// Sums what packets emit after gapless trimming, as libavcodec applies it: skipping at the
/// start may span several frames; padding at the end applies to its own frame.
private struct TrimmedTotal {
    private(set) var frames: Int64 = 0
    private var pendingSkip: Int64 = 0

    mutating func add(_ emitted: Int64, skip: (start: Int, end: Int)) {
        pendingSkip += Int64(skip.start)
        let trimmedStart = min(pendingSkip, emitted)
        pendingSkip -= trimmedStart
        frames += max(0, emitted - trimmedStart - Int64(skip.end))
    }
}
