import FFmpeg
import Foundation
import ReverseAudioCore

/// The frames of one input's stream with their exact positions in the output of a continuous
/// decode from the start, and the seeks that restart decoding so the next frame begins exactly
/// at a given output frame.
///
/// Each decoded frame carries its output position (``frameStart``) and the samples at its start
/// that come before a seek's target (``leadingSamplesToDrop``). A seek restarts decoding the
/// codec's pre-roll before its target (``CodecTraits``): by container timestamp where
/// timestamps name every sample, at an indexed packet where the demuxer only estimates
/// positions (MP3, ADTS AAC), from the start where timestamps are coarser than a sample. A
/// pipe cannot seek: decoding goes on and drops what comes before the target.
final class FramePositioner {
    let input: AudioInput
    let frame: Frame
    private var decoding: FrameDecoder
    private let isCancelled: @Sendable () -> Bool
    /// The sample count of the first decoded frame (before any gapless trimming shortens it).
    private(set) var firstFrameCount: Int?
    /// Output position of the first sample of ``frame`` that is delivered.
    private(set) var frameStart: Int64 = 0
    /// Samples at the start of ``frame`` that come before a seek's target and must be dropped.
    private(set) var leadingSamplesToDrop = 0
    /// After a seek: frames that end before this output position are pre-roll, not output.
    private var dropBefore: Int64?
    /// Where the next frame starts when its timestamp does not say.
    private var nextPosition: Int64 = 0
    /// The timestamp (in samples) of output position 0, from the first frame of the decode.
    private var origin: Int64?
    /// A frame already decoded (by a seek looking ahead) and not yet handed out.
    private var holdsFrame = false
    /// The positions of packets, for inputs that cannot seek exactly by timestamp.
    private(set) var index: PacketIndex?
    /// In ``index``, the entry the next packet read should be.
    private var nextEntry = 0
    /// True after the first seek: from then on packets are stamped from the index.
    private var hasSought = false
    /// The complete index readers side by side share, built by the first of them to seek
    /// (``SharedPacketIndex``); nil when this positioner indexes for itself.
    var sharedIndex: SharedPacketIndex?
    /// True when the shared index counts another length than the readers were given (an MP3
    /// tag frame that misstates it): their segments are misplaced.
    private(set) var sharedIndexDisagrees = false
    /// Count a frame that does not start where the one before it ended (by timestamp) as a
    /// discontinuity: for a stream whose timestamps were taken for positions unchecked.
    var checksContinuity = false
    /// Frames that did not start where the one before ended, when ``checksContinuity``.
    private(set) var discontinuities = 0
    /// True when ``nextPosition`` is where the next frame decoded must start (not after a seek).
    private var followsFrame = false
    /// Where in the file the packet of the frame last delivered starts, and of the first frame
    /// delivered after the last seek, when ``checksContinuity``: what tells readers side by side
    /// that each took up where the one before left off (the packet holding a segment's first
    /// frame is the one after the segment before). A frame's packet is the one last sent: a
    /// decoder on one thread gives each packet's frame before taking the next.
    private(set) var framePacketPosition: Int64?
    private(set) var landingPacketPosition: Int64?
    /// The file positions of the first and the last packet of the stream read.
    /// Where the stream's first packet starts in the file (PCM: its data).
    private(set) var firstPacketPosition: Int64?
    private var lastPacketPosition: Int64?

    init(input: AudioInput, isCancelled: @escaping @Sendable () -> Bool) throws(FFmpegError) {
        self.input = input
        self.isCancelled = isCancelled
        frame = try Frame()
        decoding = try FrameDecoder(decoder: input.decoder,
                                    reader: PacketReader(demuxer: input.demuxer, streamIndex: input.streamIndex))
        if input.traits.needsPacketIndex {
            index = PacketIndex(for: input)
        }
        decoding.prepare = { [unowned self] packet throws(FFmpegError) in try self.notePacket(packet) }
    }

    private var parameters: AudioStreamParameters { input.parameters }

    /// True once the decoder has given everything.
    var isFinished: Bool { decoding.isFinished && !holdsFrame }
    /// Packets the decoder rejected (pre-roll after a seek excepted), and the first reason.
    var skippedPackets: Int { decoding.skippedPackets }
    var firstSkipReason: String? { decoding.firstSkipReason }
    /// Why reading stopped before the end of the file, if it did.
    var readFailure: String? { decoding.reader.readFailure }

    /// The current frame's timestamp in samples, when it has one.
    var frameTimestampSamples: Int64? {
        frame.presentationTimestamp.map { parameters.samples(fromTimeBaseUnits: $0, sampleRate: parameters.sampleRate) }
    }

    /// True when the packet index holds every packet of the stream.
    var hasCompleteIndex: Bool { index.map { $0.isComplete && !$0.departsFromStream } ?? false }

