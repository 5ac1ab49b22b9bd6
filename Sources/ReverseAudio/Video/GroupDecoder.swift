import FFmpeg
import Foundation

/// Decodes the video stream one group of pictures at a time: a restart at the group's keyframe,
/// its packets, a drain. Hands out the frames the group shows, in presentation order.
///
/// Errors FFmpeg can skip (a damaged packet) are counted and skipped, as the `ffmpeg` CLI
/// skips them; end of stream is not an error.
final class GroupDecoder {
    private let source: VideoSource
    private var demuxer: Demuxer
    private let packet: Packet
    private let frame: Frame
    private let isCancelled: @Sendable () -> Bool
    /// Packets the decoder rejected, and the first reason.
    private(set) var skippedPackets = 0
    private(set) var firstSkipReason: String?
    /// Frames dropped because their timestamp did not rise (a stream repeating a timestamp).
    private(set) var repeatedTimestamps = 0
    private var lastDelivered: Int64?

    init(source: VideoSource, isCancelled: @escaping @Sendable () -> Bool) throws {
        self.source = source
        demuxer = source.demuxer
        self.isCancelled = isCancelled
        packet = try Packet()
        frame = try Frame()
    }

    private var streamIndex: Int { source.stream.index }

    /// Decodes `group` and calls `deliver` with each frame it shows, in order (the frame is
    /// the decoder's; take it over or copy it before returning).
    func decode(_ group: KeyframeIndex.Group, deliver: (Frame) throws -> Void) throws {
        try seek(to: group)
        lastDelivered = nil
        var fed = 0
        var more = true
        // The keyframe is in `packet` now.
        while more {
            try send(packet) { try self.accept($0, in: group, deliver) }
            fed += 1
            more = try fed < group.packetCount && nextVideoPacket()
        }
        try drain { try self.accept($0, in: group, deliver) }
    }

    /// Decodes from `first` (the first group) to the end of the stream in one continuous pass
    /// and calls `deliver` with every frame shown, in order.
    func decodeAll(from first: KeyframeIndex.Group, deliver: (Frame) throws -> Void) throws {
        try seek(to: first)
        lastDelivered = nil
        let everything = KeyframeIndex.Group(keyPosition: nil, keyTimestamp: first.start, keyDecodingTimestamp: nil,
                                             keyOrdinal: first.keyOrdinal, packetCount: .max, start: first.start, end: nil, frameCount: 0)
        var more = true
        while more {
            try send(packet) { try self.accept($0, in: everything, deliver) }
            more = try nextVideoPacket()
        }
        try drain { try self.accept($0, in: everything, deliver) }
    }

    private func accept(_ frame: Frame, in group: KeyframeIndex.Group, _ deliver: (Frame) throws -> Void) throws {
        guard let timestamp = frame.bestEffortTimestamp, group.contains(timestamp) else { return }
        if let last = lastDelivered, timestamp <= last {
            repeatedTimestamps += 1
            return
        }
        lastDelivered = timestamp
        try deliver(frame)
    }

    /// Offers `packet` to the decoder, taking out frames whenever it asks for that first.
    private func send(_ packet: Packet, _ received: (Frame) throws -> Void) throws {
        while true {
            if isCancelled() { throw CancellationError() }
            let result: Decoder.SendResult
            do {
                result = try source.decoder.send(packet)
            } catch {
                note(error)
                return
            }
            try receiveAll(received)
            if result == .accepted { return }
        }
    }

    /// Sends the end of the stream, takes every frame left, and resets the decoder for a restart.
    private func drain(_ received: (Frame) throws -> Void) throws {
        do {
            _ = try source.decoder.send(nil)
        } catch {
            note(error)
        }
        try receiveAll(received)
        source.decoder.flush()
    }

    private func receiveAll(_ received: (Frame) throws -> Void) throws {
        while true {
            let result: Decoder.ReceiveResult
            do {
                result = try source.decoder.receive(into: frame)
            } catch {
                note(error)
                continue
            }
            guard result == .frame else { return }
            try received(frame)
        }
    }

    private func note(_ error: FFmpegError) {
        skippedPackets += 1
        if firstSkipReason == nil { firstSkipReason = error.message }
    }

    /// Reads the stream's next packet into `packet`; false at the end of the file (a read
    /// error ends the input, as the `ffmpeg` CLI treats it).
    private func nextVideoPacket() throws -> Bool {
        while true {
            if isCancelled() { throw CancellationError() }
            let read: Bool
            do {
                read = try demuxer.readPacket(into: packet)
            } catch {
                if error.isInterrupted { throw CancellationError() }
                note(error)
                return false
            }
            guard read else { return false }
            if packet.streamIndex == streamIndex { return true }
        }
    }

    /// Moves reading to `group`'s keyframe and leaves it in `packet`. The demuxer's own seek is
    /// only asked for a place at or before it (MP4 seeks by decoding time, Matroska by
    /// presentation time); packets are then read, not decoded, up to the keyframe. A demuxer
    /// that lands past it is replaced by a fresh one, read from the start.
    private func seek(to group: KeyframeIndex.Group) throws {
        let target = min(group.keyTimestamp, group.keyDecodingTimestamp ?? group.keyTimestamp)
        for attempt in 0..<2 {
            if attempt == 0 {
                do {
                    try demuxer.seek(stream: streamIndex, toTimestamp: target)
                } catch {
                    if error.isInterrupted { throw CancellationError() }
                    continue
                }
            } else {
                demuxer = try source.mappingErrors { try Demuxer(path: source.url.path, isCancelled: isCancelled) }
            }
            while try nextVideoPacket() {
                if isKeyframe(of: group) { return }
                if isPast(group) { break }
            }
        }
        throw ReverseAudioError.videoStreamFailed(path: source.url.displayPath, stream: source.streamName,
                                                  reason: "the keyframe at timestamp \(group.keyTimestamp) cannot be found again")
    }

    private func isKeyframe(of group: KeyframeIndex.Group) -> Bool {
        if let position = group.keyPosition, let here = packet.filePosition { return here == position }
        return packet.isKeyframe && (packet.presentationTimestamp ?? packet.decodingTimestamp) == group.keyTimestamp
    }

    private func isPast(_ group: KeyframeIndex.Group) -> Bool {
        if let position = group.keyPosition, let here = packet.filePosition { return here > position }
        if let key = group.keyDecodingTimestamp, let here = packet.decodingTimestamp { return here > key }
        return false
    }
}
