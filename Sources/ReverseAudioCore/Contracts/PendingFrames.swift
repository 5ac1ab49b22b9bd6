/// Frames a source made (decoded, converted) and has not lent yet: lent a chunk at a time from
/// the source's own buffer, which stays valid until the source makes more.
package struct PendingFrames {
    private var bytes: UnsafeRawPointer?
    private var frames = 0

    package init() {}

    /// True when nothing waits.
    package var isEmpty: Bool { frames == 0 }

    /// `frames` frames at `bytes` wait.
    package mutating func set(_ bytes: UnsafeRawPointer, frames: Int) {
        self.bytes = bytes
        self.frames = frames
    }

    /// Nothing waits any more.
    package mutating func clear() {
        bytes = nil
        frames = 0
    }

    /// Lends at most `maximum` of the waiting frames, positioned at `position`; nil when none wait.
    package mutating func take(_ maximum: Int, frameBytes: Int, position: Int64) -> PCMChunk? {
        guard frames > 0, let start = bytes else { return nil }
        let count = min(maximum, frames)
        frames -= count
        bytes = start + count * frameBytes
        return PCMChunk(bytes: UnsafeRawBufferPointer(start: start, count: count * frameBytes), frameCount: count, position: position)
    }
}
