import FFmpeg
import Foundation
import ReverseAudioCore

/// A cut of an MP3 file without re-encoding: the frames from enough before the cut for the
/// decoder to converge (the bit reservoir's reach, as for a seek) through the frame holding its
/// last sample are copied byte for byte, behind a LAME tag (written by libavformat's MP3 muxer)
/// whose encoder delay and padding make a gapless decoder start exactly at the cut and stop
/// exactly at its end.
///
/// The tag's delay field has 12 bits: a cut whose pre-roll and offset need more than 4095
/// samples cannot be stated, and ``cut(_:range:to:overwrite:cancellation:)`` returns nil (the
/// caller re-encodes).
package enum PacketCopyCut {
    /// The MP3 decoder's own delay, which the LAME tag's delay field leaves out.
    static let decoderDelay = 529
    static let maximumField = 4095
    /// Frames from the first copied one whose data can lie in the bit reservoir before it.
    static let reservoirFrames = 12

    /// Copies frames `range` (output frames of `input`'s gapless decode) into `output`.
    /// - Returns: the frames the output decodes to, or nil when the tag cannot state the cut.
    package static func cut(_ input: URL, range: Range<Int64>, to output: URL, overwrite: Bool,
                            cancellation: CancellationFlag) throws -> Int64? {
        let source = try AudioInput(url: input, isCancelled: cancellation.check)
        guard source.traits.cutMethod == .mp3Frames, source.isSeekable else { return nil }
        let frameSize = source.parameters.codecFrameSize > 0 ? source.parameters.codecFrameSize : max(source.decoder.frameSize, 1)
        let index = PacketIndex(for: source)
        let packet = try mappingFFmpegErrors(path: input.displayPath) { try Packet() }
        let reader = PacketReader(demuxer: source.demuxer, streamIndex: source.streamIndex, endsOnReadError: false)
        // Read in order from the start, through the demuxer: its end trimming (the LAME tag's
        // padding) is only right that way.
        try index.extend(through: range.upperBound, reader: reader, path: input.displayPath, isCancelled: cancellation.check)
        if range.lowerBound >= index.indexedFrames || range.upperBound > index.indexedFrames {
            _ = try range.within(length: index.indexedFrames, sampleRate: source.parameters.sampleRate, path: input.displayPath)
        }
        guard let last = index.packet(containing: range.upperBound - 1) else { return nil }
        guard let holding = index.packet(containing: range.lowerBound) else { return nil }
        var first = source.traits.restartPacket(holding: holding) { index.entries[$0].size }
        // The decoder drops `skip` samples: at least its own delay, and what comes before the cut.
        var skip = Int(range.lowerBound - index.entries[first].rawStart)
        while skip < decoderDelay && first > 0 {
            first -= 1
            skip = Int(range.lowerBound - index.entries[first].rawStart)
        }
        // A player counts the samples a fresh decoder gives from the first copied frame; a frame
        // whose reservoir is missing gives none, which would move the cut. Start where every
        // copied frame decodes (checked with libavcodec itself), as long as the tag can say it.
        // Only the first frames can reach back before the copy (511 bytes: 8 frames at the
        // lowest bit rate); the decode of the result checks the rest.
        while skip - decoderDelay <= maximumField,
              try !decodesEveryFrame(source, index: index, from: first, through: min(last, first + Self.reservoirFrames),
                                     frameSize: frameSize) {
            guard first > 0 else { return nil }
            first -= 1
            skip = Int(range.lowerBound - index.entries[first].rawStart)
        }
        let frames = Int64(last - first + 1) * Int64(frameSize)
        let padding = Int(frames - Int64(skip - decoderDelay) - Int64(range.count))
        guard skip >= decoderDelay, skip - decoderDelay <= maximumField, (decoderDelay...maximumField).contains(padding) else { return nil }

        let destination = try OutputFile(url: output, overwrite: overwrite, inputs: [input], requiresSeekableFile: true)
        do {
            try mappingFFmpegErrors(path: output.displayPath) {
                let muxer = try Muxer(path: destination.temporaryURL.path, formatName: EncoderChoice.muxer(for: .mp3))
                try muxer.addStream(copying: source.demuxer, stream: source.streamIndex,
                                    initialPadding: skip, trailingPadding: padding)
                muxer.setMetadata(source.tags)
                try muxer.writeHeader()
                try source.demuxer.seek(toByte: index.entries[first].position)
                var copied = 0
                while copied < last - first + 1, try reader.next(into: packet) {
                    if cancellation.isCancelled { throw CancellationError() }
                    guard packet.filePosition == index.entries[first + copied].position else {
                        throw ReverseAudioError.decodingFailed(path: input.displayPath, reason: "the frames moved while copying them")
                    }
                    // libavformat's MP3 muxer takes the LAME tag's delay from the first packet's
                    // skip-samples side data and its padding from the last packet's.
                    let isFirst = copied == 0
                    let isLast = first + copied == last
                    try packet.setSkipSamples(start: isFirst ? skip : 0, end: isLast ? padding - decoderDelay : 0)
                    try muxer.write(packet, stream: 0)
                    copied += 1
                }
                try muxer.finish()
            }
        } catch {
            destination.discard()
            throw error
        }
        // The tag's arithmetic holds for every cut we know of, but a very short one can meet a
        // demuxer that does not apply it: decode what was written and keep it only if it holds
        // exactly the frames asked for.
        guard try AudioFileSource.decodedFrames(of: destination.temporaryURL, cancellation: cancellation) == Int64(range.count) else {
            destination.discard()
            return nil
        }
        try destination.commit()
        return Int64(range.count)
    }

    /// True when a fresh decoder fed packets `first...last` (without their gapless trimming)
    /// gives a whole frame for each.
    private static func decodesEveryFrame(_ source: AudioInput, index: PacketIndex, from first: Int, through last: Int,
                                          frameSize: Int) throws -> Bool {
        try mappingFFmpegErrors(path: source.path) {
            try source.demuxer.seek(toByte: index.entries[first].position)
            let reader = PacketReader(demuxer: source.demuxer, streamIndex: source.streamIndex, endsOnReadError: false)
            var packets: [Packet] = []
            while packets.count < last - first + 1 {
                let packet = try Packet()
                guard try reader.next(into: packet) else { break }
                try packet.setSkipSamples(start: 0, end: 0)
                packets.append(packet)
            }
            return try FrameDecoder.samples(decoding: packets, demuxer: source.demuxer, streamIndex: source.streamIndex)
                .reduce(0, +) == (last - first + 1) * frameSize
        }
    }
}
