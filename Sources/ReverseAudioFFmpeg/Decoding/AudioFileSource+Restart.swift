import FFmpeg
import Foundation
import ReverseAudioCore

// Going back to the stream's first packet exactly as a fresh open decodes: the one move every
// seek to the start, every length found on this open and every fresh decoder makes.
extension AudioFileSource {
    /// Starts decoding again from the stream's first packet with a fresh decoder, exactly as a
    /// fresh open decodes, and (unless the caller seeks next) decodes the first frame: on this
    /// open of the file where a seek back is exact (``AudioInput/restartsExactlyFromStart``) and
    /// lands on the first frame, else on a new open.
    /// - Parameter decoderThreads: the fresh decoder's threads (nil: as the last one's).
    /// - Returns: the frame reached (0, or the end of an empty stream).
    @discardableResult
    func restartFromStart(decodingFirstFrame: Bool = true, decoderThreads: Int? = nil,
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
}
