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
    /// The time between the last two frames delivered, and the frames delivered of the group
    /// being decoded.
    private var lastStep: Int64?
    private var deliveredInGroup = 0

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
        lastStep = nil
        deliveredInGroup = 0
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
        lastStep = nil
        deliveredInGroup = 0
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
        guard let timestamp = timestamp(of: frame, in: group), shows(frame, at: timestamp, in: group) else { return }
        if let last = lastDelivered, timestamp <= last {
            repeatedTimestamps += 1
            return
        }
        if let last = lastDelivered { lastStep = timestamp - last }
        lastDelivered = timestamp
        deliveredInGroup += 1
        try deliver(frame)
    }

    /// True when `frame` is one of those `group` shows. A picture whose packet carried no
    /// presentation time (an MPEG program stream stamps only its keyframes' packets) is stamped
    /// by FFmpeg with the decoding time of the packet decoded after it: the last picture before
    /// a keyframe so gets the keyframe packet's, which may be the next group's start. Such a
    /// picture belongs to the group decoded from its packet as long as the group still lacks
    /// pictures (the index counted it there by its own packet's time).
    private func shows(_ frame: Frame, at timestamp: Int64, in group: KeyframeIndex.Group) -> Bool {
        if group.contains(timestamp) { return true }
        return frame.presentationTimestamp == nil && timestamp >= group.start && deliveredInGroup < group.frameCount
    }

    /// The frame's presentation time. Where FFmpeg has none (a picture without a presentation
    /// time of its own that a drain releases: no packet follows whose decoding time it could
    /// take), it is the one a continuous decode implies: the picture before it plus its
    /// duration; for the first picture of a decode, its keyframe's time, or, when that packet
    /// stated only a decoding time, one picture later (the decoder's one-picture delay that
    /// decoding time allows for). The frame is stamped with it, for whoever reads its time next.
    private func timestamp(of frame: Frame, in group: KeyframeIndex.Group) -> Int64? {
        if let stamped = frame.bestEffortTimestamp { return stamped }
        let step = frame.duration > 0 ? frame.duration : (lastStep ?? 0)
        let inferred: Int64
        if let last = lastDelivered {
            guard step > 0 else { return nil }
            inferred = last + step
        } else {
            inferred = group.keyDecodingTimestamp == group.keyTimestamp ? group.keyTimestamp + step : group.keyTimestamp
        }
        frame.setBestEffortTimestamp(inferred)
        return inferred
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
                let demuxer = try source.mappingErrors { try Demuxer(path: source.url.mediaLocation, isCancelled: isCancelled) }
                earlierSkips += decoding.skippedPackets
                reader = PacketReader(demuxer: demuxer, streamIndex: source.stream.index)
                decoding = try source.mappingErrors { try FrameDecoder(decoder: source.decoder, reader: reader) }
            }
            var reachedKeyPosition = false
            while try nextVideoPacket() {
                if isKeyframe(of: group, afterItsPosition: &reachedKeyPosition) { return }
                if isPast(group) { break }
            }
        }
        throw ReverseAudioError.input(.videoStreamFailed(path: source.url.displayPath, stream: source.streamName,
                                                  reason: "the keyframe at timestamp \(group.keyTimestamp) cannot be found again"))
    }

    /// True when `packet` is `group`'s keyframe. Read in order, the keyframe's packet starts
    /// where the index saw it. After a seek, a parser that restarts inside a program stream's
    /// PES packet first hands out what precedes the picture there (the end of the picture
    /// before, which reading in order joined to that one) with the PES packet's position and
    /// time: the keyframe is then the next keyframe packet, which has no position of its own.
    private func isKeyframe(of group: KeyframeIndex.Group, afterItsPosition reached: inout Bool) -> Bool {
        if let position = group.keyPosition, let here = packet.filePosition {
            if here == position && packet.isKeyframe { return true }
            reached = here == position
            return false
        }
        if reached { return packet.isKeyframe }
        return packet.isKeyframe && (packet.presentationTimestamp ?? packet.decodingTimestamp) == group.keyTimestamp
    }

    private func isPast(_ group: KeyframeIndex.Group) -> Bool {
        if let position = group.keyPosition, let here = packet.filePosition { return here > position }
        if let key = group.keyDecodingTimestamp, let here = packet.decodingTimestamp { return here > key }
        return false
    }
}
