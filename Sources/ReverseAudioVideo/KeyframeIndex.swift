import FFmpeg
import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

/// The video stream's packets, read once without decoding: where each group of pictures starts,
/// how many packets decode it, and which frames it shows.
///
/// A group starts at a keyframe and shows the frames whose timestamps lie between its keyframe's
/// and the next keyframe's. With B-frames and open GOPs some of those frames come after the next
/// keyframe in decoding order (its leading pictures, which refer back into this group): the
/// group's packets then run through them, so a decode that starts at the group's keyframe and
/// stops after ``Group/packetCount`` packets produces every frame the group shows, exactly as a
/// continuous decode does.
///
/// The scan keeps 9 bytes per packet while it runs (a timestamp and flags) and, afterwards,
/// one entry per group.
struct KeyframeIndex {
    struct Group: Equatable {
        /// Where the keyframe is: its byte position in the file (nil when the demuxer does not
        /// say) and its timestamps, to seek to it and recognise it.
        let keyPosition: Int64?
        let keyTimestamp: Int64
        let keyDecodingTimestamp: Int64?
        /// The keyframe's place among the stream's packets, in decoding order.
        let keyOrdinal: Int
        /// Packets of the stream to decode from the keyframe on, in decoding order.
        let packetCount: Int
        /// The group shows the frames with timestamps in `start ..< end` (`end` nil: to the end).
        let start: Int64
        let end: Int64?
        /// Frames it shows (packets the demuxer marks decode-only are not shown).
        let frameCount: Int

        func contains(_ timestamp: Int64) -> Bool {
            timestamp >= start && (end.map { timestamp < $0 } ?? true)
        }
    }

    let groups: [Group]
    /// Frames the stream shows (the output of a continuous decode, when nothing is damaged).
    let frameCount: Int
    /// The timestamp of the last frame shown, and its packet's duration (0 when unknown).
    let lastTimestamp: Int64?
    let lastDuration: Int64
    /// Packets that cannot be shown: before the first keyframe, or without a timestamp.
    let unplayablePackets: Int
    /// Packets read in all (the container may list more than a truncated file holds).
    let packetCount: Int
    /// Why reading stopped before the end of the file, if it did.
    let readFailure: String?

    /// The largest number of frames one group shows.
    var largestGroup: Int { groups.map(\.frameCount).max() ?? 0 }

    /// The groups to decode, from the last to the first, with neighbours joined into one decode
    /// while their frames fit in `memoryLimit` bytes (at `pictureBytes` each): short GOPs (and
    /// intra-only streams, where every frame is a keyframe) then cost one restart of the decoder
    /// per run of groups, not one per group, and its threads stay busy.
    static func decodingRuns(of groups: [Group], memoryLimit: Int, pictureBytes: Int) -> [Group] {
        let room = max(1, memoryLimit / max(pictureBytes, 1))
        var runs: [Group] = []
        var pending: [Group] = []  // consecutive groups, latest first
        func close() {
            guard let last = pending.first, let first = pending.last else { return }
            let through = pending.map { $0.keyOrdinal + $0.packetCount }.max()!
            runs.append(Group(keyPosition: first.keyPosition, keyTimestamp: first.keyTimestamp,
                              keyDecodingTimestamp: first.keyDecodingTimestamp, keyOrdinal: first.keyOrdinal,
                              packetCount: through - first.keyOrdinal, start: first.start, end: last.end,
                              frameCount: pending.map(\.frameCount).reduce(0, +)))
            pending = []
        }
        for group in groups.reversed() where group.frameCount > 0 {
            if !pending.isEmpty, pending.map(\.frameCount).reduce(0, +) + group.frameCount > room
                || pending.last!.start != group.end {
                close()
            }
            pending.append(group)
        }
        close()
        return runs
    }

