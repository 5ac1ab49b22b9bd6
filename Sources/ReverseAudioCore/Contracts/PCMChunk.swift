/// Frames a ``PCMSource`` lends: interleaved samples in its ``PCMSource/format``, valid until
/// the source's next read or seek.
public struct PCMChunk {
    /// The interleaved samples: ``frameCount`` × the format's bytes per frame.
    public let bytes: UnsafeRawBufferPointer
    /// Frames in the chunk (at least one).
    public let frameCount: Int
    /// The index of the chunk's first frame on its source's timeline.
    public let position: Int64

    /// A chunk over `bytes`, which must hold `frameCount` whole frames of its source's format:
    /// what a source of your own lends from a buffer it keeps until its next read or seek.
    public init(bytes: UnsafeRawBufferPointer, frameCount: Int, position: Int64) {
        self.bytes = bytes
        self.frameCount = frameCount
        self.position = position
    }

    /// The interleaved samples as `type`, which must be the format's: `UInt8` for u8, `Int16`
    /// for s16, `Int32` for s24 and s32, `Float` for f32, `Double` for f64.
    public func samples<Sample>(as type: Sample.Type) -> UnsafeBufferPointer<Sample> {
        bytes.bindMemory(to: Sample.self)
    }

    /// The first `frames` frames of this chunk (the frames a caller may still take).
    package func prefix(frames: Int, frameBytes: Int) -> PCMChunk {
        guard frames < frameCount else { return self }
        return PCMChunk(bytes: UnsafeRawBufferPointer(rebasing: bytes[0..<(frames * frameBytes)]), frameCount: frames,
                        position: position)
    }

    /// This chunk without its first `frames` frames.
    package func dropping(frames: Int, frameBytes: Int) -> PCMChunk {
        PCMChunk(bytes: UnsafeRawBufferPointer(rebasing: bytes[(frames * frameBytes)...]), frameCount: frameCount - frames,
                 position: position + Int64(frames))
    }

    /// The same frames on another timeline.
    package func moved(to position: Int64) -> PCMChunk {
        PCMChunk(bytes: bytes, frameCount: frameCount, position: position)
    }
}
