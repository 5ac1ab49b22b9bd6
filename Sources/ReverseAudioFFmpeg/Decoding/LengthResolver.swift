import FFmpeg
import Foundation
import ReverseAudioCore

/// How many frames a decode of a file gives, found without decoding it all: the one place that
/// decides a file's length, and where a header that misstates it is caught.
///
/// - PCM: the container's data size, checked against the file's size (a header may promise
///   more than the file holds; FFmpeg decodes what is there).
/// - FLAC: what its packets decode to, read without decoding them (each frame's CRC-16 tells
///   which few must be decoded to learn what they give: ``FLACDamageScan``); STREAMINFO's total
///   is only compared with it, to tell damage inside from a file cut short or a wrong header.
///   For a range that reads no further, the scan stops at its end when all was regular before
///   (the length is then STREAMINFO's, unchecked past it). A URL's is STREAMINFO's total
///   checked by decoding the last frame (a scan would fetch it all).
/// - MP3 decoded whole by readers side by side: its tag frame's statement, checked by the first
///   packets and the last (as a URL's); the packet index the readers seek by is built by the
///   first of them that seeks, while the others decode (``SharedPacketIndex``), and must cover
///   the same count.
/// - Everything else: the packets are read once, without decoding. Each contributes what its
///   decoder emits (a lossy codec's whole frame; otherwise the packet's duration) after the
///   gapless trimming the demuxer attaches (``GaplessTrimming``); packets flagged decode-only, or
///   that cannot decode (no frame header), emit nothing. Where packets carry no duration (ALAC
///   in CAF) the step to the next packet's timestamp counts, and the last packet is measured by
///   decoding it alone. For fixed-frame lossy codecs the first and the last packets are decoded
///   to check the count where damage sits (a truncated last packet, junk before the first).
/// - A stream whose first packets do not decode is damaged where no check reaches: it is decoded
///   whole (such files are rare and short-lived; correctness first).
/// - MP4: the container's statement (its edit list's end), as Apple's players stop there
///   (FFmpeg 5.1 decodes the last packet whole), checked by decoding the frames before it: a
///   file cut short ends sooner.
///
/// It reads with its own open of the file, so it can run at any time beside a decode; or, for
/// a container's statement checked from the end, on an open the caller gives up.
enum LengthResolver {
    /// Why the length of a stream whose frames depart from its stated rate or size is unknown.
    static let departureReason = "its frames change sample rate or size (parts of other rates joined, or a damaged header): only decoding tells its length"