    /// Reads every packet of `stream` from the start; the demuxer is left at the end.
    static func scan(_ demuxer: Demuxer, stream: Int, isCancelled: () -> Bool,
                     progress: ((Double) -> Void)? = nil, totalSeconds: Double? = nil,
                     timeBase: Rational) throws -> KeyframeIndex {
        let packet = try Packet()
        let reader = PacketReader(demuxer: demuxer, streamIndex: stream)
        var timestamps: [Int64] = []
        var flags: [UInt8] = []
        var keys: [(ordinal: Int, position: Int64?, timestamp: Int64, decoding: Int64?)] = []
        var last: (timestamp: Int64, duration: Int64)?
        let none = Int64.min
        // The ffmpeg CLI treats a read error as the end of the input: so does the reader.
        while try reader.next(into: packet) {
            if isCancelled() { throw CancellationError() }
            let timestamp = packet.presentationTimestamp ?? packet.decodingTimestamp
            let ordinal = timestamps.count
            timestamps.append(timestamp ?? none)
            flags.append((packet.isKeyframe ? 1 : 0) | (packet.isDiscarded ? 2 : 0))
            if packet.isKeyframe, let timestamp {
                keys.append((ordinal, packet.filePosition, timestamp, packet.decodingTimestamp))
            }
            if let timestamp, !packet.isDiscarded {
                if last == nil || timestamp > last!.timestamp { last = (timestamp, packet.duration) }
                if let progress, let totalSeconds, totalSeconds > 0, ordinal % 64 == 0 {
                    progress(Double(timestamp) * timeBase.doubleValue / totalSeconds)
                }
            }
        }
        // Group boundaries: keyframes whose timestamps rise (a keyframe shown before the one
        // before it cannot start a group of its own).
        var boundaries: [(ordinal: Int, position: Int64?, timestamp: Int64, decoding: Int64?)] = []
        for key in keys where boundaries.last.map({ key.timestamp > $0.timestamp }) ?? true {
            boundaries.append(key)
        }
        guard !boundaries.isEmpty else {
            return KeyframeIndex(groups: [], frameCount: 0, lastTimestamp: nil, lastDuration: 0,
                                 unplayablePackets: timestamps.count, packetCount: timestamps.count, readFailure: reader.readFailure)
        }
        let starts = boundaries.map(\.timestamp)
        var lastOrdinal = boundaries.map(\.ordinal)
        var counts = [Int](repeating: 0, count: boundaries.count)
        var unplayable = 0
        var shownFirst: Int64?
        var shownLast: (timestamp: Int64, duration: Int64)?
        for ordinal in timestamps.indices {
            let timestamp = timestamps[ordinal]
            guard timestamp != none, timestamp >= starts[0], ordinal >= boundaries[0].ordinal else {
                if flags[ordinal] & 2 == 0 { unplayable += 1 }
                continue
            }
            // The last group starting at or before this timestamp.
            var low = 0, high = starts.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if starts[middle] <= timestamp { low = middle } else { high = middle - 1 }
            }
            // A frame decoded before its group's keyframe cannot come out of the group's decode.
            guard ordinal >= boundaries[low].ordinal else {
                if flags[ordinal] & 2 == 0 { unplayable += 1 }
                continue
            }
            lastOrdinal[low] = max(lastOrdinal[low], ordinal)
            if flags[ordinal] & 2 == 0 {
                counts[low] += 1
                if shownFirst == nil || timestamp < shownFirst! { shownFirst = timestamp }
                if shownLast == nil || timestamp > shownLast!.timestamp {
                    shownLast = (timestamp, last?.timestamp == timestamp ? last!.duration : 0)
                }
            }
        }
        let groups = boundaries.indices.map { index in
            Group(keyPosition: boundaries[index].position, keyTimestamp: boundaries[index].timestamp,
                  keyDecodingTimestamp: boundaries[index].decoding, keyOrdinal: boundaries[index].ordinal,
                  packetCount: lastOrdinal[index] - boundaries[index].ordinal + 1,
                  start: starts[index], end: index + 1 < starts.count ? starts[index + 1] : nil, frameCount: counts[index])
        }
        return KeyframeIndex(groups: groups, frameCount: counts.reduce(0, +), lastTimestamp: shownLast?.timestamp,
                             lastDuration: shownLast?.duration ?? 0, unplayablePackets: unplayable,
                             packetCount: timestamps.count, readFailure: reader.readFailure)
    }
}
