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
    /// The predicted frame count of the best audio stream of `url`, or nil.
    ///
    /// Opens its own demuxer and closes it before returning: call it before opening the file for
    /// decoding, so that two copies of a large index (an hour of MP4 is megabytes of sample
    /// table) are never held at once.
    static func count(url: URL, isCancelled: (@Sendable () -> Bool)? = nil) -> (frames: Int64, source: LengthSource)? {
        guard let demuxer = try? Demuxer(path: url.path, isCancelled: isCancelled),
              let streamIndex = try? demuxer.bestAudioStreamIndex() else { return nil }
        let parameters = demuxer.audioStream(at: streamIndex)
        if parameters.isPCM || parameters.isFLAC, let stated = parameters.statedDurationSamples, stated > 0 {
            return (stated, .container)
        }
        return countPackets(demuxer, streamIndex: streamIndex, parameters: parameters).map { ($0, .packets) }
    }

    private static func countPackets(_ demuxer: Demuxer, streamIndex: Int, parameters: AudioStreamParameters) -> Int64? {
        guard let packet = try? Packet(), let undated = try? Packet() else { return nil }
        let wholeFrame = parameters.isLossy && parameters.codecFrameSize > 0 ? Int64(parameters.codecFrameSize) : nil
        var total = TrimmedTotal()
        // A packet without a duration waits for the next one's timestamp.
        var waiting: (timestamp: Int64, skip: (start: Int, end: Int))?
        do {
            while try demuxer.readPacket(into: packet) {
                guard packet.streamIndex == streamIndex, !packet.isDiscarded else { continue }
                if let pending = waiting {
                    guard let timestamp = packet.presentationTimestamp, timestamp > pending.timestamp else { return nil }
                    total.add(parameters.samples(fromTimeBaseUnits: timestamp - pending.timestamp, sampleRate: parameters.sampleRate),
                              skip: pending.skip)
                    waiting = nil
                }
                if let wholeFrame {
                    total.add(wholeFrame, skip: packet.skipSamples)
                } else if packet.duration > 0 {
                    total.add(parameters.samples(fromTimeBaseUnits: packet.duration, sampleRate: parameters.sampleRate),
                              skip: packet.skipSamples)
                } else if let timestamp = packet.presentationTimestamp {
                    waiting = (timestamp, packet.skipSamples)
                    try undated.reference(packet)
                } else {
                    return nil
                }
            }
            if waiting != nil {
                // The decoder applies the packet's own trimming here.
                total.add(try decodedLength(of: undated, demuxer: demuxer, streamIndex: streamIndex), skip: (0, 0))
            }
        } catch {
            return nil
        }
        return total.frames
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
