import FFmpeg
import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

/// Decodes the video stream one group of pictures at a time: a restart at the group's keyframe,
/// its packets, a drain. Hands out the frames the group shows, in presentation order.
///
/// Errors FFmpeg can skip (a damaged packet) are counted and skipped, as the `ffmpeg` CLI
/// skips them; end of stream is not an error.
final class GroupDecoder {
    private let source: VideoSource
    private var reader: PacketReader
    private var decoding: FrameDecoder
    private let packet: Packet
    private let frame: Frame
    private let isCancelled: @Sendable () -> Bool
    /// Packets rejected by decoders replaced after a reopened demuxer.
    private var earlierSkips = 0
    /// Frames dropped because their timestamp did not rise (a stream repeating a timestamp).
    private(set) var repeatedTimestamps = 0
    private var lastDelivered: Int64?

    init(source: VideoSource, isCancelled: @escaping @Sendable () -> Bool) throws {
        self.source = source
        self.isCancelled = isCancelled
        let reader = PacketReader(demuxer: source.demuxer, streamIndex: source.stream.index)
        self.reader = reader
        decoding = try source.mappingErrors { try FrameDecoder(decoder: source.decoder, reader: reader) }
        packet = try source.mappingErrors { try Packet() }
        frame = try source.mappingErrors { try Frame() }
    }

    /// Packets the decoder rejected (and a read error that ended the input), and the first reason.
    var skippedPackets: Int { earlierSkips + decoding.skippedPackets + (reader.readFailure == nil ? 0 : 1) }
    var firstSkipReason: String? { decoding.firstSkipReason ?? reader.readFailure }

    /// Decodes `group` and calls `deliver` with each frame it shows, in order (the frame is
    /// the decoder's: take it over or copy it before returning).
    func decode(_ group: KeyframeIndex.Group, deliver: (Frame) throws -> Void) throws {
        try seek(to: group)
        lastDelivered = nil
        var fed = 0
        var more = true
        // The keyframe is in `packet` now.
        while more {
            if isCancelled() { throw CancellationError() }
            try decoding.decode(packet, into: frame) { try self.accept($0, in: group, deliver) }
            fed += 1
            more = try fed < group.packetCount && nextVideoPacket()
        }
        try decoding.drain(into: frame) { try self.accept($0, in: group, deliver) }
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
            if isCancelled() { throw CancellationError() }
            try decoding.decode(packet, into: frame) { try self.accept($0, in: everything, deliver) }
            more = try nextVideoPacket()
        }
        try decoding.drain(into: frame) { try self.accept($0, in: everything, deliver) }
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

    /// Reads the stream's next packet into `packet`; false at the end of the file (a read
    /// error ends the input, as the `ffmpeg` CLI treats it).
    private func nextVideoPacket() throws -> Bool {
        if isCancelled() { throw CancellationError() }
        return try source.mappingErrors { try reader.next(into: packet) }
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
                    try reader.demuxer.seek(stream: source.stream.index, toTimestamp: target)
                } catch {
                    if error.isInterrupted { throw CancellationError() }
                    continue
                }
                reader.clearFailure()
            } else {
                let demuxer = try source.mappingErrors { try Demuxer(path: source.url.path, isCancelled: isCancelled) }
                earlierSkips += decoding.skippedPackets
                reader = PacketReader(demuxer: demuxer, streamIndex: source.stream.index)
                decoding = try source.mappingErrors { try FrameDecoder(decoder: source.decoder, reader: reader) }
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
