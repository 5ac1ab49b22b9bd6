import Foundation

/// Sets, in place, how long the single edit of a one-track MP4 file lasts, with the track's and
/// the movie's durations that equal it (`elst` segment_duration, `tkhd` and `mvhd` duration):
/// for a copy whose packets run on past the edit's end, which libavformat's mov muxer would
/// otherwise take as the edit's end. The three fields keep their size; nothing moves.
enum MP4EditDuration {
    /// Where a box's payload lies in the file.
    private struct Box {
        let type: String
        let payload: Range<UInt64>
    }

    /// Sets the durations to `duration` (in the movie timescale).
    /// - Returns: false when the file is not laid out as expected (one track, one edit), in
    ///   which case nothing was changed.
    static func set(_ duration: Int64, in url: URL) throws -> Bool {
        let handle = try FileHandle(forUpdating: url)
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        guard let moov = try children(of: 0..<size, in: handle).first(where: { $0.type == "moov" }) else { return false }
        let movie = try children(of: moov.payload, in: handle)
        let tracks = movie.filter { $0.type == "trak" }
        guard tracks.count == 1, let mvhd = movie.first(where: { $0.type == "mvhd" }) else { return false }
        let track = try children(of: tracks[0].payload, in: handle)
        guard let tkhd = track.first(where: { $0.type == "tkhd" }),
              let edts = track.first(where: { $0.type == "edts" }),
              let elst = try children(of: edts.payload, in: handle).first(where: { $0.type == "elst" })
        else { return false }
        // Versions 0 and 1 (32- and 64-bit times): the field's offset in the payload and its width.
        let movieHeader = try read(handle, at: mvhd.payload.lowerBound, count: 1)[0] == 1 ? (UInt64(24), 8) : (UInt64(16), 4)
        let trackHeader = try read(handle, at: tkhd.payload.lowerBound, count: 1)[0] == 1 ? (UInt64(28), 8) : (UInt64(20), 4)
        let list = try read(handle, at: elst.payload.lowerBound, count: 8)
        guard list[4...7] == [0, 0, 0, 1] else { return false }  // one entry
        let edit = (UInt64(8), list[0] == 1 ? 8 : 4)
        let fields = [(mvhd, movieHeader), (tkhd, trackHeader), (elst, edit)]
        for (box, (offset, width)) in fields where box.payload.lowerBound + offset + UInt64(width) > box.payload.upperBound {
            return false
        }
        guard width(of: duration) <= 4 || fields.allSatisfy({ $0.1.1 == 8 }) else { return false }
        for (box, (offset, width)) in fields {
            try handle.seek(toOffset: box.payload.lowerBound + offset)
            try handle.write(contentsOf: bigEndian(duration, bytes: width))
        }
        return true
    }

    /// The boxes directly inside `range`.
    private static func children(of range: Range<UInt64>, in handle: FileHandle) throws -> [Box] {
        var boxes: [Box] = []
        var position = range.lowerBound
        while position + 8 <= range.upperBound {
            let header = try read(handle, at: position, count: 16)
            guard header.count >= 8 else { break }
            var size = header[0..<4].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            var headerSize: UInt64 = 8
            if size == 1, header.count == 16 {
                size = header[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                headerSize = 16
            } else if size == 0 {
                size = range.upperBound - position
            }
            guard size >= headerSize, position + size <= range.upperBound else { break }
            let type = String(decoding: header[4..<8], as: UTF8.self)
            boxes.append(Box(type: type, payload: (position + headerSize)..<(position + size)))
            position += size
        }
        return boxes
    }

    private static func read(_ handle: FileHandle, at offset: UInt64, count: Int) throws -> [UInt8] {
        try handle.seek(toOffset: offset)
        return [UInt8](try handle.read(upToCount: count) ?? Data())
    }

    private static func width(of value: Int64) -> Int { value > Int64(UInt32.max) ? 8 : 4 }

    private static func bigEndian(_ value: Int64, bytes: Int) -> Data {
        Data((0..<bytes).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) })
    }
}