    /// Uses a complete index built elsewhere (by counting the packets), or the index of an MP3
    /// stream's last packets (``PacketIndex/mp3Tail(of:tag:reaching:isCancelled:)``), instead of building one.
    /// A stream that seeks by timestamp takes one too when the resolution made one (a FLAC
    /// stream with a rejected frame: its timestamps are no longer the decode's positions).
    func adopt(_ complete: PacketIndex) {
        if complete.isComplete || complete.tailTag != nil, !hasSought { index = complete }
    }

    /// Hands ``frame`` out again at the next ``next()`` (a frame decoded to learn the format).
    func holdCurrentFrame() { holdsFrame = true }

    /// Decodes the next frame into ``frame``; false at the end of the stream. The frame's
    /// output position is ``frameStart``, after dropping ``leadingSamplesToDrop`` samples.
    func next() throws -> Bool {
        if holdsFrame {
            holdsFrame = false
            return true
        }
        while try decodeFrame() {
            let count = Int64(frame.sampleCount)
            if firstFrameCount == nil { firstFrameCount = frame.sampleCount }
            var start = nextPosition
            if input.timestampsArePositions, let pts = frame.presentationTimestamp {
                let samples = parameters.samples(fromTimeBaseUnits: pts, sampleRate: parameters.sampleRate)
                if origin == nil { origin = samples }
                start = samples - origin!
                if checksContinuity && followsFrame && start != nextPosition { discontinuities += 1 }
            } else if origin == nil {
                origin = 0
            }
            followsFrame = true
            nextPosition = start + count
            var drop: Int64 = 0
            if let target = dropBefore {
                if start + count <= target { continue }
                drop = max(0, target - start)
                dropBefore = nil
                decoding.countsSkippedPackets = true
            }
            leadingSamplesToDrop = Int(drop)
            frameStart = start + drop
            if checksContinuity {
                framePacketPosition = lastPacketPosition
                if landingPacketPosition == nil { landingPacketPosition = lastPacketPosition }
            }
            return true
        }
        return false
    }

    /// Restarts decoding so that the next frame delivered starts exactly at output frame
    /// `target` (as a continuous decode from the start would give it).
    /// - Parameter end: where decoding will stop, if known (an index then needs to reach only
    ///   that far).
    /// - Returns: the position reached: `target`, or the end of the stream if it comes first.
    func seek(toFrame target: Int64, decodingUntil end: Int64?) throws -> Int64 {
        if !input.isSeekable { return try skipForward(to: target) }
        if origin == nil { try learnOrigin() }
        followsFrame = false
        landingPacketPosition = nil
        holdsFrame = false
        if let shared = sharedIndex, index?.isComplete != true,
           let whole = try shared.index(of: input, build: { _ in try indexFromTheStart() }) {
            index = whole
            if shared.expectedFrames.map({ $0 != whole.indexedFrames }) == true { sharedIndexDisagrees = true }
        }
        if var index {
            if index.tailTag != nil && !index.reaches(target) {
                index = try indexReaching(target, before: index)
                self.index = index
            }
            // Two packets past the end, so that every packet the decode reaches is indexed.
            let last = max(target, end ?? .max)
            let step = 2 * Int64(index.frameSize)
            let reach = last > Int64.max - 2 * step ? Int64.max : last + step
            if index.tailTag == nil && !index.isComplete && index.indexedFrames <= reach {
                try extendIndexFromTheStart(index, through: reach)
            }
            if index.departsFromStream { throw PositionsOnlyByDecoding() }
            let restart = index.packet(containing: target).map { holding in
                index.seekPoint(atOrBefore: input.traits.restartPacket(holding: holding) { index.entries[$0].size })
            } ?? 0
            if !index.entries.isEmpty {
                try wrap { try input.demuxer.seek(toByte: index.entries[restart].position) }
            }
            nextEntry = restart
            lastPacketPosition = nil
            hasSought = true
        } else if !input.timestampsArePositions {
            // Timestamps too coarse to find a sample by, or not the decode's positions (an MP4
            // edit list that splices): decode again from the start, counting.
            try wrap { try input.rewindDemuxer() }
        } else {
            // Not clamped at 0: an encoder's priming packets lie before output frame 0.
            let timestamp = parameters.timeBaseUnits(fromSamples: target - Int64(input.traits.prerollSamples) + (origin ?? 0),
                                                     sampleRate: parameters.sampleRate)
            do {
                try input.demuxer.seek(stream: input.streamIndex, toTimestamp: timestamp)
            } catch {
                if error.isInterrupted { throw CancellationError() }
                // A demuxer whose seek failed may read nothing more (FFmpeg 5.1's FLAC demuxer
                // after a search through frames of some 150 KB or more): the caller opens the
                // file again and reads it from the start (``readFromStart(toFrame:)``).
                throw SeekUnavailable()
            }
        }
        decoding.restart()
        restartedDecoder = true
        return try decodeUp(to: target)
    }

