import FFmpeg
import Foundation
import ReverseAudioCore

/// A cut of an MP3 file without re-encoding: the frames from the least pre-roll that decodes
/// exactly (``MP3CutPlan``: worked out from each frame's side information) through the frame
/// holding the cut's last sample, copied byte for byte behind a LAME tag (``LAMETag``) whose
/// delay and padding make a gapless decoder (FFmpeg, mpg123) start exactly at the cut and stop
/// exactly at its end, and an iTunes gapless comment stating the same.
///
/// When the first frames' main data begins in the bit reservoir before them, a frame that
/// decodes to silence is prepended carrying exactly the missing bytes, so every copied frame
/// decodes as in the continuous decode. The first frames of what was written are decoded and
/// compared with the continuous decode, and the whole is decoded to check its length, before
/// the file is kept.
package enum PacketCopyCut {
    /// What became of a cut.
    package enum Outcome {
        /// Written and checked.
        case written(Written)
        /// Not written, and why: the caller re-encodes.
        case refused(String)
    }

    /// What a cut wrote.
    package struct Written {
        /// Frames the file decodes to: the cut's length.
        package let frames: Int64
        /// Frames copied byte for byte.
        package let copiedFrames: Int
        /// Bytes of bit reservoir a prepended silent frame carries (0: none was needed).
        package let reservoirBytes: Int
        /// The LAME tag's delay and padding.
        package let delay: Int
        package let padding: Int
        /// Frames encoded again under the fade-in and under the fade-out (0 and 0 without fades).
        package let reencodedFrames: (head: Int, tail: Int)
        /// The share of the file's MP3 frame bytes copied from the input, 0...1.
        package let copiedShare: Double
    }

    /// How the file written starts: frames put before the first frame copied (a silent frame
    /// carrying bit reservoir, or frames encoded again under a fade-in) and the samples a
    /// decoder gives before the cut's first.
    struct Start {
        let first: Int
        let head: [[UInt8]]
        let leadIn: Int
        let reservoirBytes: Int
        let reencoded: Int
    }

    /// A step's result, or why the cut is not copied.
    enum Decided<Value> {
        case value(Value)
        case refused(String)
    }

    /// Retries with more pre-roll when a check of the first frames fails.
    static let retries = 2
    /// Frames decoded after the one holding the cut's start, at least, to check the copy.
    static let checkedFrames = 2

    /// Copies frames `range` (output frames of `input`'s gapless decode) into `output`.
    /// - Throws: `RangeError.rangePastEnd(path:frame:isStart:length:sampleRate:)` for
    ///   a range past the end, and the errors of reading and writing.
    /// With `fades`, the frames under them are encoded again (``MP3FadeFrames``) and the rest copied.
    package static func cut(_ input: URL, range: Range<Int64>, fades: CutFades = .none, to output: URL, overwrite: Bool,
                            tags overrides: [(key: String, value: String)] = [], sharing shared: SharedPacketIndex? = nil,
                            cancellation: CancellationFlag) throws -> Outcome {
        let source = try AudioInput(url: input, isCancelled: cancellation.check)
        guard source.traits.cutMethod == .mp3Frames, source.isSeekable else { return .refused("only a seekable MP3 file's frames can be copied") }
        let index: PacketIndex
        if let complete = try mappingFFmpegErrors(path: input.displayPath, { try shared?.index(ofFreshlyOpened: source, isCancelled: cancellation.check) }) {
            index = complete
        } else {
            index = PacketIndex(for: source)
            let reader = PacketReader(demuxer: source.demuxer, streamIndex: source.streamIndex, endsOnReadError: false)
            // Read in order from the start, through the demuxer: its end trimming (the LAME tag's
            // padding) is only right that way.
            try index.extend(through: range.upperBound, reader: reader, path: input.displayPath, isCancelled: cancellation.check)
        }
        // Frames of another rate or size than the stream's before the cut's end: only a decode,
        // which converts them to the first frame's rate, says where the cut lies.
        if index.departsFromStream { return .refused(OneReaderReason.framesChangeFormat.description) }
        if range.lowerBound >= index.indexedFrames || range.upperBound > index.indexedFrames {
            _ = try range.within(length: index.indexedFrames, sampleRate: source.parameters.sampleRate, path: input.displayPath)
        }
        guard let holding = index.packet(containing: range.lowerBound), let last = index.packet(containing: range.upperBound - 1) else {
            return .refused("its frames could not be indexed")
        }
        let offset = Int(range.lowerBound - index.entries[holding].rawStart)
        // FFmpeg's decoder takes each packet's skip side data as the samples still to drop: the
        // last frame's (the end trim) arrives with 0, so a start trim still pending then is lost.
        // A cut whose first and last samples lie in one frame (with samples before it) would
        // decode too long with FFmpeg, whatever the tag says.
        if last == holding && offset > 0 {
            return .refused("it starts and ends inside one MP3 frame, which FFmpeg's decoder cannot trim at both ends")
        }
        // The frames under the fades: from the first after the fade-in, through the last before the fade-out.
        var afterFadeIn: Int?
        if let fadeIn = fades.fadeIn {
            guard let lastFaded = index.packet(containing: min(range.upperBound - 1, range.lowerBound + fadeIn.frames - 1)) else {
                return .refused("its frames could not be indexed")
            }
            afterFadeIn = lastFaded + 1
        }
        var fadeOutStart: Int?
        if let fadeOut = fades.fadeOut {
            fadeOutStart = index.packet(containing: max(range.lowerBound, range.upperBound - fadeOut.frames))
        }
        let lastCopied = fadeOutStart.map { $0 - 1 } ?? last
        let firstKept = afterFadeIn ?? holding
        // The first copied frame after a fade-in decodes inexactly (its granules overlap the ones
        // encoded again); the copy pays when frames after it are exact.
        if !fades.isEmpty && lastCopied - firstKept < 2 {
            return .refused("the fades cover nearly all of the cut")
        }
        let window = try Window(source, index: index, holding: firstKept, last: lastCopied, cancellation: cancellation)
        guard let held = window.frames[firstKept],
              afterFadeIn != nil || (0..<held.header.samplesPerFrame).contains(offset) else {
            return .refused("the frame holding the cut's start is not an MP3 layer III frame")
        }
        guard held.header.bitRateIndex != 0 else { return .refused("free-format MP3 frames cannot be repaired") }
        let samplesPerFrame = held.header.samplesPerFrame
        let samples = fades.isEmpty ? nil : try CutSamples(input, range: range, effects: fades.effects, cancellation: cancellation)

        let start: Start
        let decided: Decided<Start>
        if let afterFadeIn, let samples {
            decided = try fadedStart(window, index: index, first: afterFadeIn, lastCopied: lastCopied, range: range, samples: samples)
        } else {
            decided = try copiedStart(window, index: index, holding: holding, offset: offset, lastCopied: lastCopied, range: range)
        }
        switch decided {
        case .value(let value): start = value
        case .refused(let reason): return .refused(reason)
        }
        var tail: [[UInt8]] = []
        if let fadeOutStart, let samples {
            switch try fadedEnd(source, index: index, first: fadeOutStart, like: held.header, rate: window.rate, range: range,
                                samples: samples) {
            case .value(let frames): tail = frames
            case .refused(let reason): return .refused(reason)
            }
        }
        // The original decode must run on unbroken from the first frame kept to the last: a
        // trim inside (the padding of one of two files put end to end) cannot be stated.
        let entries = index.entries
        if (start.first...lastCopied).contains(where: { ($0 < last && entries[$0].skip.end > 0) || ($0 > start.first && entries[$0].skip.start > 0) }) {
            return .refused("its decode is trimmed between the frames kept (two files put end to end?): a LAME tag states only a start and an end")
        }
        let delay = start.leadIn - LAMETag.decoderDelay
        guard delay >= 0, delay <= LAMETag.maximumField else {
            return .refused("the LAME tag's 12-bit delay cannot state \(delay) samples of lead-in")
        }
        // Outside the fades, the decode must be the input's exactly: from the second granule after
        // the frames encoded again under a fade-in, up to the first under a fade-out.
        let exact = (afterFadeIn == nil ? 0 : entries[start.first].rawStart + 2 * Int64(MPEGAudioHeader.samplesPerGranule) - range.lowerBound)
            ..< (fadeOutStart.map { entries[$0].rawStart - range.lowerBound } ?? Int64(range.count))
        return try write(source, index: index, start: start, lastCopied: lastCopied, tail: tail, range: range, delay: delay,
                         samplesPerFrame: samplesPerFrame, checkingExactly: fades.isEmpty ? nil : exact, to: output, input: input,
                         overwrite: overwrite, tags: source.tags(overriding: overrides), cancellation: cancellation)
    }

    /// The start of a plain copy: the least pre-roll that decodes exactly (more on a retry when
    /// the check of the first frames fails), behind a silent frame carrying bit reservoir when
    /// the first frames need it.
    private static func copiedStart(_ window: Window, index: PacketIndex, holding: Int, offset: Int, lastCopied: Int,
                                    range: Range<Int64>) throws -> Decided<Start> {
        var reason = ""
        for extra in 0...retries {
            let plan: MP3CutPlan
            do {
                plan = try MP3CutPlan.make(holding: holding, offset: offset, extraFrames: extra, frames: window.frames,
                                           lastCopied: lastCopied, payload: { window.packets[$0]?.bytes ?? [] })
            } catch {
                return .refused(error.reason)
            }
            guard let firstFrame = window.frames[plan.first] else { return .refused("the first frame kept is not an MP3 frame") }
            // Samples a decoder starting at the first frame kept gives before the cut. The tag's
            // delay leaves out the decoder's own 529: with fewer (a cut at the very start of a file
            // without a LAME tag), a silent frame before the first adds a frame of lead-in; it
            // leaves the decoder's state as a fresh one's, so the first frame decodes the same.
            let framesLeadIn = Int(range.lowerBound - index.entries[plan.first].rawStart)
            let reservoirFrame: [UInt8]?
            if plan.reservoir.isEmpty && framesLeadIn >= LAMETag.decoderDelay {
                reservoirFrame = nil
            } else {
                guard let made = MP3CutPlan.reservoirFrame(carrying: plan.reservoir, like: firstFrame.header) else {
                    return .refused("no frame holds the \(plan.reservoir.count) bytes of bit reservoir the cut needs")
                }
                reservoirFrame = made
            }
            let leadIn = (reservoirFrame == nil ? 0 : firstFrame.header.samplesPerFrame) + framesLeadIn
            if let mismatch = try check(window, plan: plan, reservoirFrame: reservoirFrame, leadIn: leadIn, range: range,
                                        index: index, last: lastCopied) {
                reason = mismatch
                continue
            }
            return .value(Start(first: plan.first, head: reservoirFrame.map { [$0] } ?? [], leadIn: leadIn,
                                reservoirBytes: plan.reservoir.count, reencoded: 0))
        }
        return .refused(reason)
    }

    /// The start of a cut with a fade-in: frames encoded again from the faded samples up to
    /// `first`, the first frame copied, the last of them widened to carry the bit reservoir the
    /// copied frames need from before them. Their decode starts at least the encoder's padding
    /// before the cut, so every sample of the cut is theirs or the copied frames'.
    private static func fadedStart(_ window: Window, index: PacketIndex, first: Int, lastCopied: Int, range: Range<Int64>,
                                   samples: CutSamples) throws -> Decided<Start> {
        guard let firstCopied = window.frames[first] else { return .refused("the first frame after the fade-in is not an MP3 layer III frame") }
        let header = firstCopied.header
        let samplesPerFrame = header.samplesPerFrame
        let plan: MP3CutPlan
        do {
            plan = try MP3CutPlan.plan(first: first, like: header, frames: window.frames, lastCopied: lastCopied,
                                       payload: { window.packets[$0]?.bytes ?? [] })
        } catch {
            return .refused(error.reason)
        }
        let encoding = try mappingFFmpegErrors(path: window.source.path) {
            try MP3FadeFrames.encoder(like: header, rate: window.rate, channels: samples.channels, path: window.source.path)
        }
        let boundary = index.entries[first].rawStart - range.lowerBound
        let made = try mappingFFmpegErrors(path: window.source.path) {
            try encoding.head(of: samples, before: boundary, samplesPerPacket: samplesPerFrame)
        }
        var frames = made.packets
        let count = Int((boundary - made.start) / Int64(samplesPerFrame))
        let headStart = made.start + range.lowerBound
        guard frames.count >= count, let opening = frames[0].withUnsafeBytes({ MPEGAudioFrame(bytes: $0) }), opening.mainDataBegin == 0,
              frames.prefix(count).allSatisfy({ $0.withUnsafeBytes { MPEGAudioFrame(bytes: $0)?.header.isCompatible(with: header) } ?? false })
        else {
            return .refused("the frames encoded for the fade-in do not fit the stream")
        }
        guard let packed = MP3FadeFrames.packed(Array(frames.prefix(count)), carrying: plan.reservoir) else {
            return .refused("the frames encoded for the fade-in cannot carry the \(plan.reservoir.count) bytes of bit reservoir the first copied frame needs")
        }
        frames = packed
        return .value(Start(first: first, head: frames, leadIn: Int(range.lowerBound - headStart), reservoirBytes: plan.reservoir.count,
                            reencoded: count))
    }

    /// The frames encoded again under a fade-out, from frame `first` (whose decode holds the
    /// fade's first sample) to the cut's end. The encoder is fed from well before them and its
    /// first frames left out, so the first frame kept encodes the signal that continues the
    /// copied frames (their overlap adds up as in any decode); without the reservoir, it needs
    /// nothing of theirs.
    private static func fadedEnd(_ source: AudioInput, index: PacketIndex, first: Int, like header: MPEGAudioHeader,
                                 rate: MP3FadeFrames.Rate, range: Range<Int64>, samples: CutSamples) throws -> Decided<[[UInt8]]> {
        let encoding = try mappingFFmpegErrors(path: source.path) {
            try MP3FadeFrames.encoder(like: header, rate: rate, channels: samples.channels, path: source.path)
        }
        let samplesPerFrame = header.samplesPerFrame
        // Frames the encoder makes before the first kept: its padding and two granules of the
        // signal before the boundary, which the first kept frame's window overlaps.
        let warmUp = (encoding.initialPadding + 2 * MPEGAudioHeader.samplesPerGranule + samplesPerFrame - 1) / samplesPerFrame
        let boundary = index.entries[first].rawStart - range.lowerBound
        let count = Int((Int64(range.count) - boundary + Int64(samplesPerFrame) - 1) / Int64(samplesPerFrame))
        guard let kept = try mappingFFmpegErrors(path: source.path, {
            try encoding.tail(of: samples, from: boundary, warmUp: warmUp, samplesPerPacket: samplesPerFrame)
        }) else {
            return .refused("the cut is too short before its fade-out to copy")
        }
        guard kept.count == count, let opening = kept[0].withUnsafeBytes({ MPEGAudioFrame(bytes: $0) }), opening.mainDataBegin == 0,
              kept.allSatisfy({ $0.withUnsafeBytes { MPEGAudioFrame(bytes: $0)?.header.isCompatible(with: header) } ?? false })
        else {
            return .refused("the frames encoded for the fade-out do not fit the stream")
        }
        return .value(kept)
    }

    // MARK: Checking

    /// Decodes the first frames of the cut as they will be written and compares them with a
    /// decode as exact as the continuous one; nil when they are equal, else what differs.
    private static func check(_ window: Window, plan: MP3CutPlan, reservoirFrame: [UInt8]?, leadIn: Int, range: Range<Int64>,
                              index: PacketIndex, last: Int) throws -> String? {
        guard let holding = index.packet(containing: range.lowerBound) else { return "the cut's start is not indexed" }
        let through = min(last, max(holding + checkedFrames, plan.lastReachingBack))
        let reference = window.restart(plan.first)
        guard (reference...through).allSatisfy({ window.packets[$0] != nil }) else { return "the frames to check were not read" }
        var ours: [Packet] = []
        if let reservoirFrame { ours.append(try mappingFFmpegErrors(path: "") { try Packet(bytes: reservoirFrame) }) }
        ours += (plan.first...through).compactMap { window.packets[$0] }
        let exact = (reference...through).compactMap { window.packets[$0] }
        let decoded = try window.decode(ours)
        let expected = try window.decode(exact)
        // Output frame A is sample `leadIn` of ours and sample A − rawStart(reference) of the exact decode.
        let end = min(range.upperBound, index.entries[through].outputStart + index.entries[through].emitted)
        let count = Int(end - range.lowerBound)
        let exactStart = Int(range.lowerBound - index.entries[reference].rawStart)
        guard count > 0, decoded.channels.count == expected.channels.count, !decoded.channels.isEmpty else {
            return "the first frames kept decode to nothing"
        }
        let size = decoded.bytesPerSample
        for channel in decoded.channels.indices {
            let mine = decoded.channels[channel]
            let theirs = expected.channels[channel]
            guard mine.count >= (leadIn + count) * size, theirs.count >= (exactStart + count) * size,
                  mine[(leadIn * size)..<((leadIn + count) * size)] == theirs[(exactStart * size)..<((exactStart + count) * size)]
            else {
                return "the first frames kept do not decode as in the continuous decode (checked \(count) frames from the cut's start)"
            }
        }
        return nil
    }

    // MARK: Writing

    /// The ID3v2 version of the tag written (the MP3 muxer's default).
    static let id3Version = 4

    /// Writes the tag frame, the start's frames, the copied frames and the tail (frames encoded
    /// again under a fade-out); checks the result's length and, with fades, that it decodes as the
    /// input does over `exact` (frames of the cut).
    private static func write(_ source: AudioInput, index: PacketIndex, start: Start, lastCopied: Int, tail: [[UInt8]],
                              range: Range<Int64>, delay: Int, samplesPerFrame: Int, checkingExactly exact: Range<Int64>?,
                              to output: URL, input: URL, overwrite: Bool, tags: [(key: String, value: String)],
                              cancellation: CancellationFlag) throws -> Outcome {
        // The copied bytes are read twice: once for the tag's frame count, sizes and CRC, once to write.
        var sizes: [Int] = []
        var musicCRC: UInt16 = 0
        var bitRates = Set<Int>()
        var firstHeader: MPEGAudioHeader?
        var frames = 0
        var copiedBytes = 0
        func count(_ bytes: UnsafeRawBufferPointer, copied: Bool) {
            guard let frame = MPEGAudioFrame(bytes: bytes) else { return }
            sizes.append(bytes.count)
            musicCRC = LAMETag.crc(bytes, continuing: musicCRC)
            frames += 1
            if copied { copiedBytes += bytes.count }
            bitRates.insert(frame.header.bitRateIndex)
            if firstHeader == nil { firstHeader = frame.header }
        }
        start.head.forEach { $0.withUnsafeBytes { count($0, copied: false) } }
        // A packet that is not a frame (a tag between two files put end to end) decodes to
        // nothing, but FFmpeg's demuxer counts a frame's duration for it, which would move the
        // end trim: it is left out.
        try forEachPacket(source, index: index, from: start.first, through: lastCopied, cancellation: cancellation) { packet in
            packet.withBytes { count($0, copied: true) }
        }
        tail.forEach { $0.withUnsafeBytes { count($0, copied: false) } }
        guard let firstHeader else { return .refused("the first frame kept is not an MP3 frame") }
        let padding = frames * samplesPerFrame - delay - range.count
        guard (LAMETag.decoderDelay...LAMETag.maximumField).contains(padding) else {
            return .refused("the LAME tag's 12-bit padding cannot state \(padding) samples")
        }
        let tag = LAMETag(frames: frames, frameSizes: sizes, musicCRC: musicCRC, delay: delay, padding: padding,
                          encoder: encoderName(source), isVariable: bitRates.count > 1)
        let tagFrame = tag.frame(like: firstHeader)
        let comment = ITunesGapless.id3CommentFrame(text: tag.iTunesGaplessText(length: Int64(range.count)), version: id3Version)
        let room = comment.count + 16
        let parameters = source.parameters
        let frameDuration = max(1, Int64(samplesPerFrame) * Int64(parameters.timeBaseDenominator)
                                    / max(1, Int64(parameters.timeBaseNumerator) * Int64(parameters.sampleRate)))

        let destination = try OutputFile(url: output, overwrite: overwrite, inputs: [input], requiresSeekableFile: true)
        do {
            try mappingFFmpegErrors(path: output.displayPath) {
                let muxer = try Muxer(path: destination.temporaryURL.path, formatName: FileFormat.mp3.muxer, publishedPath: destination.target.path)
                try muxer.addStream(copying: source.demuxer, stream: source.streamIndex, initialPadding: 0, trailingPadding: 0)
                muxer.setMetadata(tags)
                try muxer.addChapters(source.chapters(within: range), sampleRate: source.parameters.sampleRate)
                // The muxer writes the ID3v2 tag (with room left for the gapless comment) and
                // then the frames as they are given: the tag frame is ours, not the muxer's.
                try muxer.writeHeader(options: ["write_xing": "0", "id3v2_version": String(id3Version),
                                                "metadata_header_padding": String(room)])
                var timestamp: Int64 = 0
                func send(_ packet: Packet) throws(FFmpegError) {
                    packet.clearForCopy()
                    packet.setTimestamp(timestamp)
                    packet.setDuration(frameDuration)
                    timestamp += frameDuration
                    try muxer.write(packet, stream: 0)
                }
                try send(try Packet(bytes: tagFrame))
                for frame in start.head { try send(try Packet(bytes: frame)) }
                try forEachPacket(source, index: index, from: start.first, through: lastCopied, cancellation: cancellation) { packet in
                    if packet.withBytes({ MPEGAudioFrame(bytes: $0) }) != nil { try send(packet) }
                }
                for frame in tail { try send(try Packet(bytes: frame)) }
                try muxer.finish()
            }
            try insertComment(comment, into: destination.temporaryURL, room: room)
        } catch {
            destination.discard()
            throw error
        }
        // Keep the file only if it decodes to exactly the frames asked for (and, with fades, to
        // the input's samples outside them).
        let mismatch: String?
        if let exact {
            mismatch = try FadedCutCheck.mismatch(destination.temporaryURL, input: input, range: range, exact: exact,
                                                  cancellation: cancellation)
        } else {
            mismatch = try AudioFileSource.decodedFrames(of: destination.temporaryURL, cancellation: cancellation) == Int64(range.count)
                ? nil : "the file written does not decode to the cut's length"
        }
        if let mismatch {
            destination.discard()
            return .refused(mismatch)
        }
        try destination.commit()
        let copiedFrames = frames - start.head.count - tail.count
        return .written(Written(frames: Int64(range.count), copiedFrames: copiedFrames, reservoirBytes: start.reservoirBytes,
                                delay: delay, padding: padding, reencodedFrames: (start.reencoded, tail.count),
                                copiedShare: Double(copiedBytes) / Double(max(1, sizes.reduce(0, +)))))
    }

    /// Calls `body` with each packet `first...last` of the stream, read in order from the file.
    private static func forEachPacket(_ source: AudioInput, index: PacketIndex, from first: Int, through last: Int,
                                      cancellation: CancellationFlag, _ body: (Packet) throws -> Void) throws {
        let entries = index.entries
        let packet = try mappingFFmpegErrors(path: source.path) { try Packet() }
        let reader = PacketReader(demuxer: source.demuxer, streamIndex: source.streamIndex, endsOnReadError: false)
        try mappingFFmpegErrors(path: source.path) { try source.demuxer.seek(toByte: entries[first].position) }
        var next = first
        while next <= last, try mappingFFmpegErrors(path: source.path, { try reader.next(into: packet) }) {
            if cancellation.isCancelled { throw CancellationError() }
            guard let position = packet.filePosition, position >= entries[next].position else { continue }
            guard position == entries[next].position else {
                throw ReverseAudioError.input(.decodingFailed(path: source.path, reason: "the frames moved while copying them"))
            }
            try body(packet)
            next += 1
        }
        guard next > last else {
            throw ReverseAudioError.input(.decodingFailed(path: source.path, reason: "the file ended while copying its frames"))
        }
    }

    /// The first four bytes of `bytes` as a big-endian word.
    private static func word(_ bytes: [UInt8]) -> UInt32 {
        bytes.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    /// The encoder named in the tag: the input's own (LAME's "LAME3.100", FFmpeg's "Lavc59.37"),
    /// as FFmpeg's demuxer read it from the input's tags, when it is one FFmpeg's demuxer honours
    /// a delay from; otherwise "Lavf", as libavformat's own MP3 muxer names itself.
    private static func encoderName(_ source: AudioInput) -> String {
        let stated = source.demuxer.tags(stream: source.streamIndex).first { $0.key.lowercased() == "encoder" }?.value ?? ""
        return ["LAME", "Lavf", "Lavc"].contains(String(stated.prefix(4))) ? String(stated.prefix(9)) : "Lavf"
    }

    /// Writes `comment` (an ID3v2 frame) into the zero padding at the end of the ID3v2 tag that
    /// opens `file`, where the muxer left `room` bytes for it.
    private static func insertComment(_ comment: [UInt8], into file: URL, room: Int) throws {
        let handle = try FileHandle(forUpdating: file)
        defer { try? handle.close() }
        let head = [UInt8](try handle.read(upToCount: 10) ?? Data())
        guard head.count == 10, head[0] == 0x49, head[1] == 0x44, head[2] == 0x33 else { return }   // "ID3"
        let size = head[6...9].reduce(0) { $0 << 7 | Int($1 & 0x7F) }
        let start = 10 + size - room
        guard start >= 10, comment.count <= room else { return }
        try handle.seek(toOffset: UInt64(start))
        let padding = [UInt8](try handle.read(upToCount: room) ?? Data())
        guard padding.count == room, padding.allSatisfy({ $0 == 0 }) else { return }
        try handle.seek(toOffset: UInt64(start))
        try handle.write(contentsOf: Data(comment))
    }
}
