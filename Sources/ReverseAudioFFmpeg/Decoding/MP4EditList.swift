import FFmpeg
import Foundation

/// The edit list (`moov/trak/edts/elst`) of one track of an MP4 file, read from the file's
/// boxes: FFmpeg applies it but does not say what it holds.
///
/// One edit that plays the media from a point (the encoder's priming trimmed), perhaps after an
/// empty edit (a delay), keeps the media's timestamps in step with a continuous decode. Two or
/// more edits that play media splice pieces of it: FFmpeg's mov demuxer hands out the pieces
/// one after the other, each with the packets before it that prime the decoder flagged
/// discard, so a packet's timestamp no longer tells where its samples are in the decode, and a
/// copy of packets cannot restate the splice.
enum MP4EditList {
    /// The edits of track `track` (0 for the first `trak` box: FFmpeg's stream index) of
    /// `demuxer`'s file that play media (`media_time` other than −1); nil when the file's boxes
    /// do not say (not an MP4, no edit list, boxes laid out otherwise). Read through the
    /// demuxer's own open of the file.
    static func mediaEditCount(in demuxer: Demuxer, track: Int) -> Int? {
        guard let movie = topLevelBox("moov", in: demuxer), movie.count > 8 else { return nil }
        var seen = 0
        for trak in children(of: movie, from: 8) where trak.type == "trak" {
            defer { seen += 1 }
            guard seen == track else { continue }
            guard let edts = children(of: movie, in: trak.payload).first(where: { $0.type == "edts" }),
                  let elst = children(of: movie, in: edts.payload).first(where: { $0.type == "elst" }) else { return nil }
            return mediaEdits(movie, elst.payload)
        }
        return nil
    }

    /// A box: its type and where its payload lies in the bytes it was found in.
    private struct Box {
        let type: String
        let payload: Range<Int>
    }

    /// The whole box of type `type` among the file's top-level boxes (its header included).
    private static func topLevelBox(_ type: String, in demuxer: Demuxer) -> [UInt8]? {
        guard let length = demuxer.fileSize else { return nil }
        var position: Int64 = 0
        while position + 8 <= length {
            let head = demuxer.peekBytes(count: 16, at: position)
            guard head.count >= 8 else { return nil }
            var size = Int64(integer(head, 0, 4))
            if size == 1 {
                guard head.count == 16 else { return nil }
                size = Int64(truncatingIfNeeded: UInt64(integer(head, 8, 8)))
            } else if size == 0 {
                size = length - position
            }
            guard size >= 8, position + size <= length else { return nil }
            if String(decoding: head[4..<8], as: UTF8.self) == type {
                // A movie box is a few megabytes at most (an hour's sample tables); past 256 MiB
                // the file is not one this reads.
                guard size < 1 << 28 else { return nil }
                let box = demuxer.peekBytes(count: Int(size), at: position)
                return box.count == Int(size) ? box : nil
            }
            position += size
        }
        return nil
    }

    /// The boxes in `bytes[range]`.
    private static func children(of bytes: [UInt8], in range: Range<Int>) -> [Box] {
        var boxes: [Box] = []
        var position = range.lowerBound
        while position + 8 <= range.upperBound {
            var size = integer(bytes, position, 4)
            var header = 8
            if size == 1, position + 16 <= range.upperBound {
                size = integer(bytes, position + 8, 8)
                header = 16
            } else if size == 0 {
                size = range.upperBound - position
            }
            guard size >= header, position + size <= range.upperBound else { break }
            boxes.append(Box(type: String(decoding: bytes[(position + 4)..<(position + 8)], as: UTF8.self),
                             payload: (position + header)..<(position + size)))
            position += size
        }
        return boxes
    }

    /// The boxes of `bytes` (a whole box) after its header of `headerSize` bytes.
    private static func children(of bytes: [UInt8], from headerSize: Int) -> [Box] {
        children(of: bytes, in: headerSize..<bytes.count)
    }

    /// The entries of the `elst` payload at `range` whose `media_time` is not −1.
    private static func mediaEdits(_ bytes: [UInt8], _ range: Range<Int>) -> Int? {
        guard range.count >= 8 else { return nil }
        let version = bytes[range.lowerBound]
        let count = integer(bytes, range.lowerBound + 4, 4)
        // Version 1: 64-bit segment_duration and media_time; then media_rate (32 bits).
        let (timeOffset, timeWidth, entrySize) = version == 1 ? (8, 8, 20) : (4, 4, 12)
        guard count <= (range.count - 8) / entrySize else { return nil }
        var edits = 0
        for entry in 0..<count {
            let at = range.lowerBound + 8 + entry * entrySize + timeOffset
            let allOnes = (0..<timeWidth).allSatisfy { bytes[at + $0] == 0xFF }
            if !allOnes { edits += 1 }
        }
        return edits
    }

    private static func integer(_ bytes: some RandomAccessCollection<UInt8>, _ offset: Int, _ width: Int) -> Int {
        let start = bytes.index(bytes.startIndex, offsetBy: offset)
        return bytes[start..<bytes.index(start, offsetBy: width)].reduce(0) { $0 << 8 | Int($1) }
    }
}