    /// True from a seek's restart of the decoder until the first packet it decodes.
    private var restartedDecoder = false

    /// Tail indexes this positioner made itself (see ``indexReaching(_:before:)``).
    private var tailsMade = 0

    /// The index for a seek to `target`, which lies before what `tail` (an MP3 stream's last
    /// packets) reaches: once, a tail from nearer the target when it lies past the stream's
    /// first quarter (a range near the end of a file read from a URL); otherwise, as from then
    /// on for every seek further back, the index read from the first packet (two tails more
    /// would fetch more than reading every packet once).
    private func indexReaching(_ target: Int64, before tail: PacketIndex) throws -> PacketIndex {
        if let tag = tail.tailTag, tailsMade == 0, target >= tag.length / 4 {
            tailsMade += 1
            if let nearer = try PacketIndex.mp3Tail(of: input, tag: tag, reaching: target, isCancelled: isCancelled) {
                return nearer
            }
        }
        // Read from the first packet, wherever the demuxer is now.
        firstPacketPosition = firstPacketPosition ?? tail.tailTag?.firstFramePosition
        lastPacketPosition = tail.entries.last?.position ?? -1
        return PacketIndex(for: input)
    }

    /// Decodes up to `target` now, dropping what comes before it, so the caller learns where
    /// the stream really is: the first frame's start, or the end of the stream if it comes first.
    private func decodeUp(to target: Int64) throws -> Int64 {
        decoding.countsSkippedPackets = false
        dropBefore = target
        nextPosition = 0
        if try next() {
            holdsFrame = true
            return frameStart
        }
        return max(nextPosition, 0)
    }

    /// Thrown by ``seek(toFrame:decodingUntil:)`` when the demuxer could not seek, and may be
    /// left unable to read.
    struct SeekUnavailable: Error {}

    /// Thrown by ``seek(toFrame:decodingUntil:)`` when a packet before the target departs from
    /// the stream's rate or frame size (``PacketIndex/departsFromStream``): only a decode from
    /// the start, through the conversion of every frame to the first one's rate, places it.
    struct PositionsOnlyByDecoding: Error {}

    /// Moves to output frame `target` on an input just opened, without seeking: the packets
    /// that end before the codec's pre-roll ahead of it are read and passed over without being
    /// decoded, then decoding drops what comes before it. What a file whose demuxer cannot seek
    /// gets instead of a seek; it costs reading the file up to the target.
    /// - Returns: the position reached: `target`, or the end of the stream if it comes first.
    func readFromStart(toFrame target: Int64) throws -> Int64 {
        if origin == nil { origin = parameters.startSamples ?? 0 }
        holdsFrame = false
        let rate = parameters.sampleRate
        let passBefore = target - Int64(input.traits.prerollSamples) + (origin ?? 0)
        let timestamps = input.timestampsArePositions
        decoding.passesOver = { [parameters] packet in
            guard timestamps, let pts = packet.presentationTimestamp, packet.duration > 0 else { return false }
            return parameters.samples(fromTimeBaseUnits: pts + packet.duration, sampleRate: rate) <= passBefore
        }
        defer { decoding.passesOver = nil }
        return try decodeUp(to: target)
    }

    /// Finds which timestamp is output position 0, without decoding: the stream's start time,
    /// or from the first packet (a decoder that has decoded nothing decodes a restart at the
    /// start exactly as a fresh decode).
    private func learnOrigin() throws {
        // libavcodec's AAC decoder doubles the skip side data of a stream with SBR (it takes
        // it for the core's rate), so its first frame comes later than the demuxer's start
        // time says: that frame's own timestamp is where the decode starts.
        if input.traits.spectralBandReplication, let first = try firstFrameTimestamp() {
            origin = first
            return
        }
        // The demuxer's start time is the first output sample's timestamp, whatever trimmed the
        // start (skip side data, which Ogg attaches only on the first read; a codec delay; a
        // Vorbis first packet that only primes the decoder).
        if let start = parameters.startSamples {
            origin = start
            return
        }
        let packet = try wrap { try Packet() }
        let reader = PacketReader(demuxer: input.demuxer, streamIndex: input.streamIndex)
        if try wrap({ try reader.next(into: packet) }) {
            lastPacketPosition = packet.filePosition
            if firstPacketPosition == nil { firstPacketPosition = packet.filePosition }
            let pts = packet.presentationTimestamp.map {
                parameters.samples(fromTimeBaseUnits: $0, sampleRate: parameters.sampleRate)
            } ?? 0
            origin = pts + Int64(packet.skipSamples.start)
            return
        }
        origin = 0
    }

