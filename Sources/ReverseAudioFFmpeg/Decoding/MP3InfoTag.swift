import FFmpeg
import ReverseAudioCore

/// What an MP3's Xing/Info frame with a LAME tag states, read as FFmpeg's MP3 demuxer reads it,
/// and the gapless trimming the demuxer derives from it: enough to place any packet of the
/// stream in the decode's output without reading the packets before it.
///
/// Read by hand because FFmpeg keeps what it read private (the end padding lives only in the
/// demuxer's internal state and shows as side data on the last packets, met by reading the
/// packets in order from the start). The fields are those of LAME's `VbrTag.c`, in the order
/// and under the conditions FFmpeg 5.1's `mp3_parse_info_tag` reads them; FFmpeg applies the
/// delay and padding only when the encoder string names LAME or FFmpeg ("LAME", "Lavf", "Lavc").
struct MP3InfoTag: Sendable, Equatable {
    /// Where the tag frame starts in the file.
    let tagFramePosition: Int64
    /// Where the first audio frame (the stream's first packet) starts: right after the tag frame.
    let firstFramePosition: Int64
    /// Audio frames after the tag frame.
    let frames: Int64
    /// Bytes of the stream, the tag frame included (LAME's "bytes" field).
    let streamBytes: Int64
    /// Samples each frame decodes to (1152 in MPEG-1, 576 in MPEG-2 and 2.5).
    let samplesPerFrame: Int64
    /// The encoder's delay and padding as the tag states them.
    let delay: Int64
    let padding: Int64
    /// The seek table: for each percent of the frames, where that frame lies in 256ths of
    /// ``streamBytes`` (empty when the tag has none).
    let seekTable: [UInt8]

    /// Where the stream ends in the file: the end of its last audio frame.
    var streamEnd: Int64 { tagFramePosition + streamBytes }

    /// Samples the demuxer marks to be dropped at the start: the delay and the decoder's own 529.
    var startSkip: Int64 { delay + Int64(LAMETag.decoderDelay) }

    /// The first sample (counted from the first frame's first) dropped at the end, as the
    /// demuxer sets it; samples from there to the end of the last frame are dropped.
    var firstDiscardedSample: Int64 { frames * samplesPerFrame - padding + Int64(LAMETag.decoderDelay) }

    /// The frames a decode of the whole stream gives.
    var length: Int64 { frames * samplesPerFrame - startSkip - max(0, frames * samplesPerFrame - firstDiscardedSample) }

    /// Samples at the end of frame `number` (0: the first after the tag frame) the demuxer
    /// marks to be dropped (`AV_PKT_DATA_SKIP_SAMPLES`' discard padding).
    func discardedAtEnd(ofFrame number: Int64) -> Int64 {
        let start = number * samplesPerFrame
        let end = start + samplesPerFrame
        guard number < frames, end >= firstDiscardedSample else { return 0 }
        return min(end - firstDiscardedSample, samplesPerFrame)
    }

    /// The samples frame `number` gives in a decode from the start: a whole frame, less the start
    /// skip that reaches into it and the end trimming it carries.
    func samplesDecoded(byFrame number: Int64) -> Int64 {
        let trimmedAtStart = min(max(startSkip - number * samplesPerFrame, 0), samplesPerFrame)
        return samplesPerFrame - trimmedAtStart - discardedAtEnd(ofFrame: number)
    }

    /// The output position of frame `number`'s first sample, before the start trimming that
    /// only the first frames have: where a decode from the start puts it.
    func outputStart(ofFrame number: Int64) -> Int64 { number * samplesPerFrame - startSkip }

    /// The frame whose output holds output frame `frame`.
    func frameNumber(holding frame: Int64) -> Int64 { max(0, (frame + startSkip) / samplesPerFrame) }

    /// Where frame `number` is estimated to start in the file: by the seek table when there is
    /// one (interpolated between its percents), else in proportion to the stream's bytes.
    func estimatedPosition(ofFrame number: Int64) -> Int64 {
        let clamped = min(max(number, 0), frames)
        let audioBytes = streamEnd - firstFramePosition
        guard seekTable.count == 100, frames > 0 else {
            return firstFramePosition + audioBytes * clamped / max(frames, 1)
        }
        let percent = Double(clamped) * 100 / Double(frames)
        let lower = min(Int(percent), 99)
        let below = Double(seekTable[lower])
        let above = lower < 99 ? Double(seekTable[lower + 1]) : 256
        let fraction = (below + (above - below) * (percent - Double(lower))) / 256
        return max(firstFramePosition, tagFramePosition + Int64(fraction * Double(streamBytes)))
    }

