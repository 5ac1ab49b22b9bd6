/// Digital silence: a given number of frames of zero (128 for unsigned 8-bit) in a format.
package final class SilenceSource: PCMSource {
    /// The frames' sample format, rate and channels.
    package let format: PCMFormat
    private let frames: Int64
    private var position: Int64 = 0
    private let zeros: UnsafeMutableRawBufferPointer

    /// `frames` frames of silence in `format`.
    package init(frames: Int64, format: PCMFormat) {
        self.format = format
        self.frames = max(frames, 0)
        zeros = .allocate(byteCount: Self.bufferFrames * max(format.bytesPerFrame, 1), alignment: 16)
        zeros.initializeMemory(as: UInt8.self, repeating: format.silenceByte)
    }

    deinit { zeros.deallocate() }

    private static let bufferFrames = 4096

    /// The frames it holds, exactly.
    package var length: PCMLength { PCMLength(frames: frames, source: .range) }

    /// Lends the next frames, at most `maximumFrames` (see ``PCMSource/read(maximumFrames:)``).
    package func read(maximumFrames: Int) throws -> PCMChunk? {
        let count = Int(min(Int64(min(maximumFrames, Self.bufferFrames)), frames - position))
        guard count > 0 else { return nil }
        defer { position += Int64(count) }
        return PCMChunk(bytes: UnsafeRawBufferPointer(rebasing: zeros[0..<(count * format.bytesPerFrame)]),
                        frameCount: count, position: position)
    }

    /// Moves so the next frame read is `frame` (see ``PCMSource/seek(to:endingAt:)``).
    @discardableResult
    package func seek(to frame: Int64, endingAt end: Int64?) throws -> SeekedTo {
        position = min(max(frame, 0), frames)
        return SeekedTo(required: frame, reached: position)
    }
}
