import FFmpeg
import Foundation

/// The decode loop of one input: packets of the chosen stream go to the decoder, decoded
/// frames come out, in order, as the `ffmpeg` CLI would produce them.
///
/// Errors FFmpeg can skip (a damaged packet) are counted and skipped; a read error ends the
/// input (as the CLI treats it); end of stream is not an error.
///
/// Every frame carries its exact position in the output of a continuous decode from the start
/// (``frameStart``), and ``seek(toFrame:)`` restarts the decode so that the next frame begins
/// exactly at a given output frame (see ``SeekPlan`` for how far before it decoding restarts).
final class FrameSource {
    let source: AudioSource
    let frame: Frame
    private let packet: Packet
    private let isCancelled: @Sendable () -> Bool
    private var state = State.reading
    /// The decoder refused `packet` until its output is taken: offer it again before reading on.
    private var packetWaiting = false

    private enum State {
        case reading, draining, finished
    }

    /// Packets the decoder rejected, and the first reason.
    private(set) var skippedPackets = 0
    private(set) var firstSkipReason: String?
    /// Why reading stopped before the end of the file, if it did.
    private(set) var readFailure: String?
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
    private let index: PacketIndex?
    /// In ``index``, the entry the next packet read should be.
    private var nextEntry = 0
    /// The file positions of the first and the last packet of our stream read.
    private var lastPacketPosition: Int64?
    private var firstPacketPosition: Int64?
    /// True after the first seek: from then on packets are stamped from the index.
    private var hasSought = false
    private let plan: SeekPlan

    init(source: AudioSource, isCancelled: @escaping @Sendable () -> Bool) throws {
        self.source = source
        self.isCancelled = isCancelled
        packet = try Packet()
        frame = try Frame()
        plan = SeekPlan(source: source)
        index = plan.needsPacketIndex
            ? source.packetIndex ?? PacketIndex(frameSize: max(source.decoder.frameSize, source.parameters.codecFrameSize, 1))
            : nil
    }

    /// True once the decoder has given everything.
    var isFinished: Bool { state == .finished }

    /// Decodes the next frame into ``frame``; false at the end of the stream. The frame's
    /// output position is ``frameStart``, after dropping ``leadingSamplesToDrop`` samples.
    func next() throws -> Bool {
        if holdsFrame {
            holdsFrame = false
            return true
        }
        while try decodeFrame() {
            let count = Int64(frame.sampleCount)
            var start = nextPosition
            if source.parameters.timestampsResolveSamples, let pts = frame.presentationTimestamp {
                let samples = source.parameters.samples(fromTimeBaseUnits: pts, sampleRate: source.parameters.sampleRate)
                if origin == nil { origin = samples }
                start = samples - origin!
            } else if origin == nil {
                origin = 0
            }
            nextPosition = start + count
            var drop: Int64 = 0
            if let target = dropBefore {
                if start + count <= target { continue }
                drop = max(0, target - start)
                dropBefore = nil
            }
            leadingSamplesToDrop = Int(drop)
            frameStart = start + drop
            return true
        }
        return false
    }

    /// Restarts decoding so that the next frame delivered starts exactly at output frame
    /// `target` (as a continuous decode from the start would give it).
    /// - Parameter end: where decoding will stop, if the caller knows (a packet index then
    ///   needs to reach only that far).
    /// - Returns: the position reached: `target`, or the end of the stream if it comes first.
    func seek(toFrame target: Int64, decodingUntil end: Int64 = .max) throws -> Int64 {
        if !source.isSeekable {
            return try skipForward(to: target)
        }
        if origin == nil { try learnOrigin() }
        holdsFrame = false
        let decoder = source.decoder
        if let index {
            // Two packets past the end, so that every packet the decode reaches is indexed.
            let reach = max(target, end) > Int64.max - 4 * Int64(plan.frameSize) ? Int64.max : max(target, end) + 2 * Int64(plan.frameSize)
            if !index.isComplete && index.indexedFrames <= reach {
                try extendIndexFromTheStart(index, through: reach)
            }
            let restart = plan.restartPacket(for: target, in: index)
            try source.demuxer.seek(toByte: index.entries[restart].position)
            nextEntry = restart
            lastPacketPosition = nil
            hasSought = true
        } else if !source.parameters.timestampsResolveSamples {
            // Timestamps too coarse to find a sample by: decode again from the start, counting.
            try source.demuxer.seek(stream: source.streamIndex, toTimestamp: source.parameters.startTimestamp ?? 0)
        } else {
            let preroll = Int64(plan.prerollSamples)
            // Not clamped at 0: an encoder's priming packets lie before output frame 0.
            let timestamp = source.parameters.timeBaseUnits(fromSamples: target - preroll + (origin ?? 0),
                                                            sampleRate: source.parameters.sampleRate)
            do {
                try source.demuxer.seek(stream: source.streamIndex, toTimestamp: timestamp)
            } catch {
                // No index to seek by: start again from the beginning and decode up to the target.
                try source.demuxer.seek(toByte: 0)
            }
        }
        decoder.flush()
        state = .reading
        packetWaiting = false
        dropBefore = target
        nextPosition = 0
        // Decode up to the target now, so the caller learns where the stream really is.
        if try next() {
            holdsFrame = true
            return frameStart
        }
        return max(nextPosition, 0)
    }

