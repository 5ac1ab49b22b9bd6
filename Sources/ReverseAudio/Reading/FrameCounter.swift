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
/// them. The count is a prediction; callers that depend on it verify it.
enum FrameCounter {
    /// Where a count came from.
    enum Source: String, Sendable {
        case container, packets
    }

    /// The predicted frame count for `source`'s audio stream at `sampleRate`, or nil.
    static func count(of source: AudioSource, sampleRate: Int, isCancelled: (@Sendable () -> Bool)? = nil) -> (frames: Int64, source: Source)? {
        let parameters = source.parameters
        if parameters.isPCM || parameters.isFLAC, parameters.sampleRate == sampleRate,
           let stated = parameters.statedDurationSamples, stated > 0 {
            return (stated, .container)
        }
        guard let counted = countPackets(path: source.url.path, streamIndex: source.streamIndex,
                                         parameters: parameters, sampleRate: sampleRate, isCancelled: isCancelled)
        else { return nil }
        return (counted, .packets)
    }

    private static func countPackets(path: String, streamIndex: Int, parameters: AudioStreamParameters,
                                     sampleRate: Int, isCancelled: (@Sendable () -> Bool)?) -> Int64? {
        guard let demuxer = try? Demuxer(path: path, isCancelled: isCancelled),
              let packet = try? Packet() else { return nil }
        let wholeFrame = parameters.isLossy && parameters.codecFrameSize > 0 && parameters.sampleRate == sampleRate
            ? Int64(parameters.codecFrameSize) : nil
        var frames: Int64 = 0
        var pendingSkip: Int64 = 0
        do {
            while try demuxer.readPacket(into: packet) {
                guard packet.streamIndex == streamIndex else { continue }
                if packet.isDiscarded { continue }
                let emitted: Int64
                if let wholeFrame {
                    emitted = wholeFrame
                } else {
                    guard packet.duration > 0 else { return nil }
                    emitted = parameters.samples(fromTimeBaseUnits: packet.duration, sampleRate: sampleRate)
                }
                let skip = packet.skipSamples
                pendingSkip += Int64(skip.start)
                // Start trimming may span several frames; end trimming applies to this one.
                let trimmedStart = min(pendingSkip, emitted)
                pendingSkip -= trimmedStart
                frames += max(0, emitted - trimmedStart - Int64(skip.end))
            }
        } catch {
            return nil
        }
        return frames
    }
}