    /// Resolves the length of `url`'s stream, described by `parameters`.
    /// - Parameter keepingIndex: keep where each packet is, for a decode that will seek in a
    ///   stream without exact seeking (MP3, ADTS AAC).
    /// - Throws: `CancellationError`; nothing else (a count that fails leaves the length unknown).
    /// - Parameter damagedAtStart: decoding from the start already rejected packets before the
    ///   first frame: the stream is damaged where no check reaches, and is decoded whole.
    /// - Parameter given: an open of `url` from which nothing was read yet, used (and moved) by
    ///   the resolution: the caller brings it back to the start. Without it, or where a check
    ///   on it was inconclusive, the file is opened afresh.
    /// - Parameter checkingFrames: check a raw FLAC stream's frames (see ``FLACDamageScan``).
    /// - Parameter readersSideBySide: the whole stream is decoded by readers side by side, each
    ///   checking what the resolution takes on trust: a FLAC stream is not scanned first (they
    ///   check its frames' positions), an MP3 stream's packets are not counted first (the index
    ///   they build checks its tag's count).
    /// - Parameter readingTo: the frame a range ends at, when nothing after it is decoded: a raw
    ///   FLAC stream regular up to there is scanned no further (``FLACDamageScan``).
    static func resolve(_ url: URL, parameters: AudioStreamParameters, keepingIndex: Bool, damagedAtStart: Bool,
                        isCancelled: @escaping @Sendable () -> Bool, using given: AudioInput? = nil,
                        checkingFrames: Bool = true, readersSideBySide: Bool = false, readingTo: Int64? = nil) throws -> Resolution {
        let traits = parameters.traits
        guard AudioInput.isSeekableFile(url) else {
            return Resolution(length: .unknown, unknownReason: "the input is a pipe, read once", index: nil)
        }
        do {
            if damagedAtStart { return try decodedResolution(AudioInput(url: url, isCancelled: isCancelled), isCancelled: isCancelled) }
            var input = try given ?? AudioInput(url: url, isCancelled: isCancelled)
            if traits.family == .mp3 && input.demuxer.formatName == "mp3" && (url.isRemote || readersSideBySide) {
                if let trusted = try mp3TagResolution(url, input: &input, isCancelled: isCancelled) { return trusted }
            }
            if traits.family == .flac && input.demuxer.formatName == "flac" && (url.isRemote || readersSideBySide && !checkingFrames),
               let stated = parameters.statedDurationSamples, stated > 0 {
                if let trusted = try flacStatementResolution(url, input: &input, stated: stated, isCancelled: isCancelled) { return trusted }
            }
            if traits.family == .flac && input.demuxer.formatName == "flac" {
                let stated = parameters.statedDurationSamples ?? 0
                return flacResolution(try FLACDamageScan.scan(input, checkingFrames: checkingFrames, stoppingAt: readingTo,
                                                              stated: stated, isCancelled: isCancelled),
                                      stated: stated)
            }
            var moved = false
            if traits.containerStatesLength || traits.followsContainerDuration,
               let stated = parameters.statedDurationSamples, stated > 0 {
                moved = true
                if let checked = try checkedStatement(url, input: input, stated: stated, traits: traits, isCancelled: isCancelled) {
                    return checked
                }
            }
            // On an open of its own when a check above moved this one (rare: a header that
            // understates, an MP4 whose index outlives its data).
            let counting = moved ? try AudioInput(url: url, isCancelled: isCancelled) : input
            if traits.isLossy && !parameters.timestampsResolveSamples {
                // Neither the packets nor their timestamps tell what the decoder gives (Vorbis;
                // Opus and Vorbis in Matroska): counted by decoding, once.
                return try decodedResolution(counting, isCancelled: isCancelled)
            }
            return try countedResolution(counting, parameters: parameters, keepingIndex: keepingIndex, isCancelled: isCancelled)
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as FFmpegError where error.isInterrupted {
            throw CancellationError()
        } catch {
            let reason = (error as? FFmpegError)?.message ?? String(describing: error)
            return Resolution(length: .unknown, unknownReason: "reading the packets failed: \(reason)", index: nil)
        }
    }

    /// The length a decode of the whole stream gives, with the packets it rejected.
    private static func decodedResolution(_ input: AudioInput, isCancelled: @escaping @Sendable () -> Bool) throws -> Resolution {
        let decoded = try decodedLength(input, isCancelled: isCancelled)
        var resolution = Resolution(length: PCMLength(frames: decoded.frames, source: .decode), unknownReason: nil, index: nil)
        resolution.rejectedPackets = decoded.rejected
        resolution.rejectionReason = decoded.reason
        return resolution
    }

    /// An MP3's tag frame's statement, checked by the first packets and by those counted back
    /// from the end (``PacketIndex/mp3Tail(of:tag:reaching:isCancelled:)``), rather than a count:
    /// a URL's (a count would fetch the whole file), or for readers side by side, the first of
    /// which to seek indexes every packet while the others decode. Nil when the tag is not borne
    /// out; `input` is then at the stream's first packet, or a fresh open.
    private static func mp3TagResolution(_ url: URL, input: inout AudioInput,
                                         isCancelled: @escaping @Sendable () -> Bool) throws -> Resolution? {
        let tail = try mp3Tail(input, isCancelled: isCancelled)
        if let index = tail.index, let tag = index.tailTag {
            guard !url.isRemote else {
                return Resolution(length: PCMLength(frames: tag.length, source: .container), unknownReason: nil, index: index)
            }
            var resolution = Resolution(length: PCMLength(frames: tag.length, source: .container), unknownReason: nil, index: nil)
            resolution.indexToShare = SharedPacketIndex(url: url, expectedFrames: tag.length, streamStart: tag.firstFramePosition)
            return resolution
        }
        if !tail.rewound { input = try AudioInput(url: url, isCancelled: isCancelled) }
        return nil
    }

    /// STREAMINFO's total, checked by decoding the last frame, rather than a scan: a URL's (a
    /// scan would fetch the whole file; damage inside is met when decoded), or a whole-file
    /// decode on several readers, which check as they decode that every frame continues the one
    /// before (no frame copied in, no second file); only when one finds otherwise is the stream
    /// scanned (``Resolution/positionsChecked``). Nil when the check fails; `input` is then a
    /// fresh open for the scan.
    private static func flacStatementResolution(_ url: URL, input: inout AudioInput, stated: Int64,
                                                isCancelled: @escaping @Sendable () -> Bool) throws -> Resolution? {
        if case let (frames?, damagedEnd) = try checkedByLastFrame(input, stated: stated, paddingFollows: false,
                                                                   isCancelled: isCancelled) {
            var resolution = Resolution(length: PCMLength(frames: frames, source: .container), unknownReason: nil, index: nil)
            resolution.endIsDamaged = damagedEnd
            resolution.checkedFrames = false
            resolution.positionsChecked = url.isRemote
            return resolution
        }
        // The check moved this open to the stream's end: the scan starts from a fresh one.
        input = try AudioInput(url: url, isCancelled: isCancelled)
        return nil
    }

    /// The container's statement of the length, checked against the file (PCM's data size; the
    /// frame that should be last, for FLAC in another container and an MP4's edit list); nil when
    /// the check finds the header understates (the packets are counted then). Moves `input`.
    private static func checkedStatement(_ url: URL, input: AudioInput, stated: Int64, traits: CodecTraits,
                                         isCancelled: @escaping @Sendable () -> Bool) throws -> Resolution? {
        let checked = traits.family == .pcm
            ? (try checkedPCMLength(input, stated: stated), false)
            : try checkedByLastFrame(input, stated: stated, paddingFollows: traits.followsContainerDuration,
                                     isCancelled: isCancelled)
        guard let frames = checked.0 else { return nil }
        var resolution = Resolution(length: PCMLength(frames: frames, source: .container), unknownReason: nil, index: nil)
        resolution.endIsDamaged = checked.1
        if traits.family == .pcm, let declared = declaredPCMFrames(input), declared > frames {
            // The header promises more than the file holds: what is there is counted.
            resolution = Resolution(length: PCMLength(frames: frames, source: .packets), unknownReason: nil, index: nil)
            resolution.declaredFrames = declared
        }
        if traits.family == .flac {
            // FLAC in another container (MP4, Matroska): its length checked as the
            // container's, its damage found as raw FLAC's.
            let found = try rewoundScan(url, given: input, isCancelled: isCancelled)
            if found.rejectedPackets > 0 || found.index != nil {
                var damaged = flacResolution(found, stated: stated)
                damaged.endIsDamaged = damaged.endIsDamaged || checked.1
                return damaged
            }
        }
        return resolution
    }

    /// The length the packets sum to, read once without decoding (keeping every packet's place
    /// when `keepingIndex` and the stream seeks by an index of ours); an MP4's statement where
    /// it is shorter (its edit list's end).
    private static func countedResolution(_ counting: AudioInput, parameters: AudioStreamParameters, keepingIndex: Bool,
                                          isCancelled: @escaping @Sendable () -> Bool) throws -> Resolution {
        let traits = parameters.traits
        let index = keepingIndex && traits.needsPacketIndex ? PacketIndex(for: counting) : nil
        guard let count = try countPackets(counting, index: index, isCancelled: isCancelled) else {
            return Resolution(length: .unknown, unknownReason: "packets carry no durations or timestamps", index: nil)
        }
        if count.departs {
            var resolution = Resolution(length: .unknown, unknownReason: departureReason, index: nil)
            resolution.positionsOnlyByDecoding = true
            resolution.streamStart = count.firstPosition
            return resolution
        }
        let counted = count.frames
        var resolution: Resolution
        if traits.followsContainerDuration, let stated = parameters.statedDurationSamples, stated > 0, stated < counted {
            resolution = Resolution(length: PCMLength(frames: stated, source: .container), unknownReason: nil, index: index)
        } else {
            resolution = Resolution(length: PCMLength(frames: counted, source: .packets), unknownReason: nil,
                                    index: index?.isComplete == true ? index : nil)
        }
        resolution.rejectedPackets = count.rejected
        resolution.streamStart = count.firstPosition
        if count.rejected > 0 { resolution.rejectionReason = FFmpegError.invalidDataText }
        return resolution
    }

    /// The index of an MP3 stream's last packets, placed by its tag frame, when its first
    /// packets decode as the tag says and its last ones bear it out; nil otherwise.
    /// - Returns: the index, and whether `input` is back at the stream's first packet when there
    ///   is none (a file's is: a byte seek there reads on exactly as a fresh open does, stamps and
    ///   gapless trimming included); otherwise the caller counts on an open of its own.
    private static func mp3Tail(_ input: AudioInput, isCancelled: () -> Bool) throws -> (index: PacketIndex?, rewound: Bool) {
        let reader = PacketReader(demuxer: input.demuxer, streamIndex: input.streamIndex)
        var head: [Packet] = []
        while head.count < PacketIndex.headPackets {
            let packet = try Packet()
            guard try reader.next(into: packet) else { break }
            if !packet.isDiscarded { head.append(packet) }
        }
        guard let firstPosition = head.first?.filePosition else { return (nil, false) }
        func found() throws -> PacketIndex? {
            guard head.count == PacketIndex.headPackets,
                  let tag = try MP3InfoTag.read(input, firstFramePosition: firstPosition),
                  tag.frames > 2 * Int64(PacketIndex.headPackets) else { return nil }
            // The first packets, decoded as a decode from the start does, give what the tag says.
            let decoded = try FrameDecoder.samples(decoding: head, demuxer: input.demuxer, streamIndex: input.streamIndex)
            for (number, samples) in decoded.enumerated() where Int64(samples) != tag.samplesDecoded(byFrame: Int64(number)) {
                return nil
            }
            return try PacketIndex.mp3Tail(of: input, tag: tag, reaching: tag.length - 1, isCancelled: isCancelled)
        }
        if let index = try found() { return (index, false) }
        guard !input.url.isRemote else { return (nil, false) }
        try input.demuxer.seek(toByte: firstPosition)
        return (nil, true)
    }

    /// PCM's length: where its last packet ends, read after a seek to the stated end (AIFF's
    /// COMM chunk may state less than its SSND chunk holds, which FFmpeg reads); when nothing is
    /// there, what the file holds after the data's start (a WAV header may promise more than
    /// the file holds; FFmpeg decodes what is there).
    private static func checkedPCMLength(_ input: AudioInput, stated: Int64) throws -> Int64? {
        let parameters = input.parameters
        let packet = try Packet()
        let reader = PacketReader(demuxer: input.demuxer, streamIndex: input.streamIndex)
        guard try reader.next(into: packet), let dataStart = packet.filePosition else { return stated }
        let origin = packet.presentationTimestamp ?? 0
        let rate = parameters.sampleRate
        try input.demuxer.seek(stream: input.streamIndex, toTimestamp: origin + parameters.timeBaseUnits(fromSamples: stated - 1, sampleRate: rate))
        var end: Int64?
        while try reader.next(into: packet) {
            guard let pts = packet.presentationTimestamp, packet.duration > 0 else { continue }
            end = max(end ?? 0, parameters.samples(fromTimeBaseUnits: pts - origin + packet.duration, sampleRate: rate))
        }
        if let end { return end }
        let blockAlign = Int64(parameters.blockAlign)
        var status = stat()
        guard blockAlign > 0, stat(input.url.path, &status) == 0 else { return stated }
        return min(stated, max(0, Int64(status.st_size) - dataStart) / blockAlign)
    }

    /// The frames a decode of the whole stream gives (the samples of every frame, as a read
    /// delivers them: a rejected packet's timestamp gap is not counted), and the packets it
    /// rejected, with the first reason.
    private static func decodedLength(_ input: AudioInput,
                                      isCancelled: @escaping @Sendable () -> Bool) throws -> (frames: Int64, rejected: Int, reason: String?) {
        let positioner = try FramePositioner(input: input, isCancelled: isCancelled)
        var frames: Int64 = 0
        while try positioner.next() {
            frames += Int64(positioner.frame.sampleCount - positioner.leadingSamplesToDrop)
        }
        return (frames, positioner.skippedPackets, positioner.firstSkipReason)
    }

    /// What a FLAC scan found, as a resolution against the `stated` length (0 when STREAMINFO
    /// states none). Every frame's CRC is what tells a file damaged inside from one cut short or
    /// one whose STREAMINFO is simply wrong.
    private static func flacResolution(_ found: FLACDamageScan.Found, stated: Int64) -> Resolution {
        guard found.reachedEnd else {
            // Regular up to where a range ends, which STREAMINFO's total lies beyond: its length,
            // unchecked past that point (the scan stops only there).
            var resolution = Resolution(length: PCMLength(frames: stated, source: .container), unknownReason: nil, index: nil)
            resolution.checkedFrames = false
            resolution.checkedThrough = found.frames
            return resolution
        }
        var resolution = Resolution(length: PCMLength(frames: found.frames, source: found.frames == stated ? .container : .packets),
                                    unknownReason: nil, index: found.index)
        resolution.rejectedPackets = found.rejectedPackets
        resolution.rejectionReason = found.rejectionReason
        resolution.endIsDamaged = found.endIsDamaged
        // Damaged, not cut short: the rejected packets inside the stream held what is missing.
        resolution.losesFramesInside = found.rejectedPackets > 0 && !found.endIsDamaged && found.frames + found.lostFrames == stated
        resolution.decodesOnOneThread = found.index != nil || found.rejectedPackets > 0
        resolution.checkedFrames = found.checkedFrames
        return resolution
    }

    /// A FLAC stream's scan on `given` brought back to its start, or on an open of its own when
    /// it cannot be.
    private static func rewoundScan(_ url: URL, given: AudioInput, isCancelled: @escaping @Sendable () -> Bool) throws -> FLACDamageScan.Found {
        var input = given
        do {
            try given.rewindDemuxer()
        } catch {
            if error.isInterrupted { throw CancellationError() }
            input = try AudioInput(url: url, isCancelled: isCancelled)
        }
        return try FLACDamageScan.scan(input, checkingFrames: true, isCancelled: isCancelled)
    }

    /// The frames a WAV's `data` chunk declares, read from the file's chunks; nil for other
    /// containers, or when the chunks do not say. FFmpeg's WAV demuxer states what the file
    /// holds when that size runs past the end of the file (a file cut short).
    private static func declaredPCMFrames(_ input: AudioInput) -> Int64? {
        guard input.demuxer.formatName == "wav", input.parameters.blockAlign > 0,
              let bytes = WAVDataChunk.declaredSize(in: input.demuxer) else { return nil }
        return bytes / Int64(input.parameters.blockAlign)
    }

    /// FLAC's stated length when decoding the frame that should be last ends there; the
    /// decoded end when the stream ends sooner (a file cut short); nil when it goes on (the
    /// header understates: the packets are counted instead).
    /// An MP4's stated end (its edit list's) is checked the same way; the encoder's padding that
    /// follows it (`paddingFollows`) is not a sign of a wrong header.
    /// - Returns: the length, and whether the frames decoded at the end met damage.
    private static func checkedByLastFrame(_ input: AudioInput, stated: Int64, paddingFollows: Bool,
                                           isCancelled: @escaping @Sendable () -> Bool) throws -> (Int64?, Bool) {
        let positioner = try FramePositioner(input: input, isCancelled: isCancelled)
        let reached: Int64
        do {
            reached = try positioner.seek(toFrame: stated - 1, decodingUntil: nil)
        } catch is FramePositioner.SeekUnavailable {
            // Inconclusive: the packets are counted instead, on an open of their own.
            return (nil, false)
        }
        // Nothing decoded after the seek: it went where the data is missing (an MP4 whose
        // index outlives its cut-off data). Inconclusive: the packets are counted instead.
        if reached == 0 && stated > 1 { return (nil, positioner.readFailure != nil) }
        var end = reached
        if reached == stated - 1 {
            while try positioner.next() {
                end = positioner.frameStart + Int64(positioner.frame.sampleCount - positioner.leadingSamplesToDrop)
                if end > stated { return paddingFollows ? (stated, false) : (nil, false) }
            }
        }
        return (end, positioner.skippedPackets > 0 || positioner.readFailure != nil)
    }

    /// Packets of a fixed-frame lossy stream decoded at each end of a count: all of them at the
    /// start (a decode from the first packet is the real one), the last `checkedPackets` at the
    /// end, after enough to fill the MP3 bit reservoir (9 frames at the lowest rates).
    private static let tailPackets = 16
    private static let checkedPackets = 4

    /// What decoding `packets` in order with a fresh decoder emits beyond what the model said,
    /// over the packets `checked` (those before them only fill the decoder: an MP3's reservoir).
    private static func correction(_ packets: [(packet: Packet, emitted: Int64)], checked: Range<Int>,
                                   input: AudioInput) throws -> Int64 {
        guard !checked.isEmpty else { return 0 }
        let decoded = try FrameDecoder.samples(decoding: packets.prefix(checked.upperBound).map(\.packet),
                                               demuxer: input.demuxer, streamIndex: input.streamIndex)
        return checked.reduce(Int64(0)) { $0 + Int64(decoded[$1]) - packets[$1].emitted }
    }

    /// The frames the packets will decode to, and the packets the decoder will reject (as the
    /// codec's model says: ``CodecTraits/canDecode(_:)``); nil when the packets do not tell it.
    private static func countPackets(_ input: AudioInput, index: PacketIndex?,
                                     isCancelled: () -> Bool) throws -> (frames: Int64, rejected: Int, firstPosition: Int64?, departs: Bool)? {
        let parameters = input.parameters
        let packet = try Packet()
        let undated = try Packet()
        let reader = PacketReader(demuxer: input.demuxer, streamIndex: input.streamIndex, endsOnReadError: false)
        let wholeFrame = parameters.isLossy && parameters.codecFrameSize > 0 ? Int64(parameters.codecFrameSize) : nil
        // Ogg states where a stream ends with the last page's granule position, and FFmpeg's Ogg
        // demuxer shortens the last packet's duration to it besides attaching the same amount as
        // discard padding: counted once. (Matroska keeps whole durations beside the padding.)
        let durationsAreTrimmed = input.demuxer.formatName == "ogg"
        // A lossy codec of variable frame size (Opus, Vorbis) may emit nothing for a packet that
        // only primes it: its output spans from the start time to the last packet's end.
        let spansTimestamps = parameters.isLossy && wholeFrame == nil && parameters.startSamples != nil
        var lastEnd: (samples: Int64, endSkip: Int)?
        var total: Int64 = 0
        var trimming = GaplessTrimming()
        // The first and the last packets, and what the model says they emit: decoded to check it.
        var head: [(packet: Packet, emitted: Int64)] = []
        var tail: [(packet: Packet, emitted: Int64)] = []
        var packets = 0
        var rejected = 0
        var firstPosition: Int64?
        // A packet without a duration waits for the next one's timestamp.
        var waiting: (timestamp: Int64, skip: (start: Int, end: Int)?)?
        while try reader.next(into: packet) {
            if isCancelled() { throw CancellationError() }
            guard !packet.isDiscarded else { continue }
            if firstPosition == nil { firstPosition = packet.filePosition }
            if spansTimestamps, let timestamp = packet.presentationTimestamp, packet.duration > 0 {
                lastEnd = (parameters.samples(fromTimeBaseUnits: timestamp + packet.duration, sampleRate: parameters.sampleRate),
                           packet.skipSamples.end)
            }
            try index?.append(packet)
            if let pending = waiting {
                guard let timestamp = packet.presentationTimestamp, timestamp > pending.timestamp else { return nil }
                total += trimming.emitted(parameters.samples(fromTimeBaseUnits: timestamp - pending.timestamp,
                                                             sampleRate: parameters.sampleRate), skip: pending.skip)
                waiting = nil
            }
            if let wholeFrame {
                if input.traits.departsFromStream(packet, sampleRate: parameters.sampleRate, frameSize: Int(wholeFrame)) {
                    return (0, rejected, firstPosition, true)
                }
                let decodes = input.traits.canDecode(packet)
                if !decodes && input.traits.reportsRejection(of: packet) { rejected += 1 }
                let emitted = trimming.emitted(decodes ? wholeFrame : 0, skip: packet.skipSideData)
                total += emitted
                packets += 1
                let kept = try Packet()
                try kept.reference(packet)
                if head.count < tailPackets { head.append((kept, emitted)) }
                tail.append((kept, emitted))
                if tail.count > tailPackets { tail.removeFirst() }
            } else if packet.duration > 0 {
                let skip = packet.skipSideData
                total += trimming.emitted(parameters.samples(fromTimeBaseUnits: packet.duration, sampleRate: parameters.sampleRate),
                                          skip: durationsAreTrimmed ? skip.map { ($0.start, 0) } : skip)
            } else if let timestamp = packet.presentationTimestamp {
                waiting = (timestamp, packet.skipSideData)
                try undated.reference(packet)
            } else {
                return nil
            }
        }
        if waiting != nil {
            // The decoder applies the packet's own trimming here.
            total += Int64(try FrameDecoder.samples(decoding: [undated], demuxer: input.demuxer, streamIndex: input.streamIndex).reduce(0, +))
        }
        try index?.markComplete()
        if packets > 0 {
            let whole = packets <= tailPackets
            // The first packets, decoded from the start exactly as a whole decode begins (one a
            // decoder rejects, or a damaged one, emits nothing there).
            total += try correction(head, checked: head.indices, input: input)
            if !whole {
                // The last ones, after enough packets to fill an MP3's bit reservoir; not those
                // the head already checked.
                let firstChecked = max(tail.count - checkedPackets, tailPackets - (packets - tail.count))
                total += try correction(tail, checked: max(firstChecked, 0)..<tail.count, input: input)
            }
        }
        if spansTimestamps, let lastEnd, let start = parameters.startSamples {
            return (lastEnd.samples - start - Int64(durationsAreTrimmed ? 0 : lastEnd.endSkip), rejected, firstPosition, false)
        }
        return (total, rejected, firstPosition, false)
    }
}