    /// The timestamp, in samples, of the first frame a decode from the stream's start gives,
    /// found with a decoder of its own (the demuxer is left for the caller to move).
    private func firstFrameTimestamp() throws -> Int64? {
        try wrap {
            try input.rewindDemuxer()
            let decoder = try Decoder(demuxer: input.demuxer, streamIndex: input.streamIndex, threads: 1)
            let loop = try FrameDecoder(decoder: decoder, reader: PacketReader(demuxer: input.demuxer, streamIndex: input.streamIndex))
            let first = try Frame()
            guard try loop.next(into: first), let pts = first.presentationTimestamp else { return nil }
            return parameters.samples(fromTimeBaseUnits: pts, sampleRate: parameters.sampleRate)
        }
    }

    /// A pipe cannot be sought in: decoding goes on from where it is and drops what comes
    /// before `target`, which must not have been passed already.
    private func skipForward(to target: Int64) throws -> Int64 {
        if holdsFrame {
            // The frame decoded last (to learn the format) may already hold the target.
            let end = frameStart + Int64(frame.sampleCount - leadingSamplesToDrop)
            guard target >= frameStart else { throw passed(target) }
            if target < end {
                leadingSamplesToDrop += Int(target - frameStart)
                frameStart = target
                return target
            }
            holdsFrame = false
        } else if target < nextPosition {
            throw passed(target)
        }
        dropBefore = target
        if try next() {
            holdsFrame = true
            return frameStart
        }
        return max(nextPosition, 0)
    }

    private func passed(_ target: Int64) -> ReverseAudioError {
        .input(.notSeekable(path: input.path, reason: "a pipe is read once; it cannot go back to frame \(target)"))
    }

    /// Indexes the packets through output frame `frame`, reading them in order from the first:
    /// the demuxer attaches the gapless trimming (the LAME tag's end padding) by true
    /// timestamps, which it only knows reading in order from the start, not after a byte seek.
    /// An index that must grow after decoding moved the demuxer is therefore made again.
    private func extendIndexFromTheStart(_ index: PacketIndex, through frame: Int64) throws {
        let readingOnFromIndex = index.entries.isEmpty ? lastPacketPosition == nil : lastPacketPosition == index.entries.last?.position
        if !readingOnFromIndex {
            index.removeAll()
            if let first = firstPacketPosition { try wrap { try input.demuxer.seek(toByte: first) } }
        }
        try index.extend(through: frame, reader: PacketReader(demuxer: input.demuxer, streamIndex: input.streamIndex,
                                                              endsOnReadError: false),
                         path: input.path, isCancelled: isCancelled)
        lastPacketPosition = index.entries.last?.position
    }

    /// Every packet of the stream indexed, read in order from its first (the demuxer is moved:
    /// the seek that asked for it goes on by the index).
    private func indexFromTheStart() throws -> PacketIndex {
        let whole = PacketIndex(for: input)
        try extendIndexFromTheStart(whole, through: .max)
        return whole
    }

    /// Decodes the next frame of the stream, whatever its position.
    private func decodeFrame() throws -> Bool {
        if isCancelled() { throw CancellationError() }
        return try wrap { try decoding.next(into: frame) }
    }

    /// Notes a packet about to be decoded; after a seek in an indexed stream, gives it its
    /// exact timestamp and trimming from the index (the demuxer only estimates them then).
    private func notePacket(_ packet: Packet) throws(FFmpegError) {
        if isCancelled() { throw FFmpegError.interrupted("decoding") }
        if restartedDecoder {
            restartedDecoder = false
            // Back at the first packet, decoded as a fresh open decodes it.
            if let position = packet.filePosition, position == firstPacketPosition ?? position { input.decoder.startAsFresh() }
        }
        lastPacketPosition = packet.filePosition
        if firstPacketPosition == nil { firstPacketPosition = packet.filePosition }
        // Until the first seek the demuxer's own timestamps are exact: the index is not used.
        guard let index, hasSought else { return }
        let position = packet.filePosition ?? -1
        // A packet past the index (past where this decode stops) keeps the demuxer's stamps.
        guard let entry = index.packet(at: position, size: packet.size, from: nextEntry) else { return }
        nextEntry = entry + 1
        let found = index.entries[entry]
        packet.setTimestamp(parameters.timeBaseUnits(fromSamples: found.rawStart + (origin ?? 0), sampleRate: parameters.sampleRate))
        if found.skip != packet.skipSamples {
            try packet.setSkipSamples(start: found.skip.start, end: found.skip.end)
        }
    }

    /// FFmpeg's failures as the library's error naming the file; a cancellation as `CancellationError`.
    private func wrap<Result>(_ work: () throws -> Result) throws -> Result {
        try mappingFFmpegErrors(path: input.path, work)
    }
}
