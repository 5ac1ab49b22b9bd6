import FFmpeg
import ReverseAudioCore

/// The packet index of an MP3 stream's end, built from a byte seek near it rather than by
/// reading every packet from the first: what lets a range near the end of a file read from a
/// URL fetch only that end.
///
/// The tag frame (``MP3InfoTag``) states how many frames the stream has and where its last
/// one ends; the packets read from the seek to the end of the file are counted back from
/// there, so each one's number, and with it its place in the output and its end trimming,
/// follows from the tag as the demuxer computes them reading from the start. The count is
/// trusted only as far back as the packets join end to end, each a frame of the stream's
/// kind, the last ending where the tag says; the first few after the seek are left out (a
/// byte seek may land on bytes that only look like a frame header); the last packets are
/// decoded to check what they give. Anything else is not a tail to count back on: nil, and
/// the caller indexes from the start.
extension PacketIndex {
    /// Packets left out after the seek's landing, whatever they look like.
    private static let landingPackets = 8
    /// Packets before the one holding the target that a first landing aims to read: room for
    /// the MP3 bit reservoir's pre-roll and the left-out packets.
    private static let landingMargin: Int64 = 64
    /// The last packets decoded to check what they give, after enough to fill the reservoir.
    private static let decodedAtEnd = 16
    private static let checkedAtEnd = 4

    /// The index of `input`'s MP3 stream from before output frame `target` (with the codec's
    /// pre-roll) to its end, placed by `tag`; nil when the packets do not bear the tag out, or
    /// when the tail would reach back to the stream's first packets (an index from the start
    /// is then no dearer). Moves the demuxer (the caller seeks before reading on).
    static func mp3Tail(of input: AudioInput, tag: MP3InfoTag, reaching target: Int64,
                        isCancelled: () -> Bool) throws -> PacketIndex? {
        let holding = tag.frameNumber(holding: target)
        var landing = holding - landingMargin
        for _ in 0..<3 {
            guard landing > Int64(headPackets) else { return nil }
            guard let (index, first) = try tail(of: input, tag: tag, landingAt: tag.estimatedPosition(ofFrame: landing),
                                                isCancelled: isCancelled) else { return nil }
            if index.reaches(target) { return index }
            // Landed too late (the bytes per frame vary more than the estimate allowed): twice
            // as far back again.
            landing = min(landing, first) - 2 * (max(first - landing, 0) + landingMargin)
        }
        return nil
    }

    /// The index of the packets from a byte seek to `position` to the end, and the number of
    /// its first packet; nil when they do not bear the tag out.
    private static func tail(of input: AudioInput, tag: MP3InfoTag, landingAt position: Int64,
                             isCancelled: () -> Bool) throws -> (PacketIndex, Int64)? {
        try mappingFFmpegErrors(path: input.path) { try input.demuxer.seek(toByte: position) }
        let reader = PacketReader(demuxer: input.demuxer, streamIndex: input.streamIndex)
        let packet = try mappingFFmpegErrors(path: input.path) { try Packet() }
        var read: [(position: Int64, size: Int, decodes: Bool)] = []
        var last: [Packet] = []
        var kind: MPEGAudioHeader?
        while try mappingFFmpegErrors(path: input.path, { try reader.next(into: packet) }) {
            if isCancelled() { throw CancellationError() }
            guard !packet.isDiscarded, let at = packet.filePosition else { continue }
            let header = packet.withBytes { $0.count >= 4 ? MPEGAudioHeader($0.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }) : nil }
            if kind == nil { kind = header }
            // A frame of another kind (version, rate, channels) is not one of this stream's.
            let decodes = input.traits.canDecode(packet) && header.map { kind?.isCompatible(with: $0) == true } == true
            read.append((at, packet.size, decodes))
            let kept = try mappingFFmpegErrors(path: input.path) { try Packet() }
            try mappingFFmpegErrors(path: input.path) { try kept.reference(packet) }
            last.append(kept)
            if last.count > decodedAtEnd { last.removeFirst() }
        }
        // The stream's last frame ends where the tag says (what follows may be a tag: ID3v1, APE).
        guard let lastFrame = read.lastIndex(where: \.decodes),
              read[lastFrame].position + Int64(read[lastFrame].size) == tag.streamEnd else { return nil }
        var chainStart = lastFrame
        while chainStart > 0, read[chainStart - 1].decodes,
              read[chainStart - 1].position + Int64(read[chainStart - 1].size) == read[chainStart].position {
            chainStart -= 1
        }
        let first = chainStart + landingPackets
        guard first <= lastFrame else { return nil }
        let firstNumber = tag.frames - Int64(lastFrame - first + 1)
        guard firstNumber > Int64(headPackets) else { return nil }
        var entries: [Entry] = []
        entries.reserveCapacity(read.count - first)
        var number = firstNumber
        var output = tag.outputStart(ofFrame: firstNumber)
        var emittedAtEnd: [Int64] = []
        for item in read[first...] {
            guard item.decodes else {
                entries.append(Entry(position: item.position, size: item.size, rawStart: output, outputStart: output, emitted: 0,
                                     skip: (0, 0), trimmedWhole: false))
                emittedAtEnd.append(0)
                continue
            }
            let discarded = tag.discardedAtEnd(ofFrame: number)
            let emitted = tag.samplesDecoded(byFrame: number)
            entries.append(Entry(position: item.position, size: item.size, rawStart: tag.outputStart(ofFrame: number), outputStart: output,
                                 emitted: emitted, skip: (0, Int(discarded)), trimmedWhole: false))
            emittedAtEnd.append(emitted)
            output += emitted
            number += 1
        }
        guard output == tag.length else { return nil }
        // The last packets decoded with the trimming the tag gives them: they give what it says.
        let decoded = Array(last.suffix(min(last.count, entries.count)))
        for (kept, entry) in zip(decoded, entries.suffix(decoded.count)) {
            try mappingFFmpegErrors(path: input.path) { try kept.setSkipSamples(start: 0, end: entry.skip.end) }
        }
        let samples = try mappingFFmpegErrors(path: input.path) {
            try FrameDecoder.samples(decoding: decoded, demuxer: input.demuxer, streamIndex: input.streamIndex)
        }
        let checked = min(checkedAtEnd, samples.count)
        guard zip(samples.suffix(checked), emittedAtEnd.suffix(checked)).allSatisfy({ Int64($0) == $1 }) else { return nil }
        let index = PacketIndex(tail: entries, frameSize: Int(tag.samplesPerFrame), traits: input.traits, tag: tag)
        return (index, firstNumber)
    }
}
