import ReverseAudioCore
/// One chunk of decoded frames: chunk `index` of a ``ChunkCache``, frames
/// `index × chunkFrames ..< index × chunkFrames + frameCount` of the continuous forward decode.
///
/// Filled once by the thread that decodes it, then published by the cache and never changed:
/// any thread may read ``bytes`` of a chunk it got from the cache.
final class DecodedChunk: @unchecked Sendable {
    // @unchecked: `storage` and `filledFrames` change only before the cache publishes the chunk
    // (under its decoding lock); afterwards the chunk is read-only.
    let index: Int64
    let bytesPerFrame: Int
    /// The frames this chunk holds when full.
    private(set) var frameCount: Int
    private let storage: UnsafeMutableRawBufferPointer
    private(set) var filledFrames = 0

    init(index: Int64, frameCount: Int, bytesPerFrame: Int) {
        self.index = index
        self.frameCount = frameCount
        self.bytesPerFrame = bytesPerFrame
        storage = .allocate(byteCount: max(frameCount * bytesPerFrame, 1), alignment: 16)
    }

    deinit { storage.deallocate() }

    /// The frames, interleaved.
    var bytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: storage[0..<(filledFrames * bytesPerFrame)])
    }

    var isFull: Bool { filledFrames == frameCount }

    /// Appends as many whole frames of `source` as fit. - Returns: the bytes taken.
    func append(_ source: UnsafeRawBufferPointer) -> Int {
        let frames = min(source.count / bytesPerFrame, frameCount - filledFrames)
        guard frames > 0, let from = source.baseAddress, let to = storage.baseAddress else { return 0 }
        (to + filledFrames * bytesPerFrame).copyMemory(from: from, byteCount: frames * bytesPerFrame)
        filledFrames += frames
        return frames * bytesPerFrame
    }

    /// Ends the chunk at the frames filled so far (the file ended inside it).
    func truncate() {
        frameCount = filledFrames
    }
}