    /// The tag of `input`'s MP3 stream, whose first packet starts at `firstFramePosition`; nil
    /// when it has none FFmpeg applies. Moves the demuxer (the caller seeks before reading on).
    static func read(_ input: AudioInput, firstFramePosition: Int64) throws -> MP3InfoTag? {
        guard firstFramePosition >= 4 else { return nil }
        // The tag frame ends where the first packet starts; no layer III frame is larger than 2881 bytes.
        let start = max(0, firstFramePosition - 2881)
        var bytes = [UInt8](repeating: 0, count: Int(firstFramePosition - start))
        let got = try mappingFFmpegErrors(path: input.path) {
            try bytes.withUnsafeMutableBytes { try input.demuxer.readBytes(into: $0.baseAddress!, count: $0.count, at: start) }
        }
        guard got == bytes.count else { return nil }
        return MP3InfoTag(bytes: bytes, bytesStart: start, firstFramePosition: firstFramePosition)
    }

    /// The tag of the stream whose first packet starts at `firstFramePosition`, read from the
    /// `bytes` before it (which start at file position `bytesStart`); nil when no tag frame
    /// ends there, or it states no frame count, no byte count, or no delay FFmpeg applies.
    init?(bytes: [UInt8], bytesStart: Int64, firstFramePosition: Int64) {
        let end = Int(firstFramePosition - bytesStart)
        guard end <= bytes.count, end >= 4 else { return nil }
        // The tag frame ends where the first packet starts: find the header whose frame does.
        var found: (start: Int, header: MPEGAudioHeader)?
        for start in stride(from: end - 4, through: 0, by: -1) {
            let word = bytes[start..<(start + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            if let header = MPEGAudioHeader(word), header.layer == 3, header.frameSize == end - start {
                found = (start, header)
                break
            }
        }
        guard let (start, header) = found else { return nil }
        var reader = FieldReader(bytes: bytes, position: start + 4 + header.sideInformationSize, end: end)
        guard let marker = reader.read(4), marker == 0x5869_6E67 || marker == 0x496E_666F,  // "Xing", "Info"
              let flags = reader.read(4), flags & 1 != 0, flags & 2 != 0,
              let frames = reader.read(4), let streamBytes = reader.read(4) else { return nil }
        var table: [UInt8] = []
        if flags & 4 != 0 {
            guard let read = reader.bytes(100) else { return nil }
            table = read
        }
        if flags & 8 != 0 { guard reader.read(4) != nil else { return nil } }   // quality
        guard let encoder = reader.read(4) else { return nil }
        // The rest of the 9-byte version, revision and method, lowpass, peak, two gains,
        // flags, ABR rate: then the delays.
        guard reader.skip(5 + 1 + 1 + 4 + 2 + 2 + 1 + 1), let delays = reader.read(3) else { return nil }
        guard [0x4C41_4D45, 0x4C61_7666, 0x4C61_7663].contains(encoder) else { return nil }   // "LAME", "Lavf", "Lavc"
        tagFramePosition = bytesStart + Int64(start)
        self.firstFramePosition = firstFramePosition
        self.frames = Int64(frames)
        self.streamBytes = Int64(streamBytes)
        samplesPerFrame = Int64(header.samplesPerFrame)
        delay = Int64(delays >> 12)
        padding = Int64(delays & 0xFFF)
        seekTable = table
        guard frames > 0, length > 0, streamEnd > firstFramePosition else { return nil }
    }

    /// Reads the tag's big-endian fields in order.
    private struct FieldReader {
        let bytes: [UInt8]
        var position: Int
        let end: Int

        mutating func bytes(_ count: Int) -> [UInt8]? {
            guard position + count <= end else { return nil }
            defer { position += count }
            return Array(bytes[position..<(position + count)])
        }

        mutating func read(_ count: Int) -> UInt32? {
            bytes(count)?.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }

        mutating func skip(_ count: Int) -> Bool { bytes(count) != nil }
    }
}

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
