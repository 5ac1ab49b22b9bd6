/// Copies interleaved frames into a destination in reverse frame order; the samples inside
/// each frame keep their order (channels are never swapped).
package enum FrameReversal {
    /// Writes `frames` frames of `frameBytes` bytes from `source` to `destination` so that
    /// source frame 0 lands at the last destination frame and source frame `frames - 1` at the first.
    package static func copyReversed(_ source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer,
                             frames: Int, frameBytes: Int) {
        guard frames > 0 else { return }
        // Whole frames of 2, 4 or 8 bytes (mono/stereo s16, stereo f32 or s32) move as one word.
        switch frameBytes {
        case 2: reverseWords(source, destination, frames, as: UInt16.self)
        case 4: reverseWords(source, destination, frames, as: UInt32.self)
        case 8: reverseWords(source, destination, frames, as: UInt64.self)
        // 24-bit mono, stereo and 6 channels, 16-bit 6 channels: two fixed-size moves a frame.
        case 3: reverseFrames(source, destination, frames, UInt16.self, UInt8.self)
        case 6: reverseFrames(source, destination, frames, UInt32.self, UInt16.self)
        case 12: reverseFrames(source, destination, frames, UInt64.self, UInt32.self)
        case 16: reverseFrames(source, destination, frames, UInt64.self, UInt64.self)
        default:
            for index in 0..<frames {
                (destination + (frames - 1 - index) * frameBytes).copyMemory(from: source + index * frameBytes, byteCount: frameBytes)
            }
        }
    }

    /// Frames of `Head` and `Tail` bytes, moved as the two words (not a `memmove` call a frame).
    @inline(__always)
    private static func reverseFrames<Head: FixedWidthInteger, Tail: FixedWidthInteger>(
        _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, _ frames: Int, _: Head.Type, _: Tail.Type
    ) {
        let head = MemoryLayout<Head>.size
        let size = head + MemoryLayout<Tail>.size
        for index in 0..<frames {
            let from = index * size
            let to = (frames - 1 - index) * size
            destination.storeBytes(of: source.loadUnaligned(fromByteOffset: from, as: Head.self), toByteOffset: to, as: Head.self)
            destination.storeBytes(of: source.loadUnaligned(fromByteOffset: from + head, as: Tail.self), toByteOffset: to + head, as: Tail.self)
        }
    }

    /// Eight words at a time through a vector whose lanes are turned round (one permute
    /// instruction), then the rest one by one: 5–8× the word-by-word loop, which the compiler
    /// does not vectorise (the store index runs backwards).
    @inline(__always)
    private static func reverseWords<Word: FixedWidthInteger & SIMDScalar>(_ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer,
                                                                           _ frames: Int, as: Word.Type) {
        let size = MemoryLayout<Word>.size
        var index = 0
        while index + 8 <= frames {
            let words = source.loadUnaligned(fromByteOffset: index * size, as: SIMD8<Word>.self)
            let turned = SIMD8<Word>(words[7], words[6], words[5], words[4], words[3], words[2], words[1], words[0])
            destination.storeBytes(of: turned, toByteOffset: (frames - index - 8) * size, as: SIMD8<Word>.self)
            index += 8
        }
        while index < frames {
            let word = source.loadUnaligned(fromByteOffset: index * size, as: Word.self)
            destination.storeBytes(of: word, toByteOffset: (frames - 1 - index) * size, as: Word.self)
            index += 1
        }
    }
}