    /// Finds which timestamp is output position 0, without decoding: the stream's start time, or
    /// from the first packet
    /// (a decoder that has decoded nothing decodes a restart at the start exactly as a fresh
    /// decode: even AAC's noise substitution draws the same numbers).
    private func learnOrigin() throws {
        // The demuxer's start time is the first output sample's timestamp, whatever trimmed the
        // start (skip side data, which Ogg attaches only on the first read; a codec delay; a
        // Vorbis first packet that only primes the decoder).
        if let start = source.parameters.startSamples {
            origin = start
            return
        }
        while try source.demuxer.readPacket(into: packet) {
            guard packet.streamIndex == source.streamIndex else { continue }
            lastPacketPosition = packet.filePosition
            if firstPacketPosition == nil { firstPacketPosition = packet.filePosition }
            let pts = packet.presentationTimestamp.map {
                source.parameters.samples(fromTimeBaseUnits: $0, sampleRate: source.parameters.sampleRate)
            } ?? 0
            origin = pts + Int64(packet.skipSamples.start)
            return
        }
        origin = 0
    }

    /// A pipe cannot be sought in: decoding goes on from where it is and drops what comes
    /// before `target`, which must not have been passed already.
    private func skipForward(to target: Int64) throws -> Int64 {
        guard target >= nextPosition, !holdsFrame || frameStart <= target else {
            throw ReverseAudioError.invalidOption("\(source.url.displayPath): a pipe is read once; it cannot go back to frame \(target)")
        }
        holdsFrame = false
        dropBefore = target
        if try next() {
            holdsFrame = true
            return frameStart
        }
        return max(nextPosition, 0)
    }

    /// Indexes the packets through output frame `frame`, reading them in order from the first:
    /// the demuxer attaches the gapless trimming (the LAME tag's end padding) by true
    /// timestamps, which it only knows reading in order from the start, not after a byte seek.
    /// An index that must grow after decoding moved the demuxer is therefore made again.
    private func extendIndexFromTheStart(_ index: PacketIndex, through frame: Int64) throws {
        let readingOnFromIndex = index.entries.isEmpty ? lastPacketPosition == nil : lastPacketPosition == index.entries.last?.position
        if !readingOnFromIndex {
            index.removeAll()
            if let first = firstPacketPosition { try source.demuxer.seek(toByte: first) }
        }
        try index.extend(through: frame, demuxer: source.demuxer, streamIndex: source.streamIndex,
                         packet: packet, isCancelled: isCancelled)
        lastPacketPosition = index.entries.last?.position
    }

    /// Decodes the next frame of the stream, whatever its position.
    private func decodeFrame() throws -> Bool {
        let decoder = source.decoder
        while state != .finished {
            if isCancelled() { throw CancellationError() }
            let result: Decoder.ReceiveResult
            do {
                result = try decoder.receive(into: frame)
            } catch {
                noteSkipped(error)
                if state == .draining { state = .finished } else { try feed() }
                continue
            }
            switch result {
            case .frame:
                guard frame.sampleCount > 0 else { continue }
                if firstFrameCount == nil { firstFrameCount = frame.sampleCount }
                return true
            case .needsInput:
                if state == .draining { state = .finished } else { try feed() }
            case .endOfStream:
                state = .finished
            }
        }
        return false
    }

    /// Sends the next packet of our stream, or starts draining at the end of the file.
    private func feed() throws {
        let decoder = source.decoder
        if packetWaiting {
            packetWaiting = try decoder.send(packet) == .outputPending
            return
        }
        while true {
            if isCancelled() { throw CancellationError() }
            let hasPacket: Bool
            do {
                hasPacket = try source.demuxer.readPacket(into: packet)
            } catch {
                if error.isInterrupted && isCancelled() { throw CancellationError() }
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
            lastPacketPosition = packet.filePosition
            if firstPacketPosition == nil { firstPacketPosition = packet.filePosition }
            // Until the first seek the demuxer's own timestamps are exact: no index is kept (a
            // whole decode of an hour of MP3 would otherwise hold 150,000 entries for nothing).
            if let index, hasSought { try stampFromIndex(index) }
            do {
                packetWaiting = try decoder.send(packet) == .outputPending
                return
            } catch {
                noteSkipped(error)
            }
        }
    }

    /// Gives the packet its exact timestamp and trimming from the index (the demuxer only
    /// estimates them after a seek).
    private func stampFromIndex(_ index: PacketIndex) throws {
        let position = packet.filePosition ?? -1
        // A packet past the index (past where this decode stops) keeps the demuxer's stamps.
        guard let entry = index.packet(at: position, from: nextEntry) else { return }
        nextEntry = entry + 1
        let found = index.entries[entry]
        packet.setTimestamp(source.parameters.timeBaseUnits(fromSamples: found.rawStart + (origin ?? 0),
                                                            sampleRate: source.parameters.sampleRate))
        if found.skip != packet.skipSamples {
            try packet.setSkipSamples(start: found.skip.start, end: found.skip.end)
        }
    }

    private func noteSkipped(_ error: FFmpegError) {
        // Pre-roll packets decoded without their history may fail: that is expected, not damage.
        guard dropBefore == nil else { return }
        skippedPackets += 1
        if firstSkipReason == nil { firstSkipReason = error.message }
    }
}
