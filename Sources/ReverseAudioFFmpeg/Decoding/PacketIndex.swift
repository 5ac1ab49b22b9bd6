import FFmpeg
import Foundation
import ReverseAudioCore

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
        /// Output frame of the packet's first sample before its own start trimming: the
        /// timestamp (in samples) the packet is stamped with so its frames come out at the
        /// right output positions.
        fileprivate(set) var rawStart: Int64
        /// Output frame of the packet's first sample after trimming.
        let outputStart: Int64
        // Narrow fields: an hour of MP3 is 140,000 entries, kept for as long as the file is open.
        private let storedSize: Int32
        private let storedEmitted: Int32
        private let skipStart: UInt32
        private let skipEnd: UInt32

        /// True when start trimming removed the whole frame.
        let trimmedWhole: Bool

        init(position: Int64, size: Int, rawStart: Int64, outputStart: Int64, emitted: Int64, skip: (start: Int, end: Int),
             trimmedWhole: Bool) {
            self.trimmedWhole = trimmedWhole
            self.position = position
            self.rawStart = rawStart
            self.outputStart = outputStart
            storedSize = Int32(clamping: size)
            storedEmitted = Int32(clamping: emitted)
            skipStart = UInt32(clamping: skip.start)
            skipEnd = UInt32(clamping: skip.end)
        }

        /// Bytes of payload.
        var size: Int { Int(storedSize) }
        /// Frames of output the packet yields after trimming.
        var emitted: Int64 { Int64(storedEmitted) }
        /// The gapless trimming the demuxer attached to it.
        var skip: (start: Int, end: Int) { (Int(skipStart), Int(skipEnd)) }
    }

    private(set) var entries: [Entry] = []
    /// Entries indexed so far.
    var entryCount: Int { entries.count }
    /// Bytes an entry takes in memory.
    static let entryBytes = MemoryLayout<Entry>.stride
    /// True once every packet of the stream is in ``entries``.
    private(set) var isComplete = false
    /// For an index of the stream's last packets only (an MP3 read from a URL, indexed from a
    /// byte seek near its end: ``mp3Tail(of:tag:reaching:isCancelled:)``), the tag frame that
    /// placed them; nil for an index read from the first packet.
    private(set) var tailTag: MP3InfoTag?
    let frameSize: Int64
    /// The stream's stated rate, which every packet's frame is checked against (0: unchecked).
    private let sampleRate: Int
    /// True once a packet's frame departed from the stream's rate or frame size
    /// (``CodecTraits/departsFromStream(_:sampleRate:frameSize:)``): the index then places
    /// nothing after it where the decode puts it, and seeks decode from the start instead.
    private(set) var departsFromStream = false
    private var total: Int64 = 0
    private var trimming = GaplessTrimming()
    /// Samples decoded so far before trimming, and the start skips met so far.

    /// The codec's traits: which packets can decode.
    private let traits: CodecTraits
    /// Decodes the stream's first packets (with a fresh decoder: exactly as a decode from the
    /// start), giving what each emits; nil indexes by the model alone.
    private let decodeHead: (([Packet]) throws -> [Int])?
    /// The first packets, waiting to be decoded before they are indexed.
    private var head: [Packet] = []
    private var headDone = false
    /// Packets decoded at the start of the stream: an encoder's delay or junk before the first
    /// frame (a packet that cannot decode) is what decoding says, not what the model guesses.
    static let headPackets = 16

    /// An index of `input`'s stream, its first packets decoded with a decoder of its own.
    convenience init(for input: AudioInput) {
        let demuxer = input.demuxer
        let stream = input.streamIndex
        self.init(frameSize: max(input.decoder.frameSize, input.parameters.codecFrameSize, 1), traits: input.traits,
                  sampleRate: input.parameters.sampleRate, decodeHead: { packets in try FrameDecoder.samples(decoding: packets, demuxer: demuxer, streamIndex: stream) })
    }

    /// - Parameter decodeHead: decodes the first packets alone, in order, giving the samples of each.
    init(frameSize: Int, traits: CodecTraits, sampleRate: Int = 0, decodeHead: (([Packet]) throws -> [Int])? = nil) {
        self.frameSize = Int64(frameSize)
        self.traits = traits
        self.sampleRate = sampleRate
        self.decodeHead = decodeHead
    }

    /// An index of a stream's last packets, from `entries`' first to the end of the stream,
    /// placed by `tag`.
    init(tail entries: [Entry], frameSize: Int, traits: CodecTraits, tag: MP3InfoTag) {
        self.frameSize = Int64(frameSize)
        self.traits = traits
        sampleRate = 0
        decodeHead = nil
        headDone = true
        self.entries = entries
        tailTag = tag
        total = entries.last.map { $0.outputStart + $0.emitted } ?? 0
    }

    /// True when a seek to output frame `target` restarts inside this tail index: it holds the
    /// codec's pre-roll before the packet holding the target.
    func reaches(_ target: Int64) -> Bool {
        guard let first = entries.first, target >= first.outputStart, let holding = packet(containing: target) else { return false }
        return traits.restartPacket(holding: holding) { entries[$0].size } > 0
    }

    /// Output frames covered by the packets indexed so far.
    var indexedFrames: Int64 { total }

    /// Reads packets from the reader's current position (the first unindexed packet) until the
    /// index covers `frame`, or the stream ends.
    /// - Parameter path: the file, for messages.
    func extend(through frame: Int64, reader: PacketReader, path: String, isCancelled: () -> Bool) throws {
        let packet = try mappingFFmpegErrors(path: path) { try Packet() }
        // Room for every packet up to `frame` at once: doubling would hold two copies at its peak.
        // (Not for an open end: the whole file's count is not known, and a guess could be huge.)
        if frame < Int64.max / 2 {
            let needed = Int(min(frame / max(frameSize, 1), 1 << 22)) + 64
            if needed > entries.capacity { entries.reserveCapacity(needed) }
        }
        while !isComplete && total <= frame {
            if isCancelled() { throw CancellationError() }
            guard try mappingFFmpegErrors(path: path, { try reader.next(into: packet) }) else {
                try markComplete()
                return
            }
            try append(packet)
        }
    }

    /// Adds `packet` if it comes after every packet indexed so far (the first ones once they
    /// are decoded).
    func append(_ packet: Packet) throws {
        guard !packet.isDiscarded, let position = packet.filePosition else { return }
        if let last = head.last?.filePosition ?? entries.last?.position, position <= last { return }
        if decodeHead != nil && !headDone {
            let kept = try mappingFFmpegErrors(path: "") { try Packet() }
            try mappingFFmpegErrors(path: "") { try kept.reference(packet) }
            head.append(kept)
            if head.count == Self.headPackets { try indexHead() }
            return
        }
        add(packet, decoded: nil)
    }

    /// Adds `packet`, which decodes to `samples` samples (what decoding it told, whatever the
    /// model says): for a codec whose packets vary in length (FLAC).
    func append(_ packet: Packet, decodedSamples samples: Int) {
        guard !packet.isDiscarded, packet.filePosition != nil else { return }
        add(packet, decoded: Int64(samples))
    }

    /// Indexes the waiting first packets by what decoding them emits.
    private func indexHead() throws {
        headDone = true
        guard let decodeHead, !head.isEmpty else { return }
        let emitted = try decodeHead(head)
        for (packet, samples) in zip(head, emitted) { add(packet, decoded: Int64(samples)) }
        head.removeAll()
    }

    /// Adds `packet`: it emits what the model says, or `decoded` samples after trimming when it
    /// was decoded.
    private func add(_ packet: Packet, decoded actual: Int64?) {
        guard let position = packet.filePosition else { return }
        if sampleRate > 0 && traits.departsFromStream(packet, sampleRate: sampleRate, frameSize: Int(frameSize)) {
            departsFromStream = true
        }
        // A packet the decoder rejects (no frame header: junk between concatenated files) emits nothing.
        let decoded = traits.canDecode(packet) ? frameSize : 0
        var trimmed = trimming.trim(decoded, skip: packet.skipSideData)
        if let actual, actual != trimmed.emitted { trimmed = (actual, actual == 0 ? 0 : trimmed.trimmedStart) }
        // Its frame comes out at `total`, less what its own start trimming removes.
        let rawStart = total - trimmed.trimmedStart
        // Frames trimmed whole before it lie just before it on the raw timeline (a skip that
        // spans frames; where the skip went on is known only now).
        var earlier = entries.count - 1
        while earlier >= 0, entries[earlier].emitted == 0, entries[earlier].trimmedWhole {
            entries[earlier].rawStart = rawStart - Int64(entries.count - earlier) * frameSize
            earlier -= 1
        }
        entries.append(Entry(position: position, size: packet.size, rawStart: rawStart,
                             outputStart: total, emitted: trimmed.emitted, skip: packet.skipSamples,
                             trimmedWhole: decoded > 0 && trimmed.trimmedStart == decoded))
        total += trimmed.emitted
    }


    /// Marks the index as holding every packet (the stream ended while reading on).
    func markComplete() throws {
        if !headDone { try indexHead() }
        isComplete = true
    }

    /// Empties the index, to be built again from the first packet.
    func removeAll() {
        entries.removeAll()
        head.removeAll()
        headDone = false
        isComplete = false
        total = 0
        trimming = GaplessTrimming()
    }

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

    /// The index of the packet with byte position `position`, searching from `hint`; else the
    /// packet at `hint` when the index holds no true position for it and its size is `size`
    /// (the next packet in order, read with another position: see ``seekPoint(atOrBefore:)``).
    func packet(at position: Int64, size: Int, from hint: Int) -> Int? {
        var index = max(0, hint)
        while index < entries.count {
            if entries[index].position == position { return index }
            if entries[index].position > position { break }
            index += 1
        }
        return hint >= 0 && hint < entries.count && !isSeekPoint(hint) && entries[hint].size == size ? hint : nil
    }

    /// The packet at or before `entry` that a byte seek reaches (see ``isSeekPoint(_:)``).
    func seekPoint(atOrBefore entry: Int) -> Int {
        var point = min(entry, entries.count - 1)
        while point > 0 && !isSeekPoint(point) { point -= 1 }
        return max(point, 0)
    }

    /// True when a byte seek to the packet's position reaches it: the position lies before the
    /// next packet's. FFmpeg's FLAC parser gives the packet after one that swallowed junk (a
    /// second file's header, `cat a.flac b.flac`) the position of its read buffer, past where
    /// it is; a seek there lands packets later.
    private func isSeekPoint(_ entry: Int) -> Bool {
        entry + 1 >= entries.count || entries[entry].position < entries[entry + 1].position
    }
}

