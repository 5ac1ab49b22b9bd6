import Foundation

/// Finds MPEG audio layer III frames by their headers alone, without FFmpeg's demuxer: each
/// header gives the frame's length, so the next header is found by a jump. Reading a packet
/// through libavformat costs an allocation, a parser pass and a copy per frame; this reads the
/// file in large blocks and only looks at four bytes per frame.
///
/// It only continues a stream FFmpeg has already started reading: frames must have the version,
/// layer and sample rate of the frame at the start, and it stops at anything else (junk, a tag,
/// a free-format frame) and well before the end of the file, where the demuxer's gapless
/// trimming and trailing tags matter. What it finds is exactly what FFmpeg's MP3 parser splits
/// the stream into, as long as the frames follow one another.
struct MP3FrameScanner {
    /// A frame's place in the file.
    struct Frame {
        let position: Int64
        let size: Int
    }

    /// Bytes left unscanned at the end of the file (tags, and the frames the demuxer trims).
    static let tailMargin: Int64 = 64 << 10

    private let handle: FileHandle
    private let fileSize: Int64
    /// The header bits every frame must share: sync, version, layer and sample rate.
    private let fixedMask: UInt32 = 0xFFFE_0C00
    private let fixedBits: UInt32
    private var buffer = [UInt8]()
    private var bufferStart: Int64 = 0
    /// Where the next frame starts.
    private(set) var position: Int64

    /// A scanner of the frames after the one at `position` in `url`; nil when that is not a
    /// layer III frame header.
    init?(url: URL, frameAt position: Int64) {
        guard let handle = try? FileHandle(forReadingFrom: url), let size = try? handle.seekToEnd() else { return nil }
        self.handle = handle
        fileSize = Int64(size)
        self.position = position
        bufferStart = position
        guard let header = try? Self.read(handle, at: position, count: 4), header.count == 4 else { return nil }
        let bits = header.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard Self.frameLength(bits) != nil else { return nil }
        fixedBits = bits & fixedMask
    }

    /// The frame at ``position``, moving past it; nil at anything that is not the next frame of
    /// the stream, or near the end of the file.
    mutating func next() -> Frame? {
        guard position + Self.tailMargin <= fileSize, let bits = header(at: position), bits & fixedMask == fixedBits,
              let length = Self.frameLength(bits) else { return nil }
        let frame = Frame(position: position, size: length)
        position += Int64(length)
        return frame
    }

    /// The four header bytes at `offset`, from the block in memory (read on when needed).
    private mutating func header(at offset: Int64) -> UInt32? {
        if offset < bufferStart || offset + 4 > bufferStart + Int64(buffer.count) {
            guard let block = try? Self.read(handle, at: offset, count: 1 << 20), block.count >= 4 else { return nil }
            buffer = block
            bufferStart = offset
        }
        let index = Int(offset - bufferStart)
        return buffer[index..<(index + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    /// The length in bytes of the layer III frame whose header is `bits`, or nil when it is not one
    /// (or is free-format, whose length the header does not give).
    static func frameLength(_ bits: UInt32) -> Int? {
        let version = (bits >> 19) & 3  // 0: MPEG 2.5, 2: MPEG 2, 3: MPEG 1
        let layer = (bits >> 17) & 3  // 1: layer III
        let bitRateIndex = Int((bits >> 12) & 15)
        let rateIndex = Int((bits >> 10) & 3)
        guard bits >> 21 == 0x7FF, version != 1, layer == 1, bitRateIndex != 0, bitRateIndex != 15, rateIndex != 3 else { return nil }
        let mpeg1 = version == 3
        let kilobits = mpeg1 ? [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320][bitRateIndex]
            : [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160][bitRateIndex]
        let rate = [44100, 48000, 32000][rateIndex] >> (mpeg1 ? 0 : (version == 2 ? 1 : 2))
        let padding = Int((bits >> 9) & 1)
        return (mpeg1 ? 144_000 : 72_000) * kilobits / rate + padding
    }

    private static func read(_ handle: FileHandle, at offset: Int64, count: Int) throws -> [UInt8] {
        try handle.seek(toOffset: UInt64(offset))
        return [UInt8](try handle.read(upToCount: count) ?? Data())
    }
}
