import Foundation

/// Adds Apple's gapless statement (`iTunSMPB`: priming, padding and length) to an MP4 that
/// libavformat's mov muxer has just written, as an iTunes `----` item (mean
/// "com.apple.iTunes", name "iTunSMPB") in `moov/udta/meta/ilst`: players that read that rather
/// than the edit list (and FFmpeg's own mov demuxer, which takes its priming as the start
/// padding) then trim the cut the same way. libavformat writes only the iTunes items it knows.
///
/// The muxer writes the movie box last (no `faststart`), so growing it moves no sample data:
/// the file is rewritten from the movie box on. A file laid out otherwise is left as it is.
enum MP4GaplessItem {
    /// Adds the item to `file`; false when the file's layout is not the one expected (nothing is changed then).
    @discardableResult
    static func add(text: String, to file: URL) throws -> Bool {
        let handle = try FileHandle(forUpdating: file)
        defer { try? handle.close() }
        let length = try handle.seekToEnd()
        // The top-level boxes: find the movie box, which must be the last.
        var position: UInt64 = 0
        var movie: (start: UInt64, size: UInt64)?
        while position + 8 <= length {
            try handle.seek(toOffset: position)
            let head = [UInt8](try handle.read(upToCount: 16) ?? Data())
            guard head.count >= 8 else { return false }
            var size = UInt64(Self.integer(head, 0, 4))
            if size == 1, head.count == 16 { size = UInt64(Self.integer(head, 8, 8)) }
            if size == 0 { size = length - position }
            guard size >= 8, position + size <= length else { return false }
            if Array(head[4..<8]) == Array("moov".utf8) { movie = (position, size) }
            position += size
        }
        guard let movie, movie.start + movie.size == length, movie.size < UInt64(UInt32.max) / 2 else { return false }
        try handle.seek(toOffset: movie.start)
        let moov = [UInt8](try handle.read(upToCount: Int(movie.size)) ?? Data())
        guard moov.count == Int(movie.size), let updated = Self.adding(item: Self.item(text: text), toMovie: moov) else { return false }
        try handle.seek(toOffset: movie.start)
        try handle.write(contentsOf: Data(updated))
        try handle.truncate(atOffset: movie.start + UInt64(updated.count))
        return true
    }

    /// The `----` item holding `text`.
    static func item(text: String) -> [UInt8] {
        box("----", box("mean", [0, 0, 0, 0] + Array("com.apple.iTunes".utf8))
                    + box("name", [0, 0, 0, 0] + Array("iTunSMPB".utf8))
                    + box("data", [0, 0, 0, 1, 0, 0, 0, 0] + Array(text.utf8)))   // type 1: UTF-8 text
    }

    /// The movie box `moov` (whole, header included) with `item` appended to its item list,
    /// creating `udta`, `meta` (with its handler) and `ilst` where missing; nil when the boxes
    /// are not laid out as expected.
    static func adding(item: [UInt8], toMovie moov: [UInt8]) -> [UInt8]? {
        guard let udta = child("udta", of: moov, headerSize: 8) else {
            return grown(moov, appending: box("udta", metaBox(item)))
        }
        let udtaBytes = Array(moov[udta])
        let newUdta: [UInt8]
        if let meta = child("meta", of: udtaBytes, headerSize: 8) {
            let metaBytes = Array(udtaBytes[meta])
            let newMeta: [UInt8]
            if let ilst = child("ilst", of: metaBytes, headerSize: 12) {
                guard let grownList = grown(Array(metaBytes[ilst]), appending: item) else { return nil }
                newMeta = Array(metaBytes[..<ilst.lowerBound]) + grownList + Array(metaBytes[ilst.upperBound...])
            } else {
                guard let withList = grown(metaBytes, appending: box("ilst", item)) else { return nil }
                newMeta = withList
            }
            guard let resized = resized(newMeta) else { return nil }
            newUdta = Array(udtaBytes[..<meta.lowerBound]) + resized + Array(udtaBytes[meta.upperBound...])
        } else {
            newUdta = udtaBytes + metaBox(item)
        }
        guard let resizedUdta = resized(newUdta) else { return nil }
        return resized(Array(moov[..<udta.lowerBound]) + resizedUdta + Array(moov[udta.upperBound...]))
    }

    /// A `meta` box (version 0) with an iTunes metadata handler and a list holding `item`.
    private static func metaBox(_ item: [UInt8]) -> [UInt8] {
        let handler = box("hdlr", [0, 0, 0, 0] + [0, 0, 0, 0] + Array("mdir".utf8) + Array("appl".utf8) + [UInt8](repeating: 0, count: 9))
        return box("meta", [0, 0, 0, 0] + handler + box("ilst", item))
    }

    /// The byte range of the first child box of type `type` in `parent` (a whole box whose
    /// children start after `headerSize` bytes).
    private static func child(_ type: String, of parent: [UInt8], headerSize: Int) -> Range<Int>? {
        var position = headerSize
        while position + 8 <= parent.count {
            let size = integer(parent, position, 4)
            guard size >= 8, position + size <= parent.count else { return nil }
            if Array(parent[(position + 4)..<(position + 8)]) == Array(type.utf8) { return position..<(position + size) }
            position += size
        }
        return nil
    }

    /// `parent` (a whole box with a 32-bit size) with `bytes` appended and its size updated.
    private static func grown(_ parent: [UInt8], appending bytes: [UInt8]) -> [UInt8]? {
        resized(parent + bytes)
    }

    /// `bytes` (a whole box) with its 32-bit size field set to its length.
    private static func resized(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= 8, integer(bytes, 0, 4) != 1, bytes.count < Int(UInt32.max) else { return nil }
        var result = bytes
        result.replaceSubrange(0..<4, with: bigEndian(bytes.count))
        return result
    }

    private static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        bigEndian(8 + payload.count) + Array(type.utf8) + payload
    }

    private static func bigEndian(_ value: Int) -> [UInt8] {
        [UInt8((value >> 24) & 0xFF), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    private static func integer(_ bytes: [UInt8], _ offset: Int, _ width: Int) -> Int {
        bytes[offset..<(offset + width)].reduce(0) { $0 << 8 | Int($1) }
    }
}
