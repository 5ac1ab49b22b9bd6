import FFmpeg
import Foundation
import ReverseAudioCore

/// A cut of AAC in an MP4 file (`.m4a`, `.m4r`) without re-encoding: the packets from enough
/// before the cut for the decoder to converge (``SeekPlan``'s pre-roll, and the encoder's
/// priming when the cut is near the start) through the packet holding its last sample are
/// copied byte for byte into an MP4 whose edit list states the cut exactly:
/// `media_time` = the samples decoded before the cut, `segment_duration` = its length, in a
/// movie timescale equal to the sample rate.
///
/// libavformat's mov muxer writes that edit from the packets' timestamps: the first copied
/// packet is stamped at minus the samples before the cut (the edit's `media_time`), the last
/// packet's duration ends at the cut's end (the edit's duration is the last packet's end), and
/// the `movie_timescale` option keeps that duration in samples rather than rounding it to a
/// millisecond. FFmpeg 5.1's mov demuxer then drops exactly the samples before the cut; it
/// decodes the last packet whole (ignoring the edit's end, which Apple's players honour), so a
/// decode with it is up to one AAC frame longer than the cut. The same cut is also stated as
/// Apple's `iTunSMPB` (priming = the edit's `media_time`, padding = the rest of the last
/// packet, the length), for players that read that instead (``MP4GaplessItem``).
package enum EditListCut {
    /// What became of a cut.
    package enum Outcome {
        /// Written and checked.
        case written(Written)
        /// Not written, and why: the caller re-encodes.
        case refused(String)
    }

    /// What a cut wrote.
    package struct Written {
        /// Frames the edit list states: the cut's length.
        package let frames: Int64
        /// Packets copied.
        package let packets: Int
        /// Packets encoded again under the fade-in and under the fade-out.
        package let reencodedPackets: (head: Int, tail: Int)
        /// The share of the packets' bytes copied from the input, 0...1.
        package let copiedShare: Double
    }

    /// The packets of a cut with fades encoded again, and where they go.
    struct FadedPackets {
        /// Under the fade-in, from `headStart` (a timestamp) up to `firstCopied`.
        let head: [[UInt8]]
        let headStart: Int64
        /// The first packet copied after them (nil without a fade-in).
        let firstCopied: Int64?
        /// Under the fade-out, from `tailStart` (nil without one) to the cut's end.
        let tail: [[UInt8]]
        let tailStart: Int64?
    }

    /// Encodes again, with FFmpeg's AAC encoder at a constant quality, the packets a cut's
    /// fades lie over: under a fade-in, enough packets before the first copied one that their
    /// decode reaches back past the encoder's priming before the cut; under a fade-out, the
    /// packets from the one holding the fade's first sample, the encoder fed from packets
    /// earlier so that the first kept one continues the copied signal (the MDCT overlap of two
    /// frames adds up). Noise substitution is off: its noise generator would desynchronise the
    /// decode of copied packets that use it.
    private static func fadedPackets(_ source: AudioInput, input: URL, range: Range<Int64>, fades: CutFades, origin: Int64,
                                     streamStart: Int64, cancellation: CancellationFlag) throws -> PacketCopyCut.Decided<FadedPackets> {
        let parameters = source.parameters
        let frameSize = Int64(parameters.codecFrameSize)
        guard frameSize == 1024 else { return .refused("only AAC frames of 1024 samples are encoded again under a fade") }
        let (cutStart, cutEnd) = (range.lowerBound + origin, range.upperBound + origin)
        // The start of the packet holding a timestamp, on the stream's frame grid.
        func packetStart(holding timestamp: Int64) -> Int64 {
            streamStart + (timestamp - streamStart) / frameSize * frameSize
        }
        let samples = try CutSamples(input, range: range, effects: fades.effects, cancellation: cancellation)
        // At a constant quality (`-q:a 2`, about 128 kb/s in stereo): at a bit rate, the encoder
        // adapts its quantiser over its first few dozen packets, which are far noisier (measured
        // beside a fade-out: 0.35 of full scale after 16 packets of warm-up, 0.014 this way).
        var settings = Encoder.Settings(codecName: "aac", sampleType: .float, sampleRate: parameters.sampleRate,
                                        channelLayout: ChannelLayout(defaultFor: parameters.channelCount))
        settings.quality = 2
        func encoder() throws -> FadeEncoder {
            try mappingFFmpegErrors(path: source.path) { try FadeEncoder(settings, options: ["aac_pns": "0"], path: source.path) }
        }
        var head: [[UInt8]] = []
        var headStart = cutStart
        var firstCopied: Int64?
        if let fadeIn = fades.fadeIn {
            let boundary = packetStart(holding: min(cutEnd - 1, cutStart + fadeIn.frames - 1)) + frameSize
            let made = try mappingFFmpegErrors(path: source.path) {
                try encoder().head(of: samples, before: boundary - cutStart, samplesPerPacket: Int(frameSize))
            }
            guard made.packets.count == (boundary - cutStart - made.start) / frameSize else {
                return .refused("the encoder gave fewer packets than the fade-in needs")
            }
            head = made.packets
            headStart = made.start + cutStart
            firstCopied = boundary
        }
        var tail: [[UInt8]] = []
        var tailStart: Int64?
        if let fadeOut = fades.fadeOut {
            let boundary = packetStart(holding: max(cutStart, cutEnd - fadeOut.frames))
            // Packets made before the first kept: the priming, and the signal before it long enough
            // that the encoder's window choice has settled (its first packets see an attack, and a
            // short window beside a copied long one leaves aliasing uncancelled).
            let encoding = try encoder()
            let warmUp = (encoding.initialPadding + Int(frameSize) - 1) / Int(frameSize) + 4
            guard let made = try mappingFFmpegErrors(path: source.path, {
                try encoding.tail(of: samples, from: boundary - cutStart, warmUp: warmUp, samplesPerPacket: Int(frameSize))
            }) else {
                return .refused("the cut is too short before its fade-out to copy")
            }
            guard made.count == (cutEnd - boundary + frameSize - 1) / frameSize else {
                return .refused("the encoder gave fewer packets than the fade-out needs")
            }
            tail = made
            tailStart = boundary
        }
        // The copy pays when packets after the one beside a fade-in's are copied.
        if (tailStart ?? cutEnd) - (firstCopied ?? cutStart) < 2 * frameSize { return .refused("the fades cover nearly all of the cut") }
        return .value(FadedPackets(head: head, headStart: headStart, firstCopied: firstCopied, tail: tail, tailStart: tailStart))
    }

    /// True when `source` is AAC in an MP4 whose packets can be copied and restated: a regular
    /// file whose timestamps count samples.
    package static func canCut(_ source: AudioInput) -> Bool {
        let parameters = source.parameters
        return parameters.traits.cutMethod == .mp4EditList && source.isSeekable
            && parameters.codecFrameSize > 0 && parameters.timeBaseNumerator == 1
            && Int(parameters.timeBaseDenominator) == parameters.sampleRate
    }

    /// Why `source`'s packets cannot be copied into a cut; nil when they can. An edit list that
    /// splices pieces of the media (``AudioInput/splicesEdits``) cannot be restated by one edit
    /// over copied packets: the copy would hold the packets FFmpeg decodes only to prime the
    /// decoder before the splice as audio.
    package static func refusal(_ source: AudioInput) -> String? {
        guard canCut(source) else { return "only AAC in a seekable MP4 file, timed in samples, can be copied" }
        if source.splicesEdits { return "its edit list splices pieces of its media, which a single edit over its packets cannot state" }
        return nil
    }

    /// The frames a decode of `source` gives (FFmpeg's: every packet whole after the edit's start),
    /// found from the last packet alone; nil when the stream's timestamps do not tell it.
    package static func decodedLength(of source: AudioInput) throws -> Int64? {
        guard canCut(source) else { return nil }
        let origin = try firstPacket(of: source).origin
        return try mappingFFmpegErrors(path: source.path) {
            let packet = try Packet()
            try source.demuxer.seek(stream: source.streamIndex, toTimestamp: Int64.max / 2)
            let reader = PacketReader(demuxer: source.demuxer, streamIndex: source.streamIndex)
            var end: Int64?
            while try reader.next(into: packet) {
                guard let pts = packet.presentationTimestamp else { continue }
                end = pts + Int64(source.parameters.codecFrameSize) - origin
            }
            return end
        }
    }

    /// Copies frames `range` (output frames of `input`'s decode) into the MP4 `output`.
    ///
    /// Output frame 0 is not always timestamp 0: an edit list that starts with an empty edit
    /// (`ffmpeg -itsoffset 2 -c copy`) stamps the first packet after the gap, and the decode
    /// begins there. The cut is found in timestamps from that origin, as the decoder's own
    /// positions are (`FramePositioner`).
    /// - Returns: what was written, or why the packets cannot be restated exactly (the caller
    ///   re-encodes); nothing is left at `output` then.
    /// - Throws: `RangeError.rangePastEnd` for a range past the end of the file,
    ///   and the errors of reading and writing.
    /// With `fades`, the packets under them are encoded again by FFmpeg's AAC encoder and the
    /// rest copied (``fadedPackets(_:range:fades:origin:streamStart:cancellation:)``).
    package static func cut(_ input: URL, range: Range<Int64>, fades: CutFades = .none, to output: URL, overwrite: Bool,
                            tags overrides: [(key: String, value: String)] = [],
                            cancellation: CancellationFlag) throws -> Outcome {
        let source = try AudioInput(url: input, isCancelled: cancellation.check)
        if let refusal = refusal(source) { return .refused(refusal) }
        guard !range.isEmpty, range.lowerBound >= 0 else { return .refused("the cut is empty") }
        let parameters = source.parameters
        let (streamStart, origin) = try firstPacket(of: source)
        // The cut in the stream's timestamps; the decoder starts with the packet holding the
        // restart: the pre-roll before the cut.
        var grid = CutGrid(cutStart: range.lowerBound + origin, cutEnd: range.upperBound + origin,
                           restart: range.lowerBound + origin - Int64(source.traits.prerollSamples),
                           streamStart: streamStart, frameSize: Int64(parameters.codecFrameSize))
        var faded = FadedPackets(head: [], headStart: grid.cutStart, firstCopied: nil, tail: [], tailStart: nil)
        if !fades.isEmpty {
            switch try fadedPackets(source, input: input, range: range, fades: fades, origin: origin, streamStart: streamStart,
                                    cancellation: cancellation) {
            case .value(let packets): faded = packets
            case .refused(let reason): return .refused(reason)
            }
            if let firstCopied = faded.firstCopied { grid.restart = firstCopied }
        }
        let destination = try OutputFile(url: output, overwrite: overwrite, inputs: [input], requiresSeekableFile: true)
        let copy: CopiedPackets
        do {
            copy = try mappingFFmpegErrors(path: output.displayPath) {
                try copyPackets(source, into: destination, grid: grid, faded: faded, range: range,
                                tags: source.tags(overriding: overrides), cancellation: cancellation)
            }
            switch copy.end {
            case .written:
                // Both are at least 0 by construction (the first packet copied is at or before the
                // cut's start; the last ends at or after its end); a file that breaks that is
                // encoded again rather than stated wrongly.
                let priming = grid.cutStart - (copy.firstCopied ?? grid.cutStart)
                let padding = copy.lastEnd - grid.cutEnd
                guard priming >= 0, padding >= 0 else {
                    destination.discard()
                    return .refused("its packets do not cover the cut")
                }
                let text = ITunesGapless.text(delay: Int(priming), padding: Int(padding), length: Int64(range.count))
                try MP4GaplessItem.add(text: text, to: destination.temporaryURL)
            case .cannotState(let reason):
                destination.discard()
                return .refused(reason)
            case .endOfFile:
                destination.discard()
                throw ReverseAudioError.range(.rangePastEnd(path: input.displayPath, frame: range.upperBound, isStart: false,
                                                     length: copy.lastEnd - origin, sampleRate: parameters.sampleRate))
            }
        } catch {
            destination.discard()
            throw error
        }
        if let refusal = try readBackRefusal(destination.temporaryURL, input: input, range: range, fades: fades, grid: grid,
                                             faded: faded, copy: copy, cancellation: cancellation) {
            destination.discard()
            return .refused(refusal)
        }
        try destination.commit()
        let encodedBytes = (faded.head + faded.tail).reduce(0) { $0 + $1.count }
        return .written(Written(frames: Int64(range.count), packets: copy.count, reencodedPackets: (faded.head.count, faded.tail.count),
                                copiedShare: Double(copy.bytes) / Double(max(1, copy.bytes + encodedBytes))))
    }

    /// Where a cut lies in the stream's timestamps.
    private struct CutGrid {
        let cutStart: Int64
        let cutEnd: Int64
        /// The first sample the decoder must see: the cut's start less the pre-roll, or the
        /// first packet copied after a fade-in encoded again.
        var restart: Int64
        let streamStart: Int64
        let frameSize: Int64
    }

    /// What copying the packets into the new file did.
    private struct CopiedPackets {
        /// How the copy ended.
        enum End { case written, cannotState(String), endOfFile }
        var end: End = .endOfFile
        var count = 0
        var bytes = 0
        var lastEnd: Int64 = 0
        /// The first packet written (encoded again or copied), and the first copied.
        var firstCopied: Int64?
        var firstOriginal: Int64?
    }

    /// Writes the cut into `destination`: the packets encoded again under a fade-in, those
    /// copied from the restart on (restamped relative to the cut, the first's negative timestamp
    /// being the edit's `media_time`), and those encoded again under a fade-out.
    private static func copyPackets(_ source: AudioInput, into destination: OutputFile, grid: CutGrid, faded: FadedPackets,
                                    range: Range<Int64>, tags: [(key: String, value: String)],
                                    cancellation: CancellationFlag) throws -> CopiedPackets {
        let (cutStart, cutEnd, frameSize) = (grid.cutStart, grid.cutEnd, grid.frameSize)
        var copy = CopiedPackets()
        try source.demuxer.seek(stream: source.streamIndex, toTimestamp: max(grid.restart, grid.streamStart))
        let muxer = try Muxer(path: destination.temporaryURL.path, formatName: FileFormat.m4a.muxer,
                              publishedPath: FileFormat.m4a.muxerName(forPublished: destination.target.path))
        try muxer.addStream(copying: source.demuxer, stream: source.streamIndex, initialPadding: 0, trailingPadding: 0)
        muxer.setMetadata(tags)
        try muxer.addChapters(source.chapters(within: range), sampleRate: source.parameters.sampleRate)
        try muxer.writeHeader(options: ["movie_timescale": String(source.parameters.sampleRate)])
        let packet = try Packet()
        // Packets encoded again, each a frame long, from `start` on; the last ends at the cut's end.
        func send(_ packets: [[UInt8]], from start: Int64) throws(FFmpegError) {
            for (number, bytes) in packets.enumerated() {
                let encoded = try Packet(bytes: bytes)
                let pts = start + Int64(number) * frameSize
                encoded.setTimestamp(pts - cutStart)
                encoded.setDuration(min(frameSize, cutEnd - pts))
                try muxer.write(encoded, stream: 0)
            }
        }
        func ended(_ end: CopiedPackets.End) -> CopiedPackets {
            copy.end = end
            return copy
        }
        if !faded.head.isEmpty {
            try send(faded.head, from: faded.headStart)
            copy.firstCopied = faded.headStart
        }
        let reader = PacketReader(demuxer: source.demuxer, streamIndex: source.streamIndex, endsOnReadError: false)
        var next: Int64?
        while try reader.next(into: packet) {
            if cancellation.isCancelled { throw CancellationError() }
            guard let pts = packet.presentationTimestamp else { return ended(.cannotState("its packets carry no timestamps")) }
            // After the frames encoded again under a fade-in, the copy starts on the frame grid.
            if let start = faded.firstCopied, next == nil, pts < start { continue }
            if let tailStart = faded.tailStart, pts >= tailStart {
                guard pts == tailStart else { return ended(.cannotState("its packets are not contiguous")) }
                try send(faded.tail, from: tailStart)
                copy.lastEnd = tailStart + Int64(faded.tail.count) * frameSize
                try muxer.finish()
                return ended(.written)
            }
            if let next {
                // Output positions are timestamps only while every packet lasts a frame.
                guard pts == next else { return ended(.cannotState("its packets are not contiguous")) }
            } else {
                // The seek must land on the packet holding the restart (or the stream's first).
                guard pts <= grid.restart || pts == grid.streamStart else { return ended(.cannotState("seeking did not reach the pre-roll")) }
                if faded.firstCopied != nil && pts != grid.restart { return ended(.cannotState("its packets are not on one frame grid")) }
            }
            packet.clearForCopy()
            packet.setTimestamp(pts - cutStart)
            let isLast = pts + frameSize >= cutEnd
            guard isLast || packet.duration == frameSize else { return ended(.cannotState("its packets vary in length")) }
            next = pts + packet.duration
            copy.count += 1
            copy.bytes += packet.size
            if copy.firstOriginal == nil { copy.firstOriginal = pts }
            if copy.firstCopied == nil { copy.firstCopied = pts }
            copy.lastEnd = pts + frameSize
            // FFmpeg's mov demuxer takes the edit's duration for the length of the file's
            // last packet: when the cut starts in that packet further in than the cut is
            // long, it would drop the packet (and decode nothing). Such a cut is shorter
            // than one AAC frame; it is encoded again instead.
            if isLast && pts <= cutStart && cutEnd - cutStart <= cutStart - pts {
                try muxer.close()
                return ended(.cannotState("FFmpeg's mov demuxer misreads an edit that starts and ends inside one AAC packet, further in than it is long"))
            }
            // The last packet ends at the cut's end: the muxer makes that the edit's duration.
            if isLast { packet.setDuration(cutEnd - pts) }
            try muxer.write(packet, stream: 0)
            if isLast {
                try muxer.finish()
                return ended(.written)
            }
        }
        try muxer.close()
        return ended(.endOfFile)
    }

    /// Why the written cut cannot be kept, or nil: FFmpeg must read it back as stated (the
    /// edit's duration is the cut's length, and the decode starts at the cut and holds it;
    /// FFmpeg 5.1 also decodes the rest of the last packet, where a player honouring the
    /// edit's end stops at it).
    private static func readBackRefusal(_ written: URL, input: URL, range: Range<Int64>, fades: CutFades, grid: CutGrid,
                                        faded: FadedPackets, copy: CopiedPackets,
                                        cancellation: CancellationFlag) throws -> String? {
        let check = try AudioInput(url: written, isCancelled: cancellation.check)
        let length = Int64(range.count)
        let lengths: Set<Int64> = [length, copy.lastEnd - grid.cutStart]
        let misread = "FFmpeg does not read the edit list back as written"
        guard check.parameters.statedDurationSamples == length else { return misread }
        if fades.isEmpty {
            let decoded = try AudioFileSource.decodedFrames(of: written, cancellation: cancellation)
            guard let decoded, lengths.contains(decoded) else { return misread }
            return nil
        }
        // The input's own samples from the second packet copied after a fade-in (the first
        // overlaps one encoded again) up to the first encoded again under a fade-out, as the
        // copied packets decode from the first of them.
        let exact = (faded.firstCopied.map { $0 + grid.frameSize - grid.cutStart } ?? 0)..<((faded.tailStart ?? grid.cutEnd) - grid.cutStart)
        let copiedFrom = try CopiedPacketSamples(input, first: copy.firstOriginal ?? grid.cutStart, cutStart: grid.cutStart,
                                                 cancellation: cancellation)
        return try FadedCutCheck.mismatch(written, input: input, range: range, exact: exact, lengths: lengths,
                                          reference: { try copiedFrom.samples($0) }, cancellation: cancellation)
    }

    /// The timestamp of the stream's first packet (negative when the encoder's priming is
    /// trimmed by the input's own edit list; after the gap when the list starts with an empty
    /// edit), and the timestamp of the decode's first sample: the stream's start time, else the
    /// first packet's plus the samples it says to skip, as the decoder finds it.
    private static func firstPacket(of source: AudioInput) throws -> (timestamp: Int64, origin: Int64) {
        try mappingFFmpegErrors(path: source.path) {
            let packet = try Packet()
            try source.demuxer.seek(stream: source.streamIndex, toTimestamp: Int64.min / 2)
            let reader = PacketReader(demuxer: source.demuxer, streamIndex: source.streamIndex, endsOnReadError: false)
            guard try reader.next(into: packet), let pts = packet.presentationTimestamp else { return (0, source.parameters.startSamples ?? 0) }
            return (pts, source.parameters.startSamples ?? pts + Int64(packet.skipSamples.start))
        }
    }
}
