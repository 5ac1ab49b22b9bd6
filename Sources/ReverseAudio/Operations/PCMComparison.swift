import Foundation
import ReverseAudioCore

/// Compares two sources frame by frame, streaming, in flat memory.
enum PCMComparison {
    /// Nil when `a` and `b` deliver the same frames in the same format; otherwise where and how
    /// they first differ, in one sentence.
    static func firstDifference(_ a: any PCMSource, _ b: any PCMSource) throws -> String? {
        guard a.format.holdsSameFrames(as: b.format) else {
            return "formats differ: \(a.format) against \(b.format)"
        }
        let format = a.format
        var left = Cursor(source: a)
        var right = Cursor(source: b)
        var offset: Int64 = 0
        while true {
            let leftHas = try left.fill()
            let rightHas = try right.fill()
            if !leftHas || !rightHas {
                if leftHas == rightHas { return nil }
                return "lengths differ: \(try left.drain()) frames against \(try right.drain())"
            }
            let count = min(left.remaining, right.remaining)
            let first = left.bytes.baseAddress! + left.index
            let second = right.bytes.baseAddress! + right.index
            if memcmp(first, second, count) != 0 {
                let index = (0..<count).first { first.load(fromByteOffset: $0, as: UInt8.self) != second.load(fromByteOffset: $0, as: UInt8.self) }!
                let sample = (offset + Int64(index)) / Int64(format.sampleFormat.bytesPerSample)
                let channels = Int64(format.channelCount)
                return "first difference at frame \(sample / channels), channel \(sample % channels)"
            }
            left.index += count
            right.index += count
            offset += Int64(count)
        }
    }

    /// The bytes of a source's current chunk still to compare.
    private struct Cursor {
        let source: any PCMSource
        var bytes = UnsafeRawBufferPointer(start: nil, count: 0)
        var index = 0
        var ended = false
        /// Frames read so far.
        var frames: Int64 = 0

        var remaining: Int { bytes.count - index }

        /// Makes sure some bytes are waiting; false when the source has ended.
        mutating func fill() throws -> Bool {
            while remaining == 0 {
                if ended { return false }
                guard let chunk = try source.read(maximumFrames: 1 << 16) else {
                    ended = true
                    return false
                }
                bytes = chunk.bytes
                index = 0
                frames += Int64(chunk.frameCount)
            }
            return true
        }

        /// Reads the rest; the source's whole length.
        mutating func drain() throws -> Int64 {
            while let chunk = try source.read(maximumFrames: 1 << 16) { frames += Int64(chunk.frameCount) }
            ended = true
            return frames
        }
    }
}
