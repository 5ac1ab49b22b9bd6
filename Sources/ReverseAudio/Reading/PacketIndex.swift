import FFmpeg
import Foundation

/// Where each packet of a stream starts in the file and in the decoded output, for inputs whose
/// demuxer cannot seek exactly (MP3 and ADTS AAC estimate their position from the bit rate or a
/// coarse table, and so do their timestamps after a seek).
///
/// Built by reading packets without decoding them, from the start of the file up to the
/// furthest point asked for so far: a seek costs reading (not decoding) the packets before it.
/// Each packet's output start mirrors what libavcodec emits: whole frames of the codec's frame
/// size, minus gapless trimming (skip samples at the start may span several frames; padding at
/// the end applies to its own frame).
final class PacketIndex {
    struct Entry {
        /// Byte position of the packet in the file.
        let position: Int64
        /// Bytes of payload.
        let size: Int
        /// Output frame of the packet's first sample before its own start trimming: the
        /// timestamp (in samples) the packet is stamped with so its frames come out at the
        /// right output positions.
        let rawStart: Int64
        /// Output frame of the packet's first sample after trimming.
        let outputStart: Int64
        /// Frames of output the packet yields after trimming.
        let emitted: Int64
        /// The gapless trimming the demuxer attached to it.
        let skip: (start: Int, end: Int)
    }

    private(set) var entries: [Entry] = []
    /// True once every packet of the stream is in ``entries``.
    private(set) var isComplete = false
    private let frameSize: Int64
    private var total: Int64 = 0
    private var pendingSkip: Int64 = 0
    /// Samples decoded so far before trimming, and the start skips met so far.
    private var rawPosition: Int64 = 0
    private var skipped: Int64 = 0

    init(frameSize: Int) {
        self.frameSize = Int64(frameSize)
    }

    /// Output frames covered by the packets indexed so far.
    var indexedFrames: Int64 { total }

    /// Reads packets from `demuxer`'s current position (the first unindexed packet) until the
    /// index covers `frame`, or the stream ends.
    func extend(through frame: Int64, demuxer: Demuxer, streamIndex: Int, packet: Packet,
                isCancelled: () -> Bool) throws {
        while !isComplete && total <= frame {
            if isCancelled() { throw CancellationError() }
            guard try demuxer.readPacket(into: packet) else {
                isComplete = true
                return
            }
            guard packet.streamIndex == streamIndex else { continue }
            append(packet)
        }
    }

    /// Like ``extend(through:demuxer:streamIndex:packet:isCancelled:)`` for an MP3 file (`url`),
    /// with the frames after the first few found by ``MP3FrameScanner`` rather than read through
    /// the demuxer (several times faster). The demuxer reads the first packets (they carry the
    /// gapless start trimming). When the scanner stops short of `frame` (near the end of the file,
    /// at junk) what it found is dropped and the demuxer reads on from where it was: after a jump
    /// its timestamps, and so the end trimming it attaches, are only estimates. The demuxer is
    /// left after the last packet indexed.
    func extend(through frame: Int64, scanningMP3 url: URL, demuxer: Demuxer, streamIndex: Int, packet: Packet,
                isCancelled: () -> Bool) throws {
        while !isComplete && total <= frame && (entries.count < 2 || pendingSkip > 0) {
            guard try demuxer.readPacket(into: packet) else {
                isComplete = true
                return
            }
            if packet.streamIndex == streamIndex { append(packet) }
        }
        if !isComplete, total <= frame, let last = entries.last, var scanner = MP3FrameScanner(url: url, frameAt: last.position),
           scanner.next()?.size == last.size {
            let before = (count: entries.count, total: total, rawPosition: rawPosition)
            var scanned = 0
            while total <= frame, let next = scanner.next() {
                if scanned % 4096 == 0 && isCancelled() { throw CancellationError() }
                entries.append(Entry(position: next.position, size: next.size, rawStart: rawPosition - skipped,
                                     outputStart: total, emitted: frameSize, skip: (0, 0)))
                total += frameSize
                rawPosition += frameSize
                scanned += 1
            }
            if total > frame {
                if scanned > 0 { try demuxer.seek(toByte: scanner.position) }
            } else {
                entries.removeLast(entries.count - before.count)
                (total, rawPosition) = (before.total, before.rawPosition)
            }
        }
        try extend(through: frame, demuxer: demuxer, streamIndex: streamIndex, packet: packet, isCancelled: isCancelled)
    }

    /// Adds `packet` if it comes after every packet indexed so far; returns its entry's index.
    @discardableResult
    func append(_ packet: Packet) -> Int? {
        guard !packet.isDiscarded, let position = packet.filePosition else { return nil }
        if let last = entries.last, position <= last.position { return nil }
        let skip = packet.skipSamples
        pendingSkip += Int64(skip.start)
        skipped += Int64(skip.start)
        let trimmedStart = min(pendingSkip, frameSize)
        pendingSkip -= trimmedStart
        let emitted = max(0, frameSize - trimmedStart - Int64(skip.end))
        // A start skip longer than a frame (8 kHz MP3: 1105 samples, 576 per frame) spans several.
        entries.append(Entry(position: position, size: packet.size, rawStart: rawPosition - skipped,
                             outputStart: total, emitted: emitted, skip: skip))
        total += emitted
        rawPosition += frameSize
        return entries.count - 1
    }


    /// Marks the index as holding every packet (the stream ended while reading on).
    func markComplete() { isComplete = true }

    /// The index of the packet whose output holds `frame` (the last packet if past the end).
    func packet(containing frame: Int64) -> Int? {
        guard !entries.isEmpty else { return nil }
        var low = 0
        var high = entries.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if entries[middle].outputStart <= frame { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The index of the packet with byte position `position`, searching from `hint`.
    func packet(at position: Int64, from hint: Int) -> Int? {
        var index = max(0, hint)
        while index < entries.count {
            if entries[index].position == position { return index }
            if entries[index].position > position { return nil }
            index += 1
        }
        return nil
    }
}
