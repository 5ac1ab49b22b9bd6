import FFmpeg
import Foundation
import ReverseAudioCore

// Seeking a file source: by the packet index, the demuxer, a restart from the first packet, or
// a read from the start where nothing else lands exactly.
extension AudioFileSource {
    /// True when a seek searches the file for its place (a FLAC file without a seek table, Ogg):
    /// no packet index of ours, no table of the container's, no arithmetic of PCM's. Such a
    /// seek costs about a millisecond. A container's table fills the demuxer's index when the
    /// file opens (an hour of M4A: 155,000 entries; a FLAC seek table: one every 10 s); without
    /// one it holds only the few packets probing read (3 for a FLAC file).
    package var seeksBySearching: Bool {
        !input.traits.needsPacketIndex && input.traits.family != .pcm
            && input.demuxer.indexEntryCount(stream: input.streamIndex) < 16
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
    func seekOrReadFromStart(toFrame frame: Int64, decodingUntil end: Int64?) throws -> Int64 {
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
    func decodeFromStart(to frame: Int64) throws -> Int64 {
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
    func readFromStart(toFrame frame: Int64) throws -> Int64 {
        try restartFromStart(decodingFirstFrame: false, reopening: true)
        return try positioner.readFromStart(toFrame: frame)
    }

    /// Caps the index FFmpeg builds of the packets it reads (WAV, FLAC, MP3 keep one), for a
    /// reader that goes backwards: each entry is inserted in timestamp order, so reading a file
    /// from its end moves the whole index once per packet, which a small cap keeps cheap.
    func limitIndexMemory(to bytes: Int) {
        indexMemoryLimit = bytes
        input.demuxer.limitIndexMemory(to: bytes)
    }
}
