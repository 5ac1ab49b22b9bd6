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
        default:
            for index in 0..<frames {
                (destination + (frames - 1 - index) * frameBytes).copyMemory(from: source + index * frameBytes, byteCount: frameBytes)
            }
        }
    }

    @inline(__always)
    private static func reverseWords<Word: FixedWidthInteger>(_ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer,
                                                              _ frames: Int, as: Word.Type) {
        let size = MemoryLayout<Word>.size
        for index in 0..<frames {
            let word = source.loadUnaligned(fromByteOffset: index * size, as: Word.self)
            destination.storeBytes(of: word, toByteOffset: (frames - 1 - index) * size, as: Word.self)
        }
    }
}