/// One MP3 file's complete packet index, built once by whoever needs it first and shared by the
/// others: the cuts made from the file in turn (the pieces of a split), or the readers decoding
/// it side by side (a reversal on several threads). Each would otherwise read every packet
/// header of the file for itself.
///
/// Built by reading every packet in order from the start, as any index of an MP3 is (the
/// demuxer's end trimming is only right that way); complete, so never changed afterwards.
/// Whoever asks while it is being built waits for it.
package final class SharedPacketIndex: @unchecked Sendable {
    // @unchecked: `index` and `gaveNone` are set once, under `lock`, and only read under it.
    private let lock = NSLock()
    private var index: PacketIndex?
    /// True once a build gave no complete index: the others do not try again.
    private var gaveNone = false
    private let url: URL
    /// The frames the index must cover, when the length was taken from elsewhere (an MP3's
    /// tag frame, for readers side by side): an index that covers another count shows the
    /// length was wrong.
    let expectedFrames: Int64?
    /// Where the stream's first packet starts in the file, when known: a reader goes back to
    /// the start by a byte seek there (which reads on exactly as a fresh open does) before the
    /// index is built.
    let streamStart: Int64?

    /// An index to be shared by the users of `url`.
    package convenience init(url: URL) {
        self.init(url: url, expectedFrames: nil, streamStart: nil)
    }

    init(url: URL, expectedFrames: Int64?, streamStart: Int64?) {
        self.url = url
        self.expectedFrames = expectedFrames
        self.streamStart = streamStart
    }

    /// The complete index of `source`'s stream (an open of this index's file): built by
    /// `build` on `source` on the first call, while later calls wait; nil when `source` is
    /// another file's or no build gave a complete one.
    func index(of source: AudioInput, build: (AudioInput) throws -> PacketIndex) throws -> PacketIndex? {
        guard source.url.standardizedFileURL == url.standardizedFileURL else { return nil }
        lock.lock()
        defer { lock.unlock() }
        if let index { return index }
        if gaveNone { return nil }
        let built = try build(source)
        guard built.isComplete else {
            gaveNone = true
            return nil
        }
        index = built
        return built
    }

    /// The complete index of `source`'s stream, read in order from where its demuxer is (the
    /// stream's first packet: the caller opened it and read nothing yet); `source` is then read
    /// to its end (the caller seeks before reading on).
    func index(ofFreshlyOpened source: AudioInput, isCancelled: () -> Bool) throws -> PacketIndex? {
        try index(of: source) { source in
            let built = PacketIndex(for: source)
            let reader = PacketReader(demuxer: source.demuxer, streamIndex: source.streamIndex, endsOnReadError: false)
            try built.extend(through: .max, reader: reader, path: source.path, isCancelled: isCancelled)
            return built
        }
    }
}
