import CFFmpeg

/// The decode loop of one stream: packets from a ``PacketReader`` go to a ``Decoder``, decoded
/// frames come out in order, exactly as the `ffmpeg` CLI produces them. The only place outside
/// the ``Decoder`` itself where packets are sent and frames received.
///
/// `EAGAIN` from either side is handled here (a packet the decoder refuses until its output is
/// taken is offered again); at the end of the file the decoder is drained; end of stream is not
/// an error. A packet the decoder rejects (damage) is counted and skipped, as the CLI skips it.
/// The skip-samples side data the demuxer attaches (gapless trimming) reaches the decoder with
/// the packet; ``prepare`` may restamp a packet before it is sent (an index's exact timestamps).
package final class FrameDecoder {
    package let decoder: Decoder
    package let reader: PacketReader
    /// Called with each packet of the stream before it is sent.
    package var prepare: ((Packet) throws(FFmpegError) -> Void)?
    /// While false, rejected packets are not counted (pre-roll after a seek may fail to decode).
    package var countsSkippedPackets = true
    /// Packets for which this is true are read but not decoded (those wholly before a target
    /// reached by reading from the start); nil decodes every packet.
    package var passesOver: ((Packet) -> Bool)?
    private let packet: Packet
    private var state = State.reading
    /// The decoder refused `packet` until its output was taken: offer it again first.
    private var packetWaiting = false

    private enum State { case reading, draining, finished }

    /// Packets the decoder rejected, and the first reason.
    package private(set) var skippedPackets = 0
    package private(set) var firstSkipReason: String?

    package init(decoder: Decoder, reader: PacketReader) throws(FFmpegError) {
        self.decoder = decoder
        self.reader = reader
        packet = try Packet()
    }

    /// True once the decoder has given everything.
    package var isFinished: Bool { state == .finished }

    /// Decodes the next frame into `frame` (frames of no samples are passed over).
    /// - Returns: false at the end of the stream.
    package func next(into frame: Frame) throws(FFmpegError) -> Bool {
        while state != .finished {
            guard let result = try receive(into: frame) else {
                if state == .draining { state = .finished } else { try feed() }
                continue
            }
            switch result {
            case .frame:
                if frame.sampleCount == 0 && frame.width == 0 { continue }
                return true
            case .needsInput:
                if state == .draining { state = .finished } else { try feed() }
            case .endOfStream:
                state = .finished
            }
        }
        return false
    }

    /// Forgets everything buffered (after the demuxer was moved): decoding goes on from the
    /// demuxer's new position.
    package func restart() {
        decoder.flush()
        reader.clearFailure()
        state = .reading
        packetWaiting = false
    }

    /// Sends the next packet of the stream, or starts draining at the end of the file.
    private func feed() throws(FFmpegError) {
        if packetWaiting {
            packetWaiting = try send(packet) == .outputPending
            return
        }
        while true {
            guard try reader.next(into: packet) else {
                _ = try? decoder.send(nil)
                state = .draining
                return
            }
            if passesOver?(packet) == true { continue }
            try prepare?(packet)
            do {
                packetWaiting = try send(packet) == .outputPending
                return
            } catch {
                if error.isInterrupted { throw error }
                noteSkipped(error)
            }
        }
    }

    private func send(_ packet: Packet) throws(FFmpegError) -> Decoder.SendResult {
        try decoder.send(packet)
    }

    /// Takes the decoder's next output; nil when it rejected the data (counted), a
    /// cancellation thrown.
    private func receive(into frame: Frame) throws(FFmpegError) -> Decoder.ReceiveResult? {
        do {
            return try decoder.receive(into: frame)
        } catch {
            if error.isInterrupted { throw error }
            noteSkipped(error)
            return nil
        }
    }

    private func noteSkipped(_ error: FFmpegError) {
        guard countsSkippedPackets else { return }
        skippedPackets += 1
        if firstSkipReason == nil { firstSkipReason = error.message }
    }

    // MARK: Decoding given packets (a group of pictures, a packet alone)

    /// Sends `packet` and hands every frame it yields to `deliver` (the frame is the decoder's:
    /// take it over or copy it before returning). A packet the decoder rejects is counted.
    package func decode(_ packet: Packet, into frame: Frame, deliver: (Frame) throws -> Void) throws {
        while true {
            let result: Decoder.SendResult
            do {
                result = try decoder.send(packet)
            } catch {
                if error.isInterrupted { throw error }
                noteSkipped(error)
                return
            }
            try receiveAll(into: frame, deliver)
            if result == .accepted { return }
        }
    }

    /// Drains the decoder into `deliver` and flushes it for a restart.
    package func drain(into frame: Frame, deliver: (Frame) throws -> Void) throws {
        do {
            _ = try decoder.send(nil)
        } catch {
            noteSkipped(error)
        }
        try receiveAll(into: frame, deliver)
        decoder.flush()
    }

    private func receiveAll(into frame: Frame, _ deliver: (Frame) throws -> Void) throws {
        while true {
            guard let result = try receive(into: frame) else { continue }
            guard result == .frame else { return }
            try deliver(frame)
        }
    }

    /// What `packet` decodes to alone, with a fresh decoder of `demuxer`'s stream `streamIndex`
    /// (for a codec whose frames depend on nothing before them: FLAC): its samples, and the
    /// decoder's reason when it rejected the packet.
    package static func decodingAlone(_ packet: Packet, demuxer: Demuxer, streamIndex: Int) throws -> (samples: Int, rejection: String?) {
        let decoder = try Decoder(demuxer: demuxer, streamIndex: streamIndex, threads: 1)
        let loop = try FrameDecoder(decoder: decoder, reader: PacketReader(demuxer: demuxer, streamIndex: streamIndex))
        let frame = try Frame()
        var samples = 0
        try loop.decode(packet, into: frame) { samples += $0.sampleCount }
        try loop.drain(into: frame) { samples += $0.sampleCount }
        return (samples, loop.skippedPackets > 0 ? loop.firstSkipReason ?? FFmpegError.invalidDataText : nil)
    }

    /// Samples each of `packets` decodes to with a fresh decoder of `demuxer`'s stream
    /// `streamIndex`, given in order (a packet the decoder rejects, or one whose frame needs
    /// data from before the first, gives none; the gapless trimming they carry applies).
    package static func samples(decoding packets: [Packet], demuxer: Demuxer, streamIndex: Int) throws(FFmpegError) -> [Int] {
        let decoder = try Decoder(demuxer: demuxer, streamIndex: streamIndex)
        let loop = try FrameDecoder(decoder: decoder, reader: PacketReader(demuxer: demuxer, streamIndex: streamIndex))
        let frame = try Frame()
        var counts: [Int] = []
        do {
            for packet in packets {
                var samples = 0
                try loop.decode(packet, into: frame) { samples += $0.sampleCount }
                counts.append(samples)
            }
            try loop.drain(into: frame) { frame in if !counts.isEmpty { counts[counts.count - 1] += frame.sampleCount } }
        } catch let error as FFmpegError {
            throw error
        } catch {
            throw FFmpegError.invalidArgument("decoding packets alone")
        }
        return counts
    }
}
