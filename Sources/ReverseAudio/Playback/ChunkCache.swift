import Foundation

/// Decoded audio of one file, by fixed chunks, for reading frames in any order in flat memory.
///
/// Chunk `k` holds output frames `k × chunkFrames ..< (k + 1) × chunkFrames` of the gapless
/// decode, exactly as a continuous decode gives them (each chunk is decoded from an exact seek,
/// or, when it follows the one just decoded, simply by decoding on). A few chunks are kept,
/// the least recently used dropped: memory does not depend on the file's length.
final class ChunkCache {
    let url: URL
    let format: PCMFormat
    /// Frames in the file (what the decode gives).
    let frameCount: Int64
    let chunkFrames: Int
    private let decoder: PCMDecoder
    private let capacity: Int
    private var chunks: [Int64: [UInt8]] = [:]
    private var recency: [Int64] = []
    /// The chunk the decoder would give next without seeking, and its first bytes already decoded.
    private var nextSequential: Int64 = 0
    private var carried: [UInt8] = []

    /// - Parameters:
    ///   - sampleFormat: the samples' format (Int16 by default).
    ///   - chunkFrames: frames per chunk.
    ///   - capacity: chunks kept.
    init(url: URL, sampleFormat: SampleFormat = .s16, chunkFrames: Int = 16384, capacity: Int = 6,
         isCancelled: @escaping @Sendable () -> Bool = { false }) throws {
        self.url = url
        let info = try AudioInfo.read(from: url)
        guard let frames = info.frames else {
            throw ReverseAudioError.decodingFailed(path: url.displayPath, reason: "its length cannot be known, so it cannot be played backwards")
        }
        frameCount = frames
        decoder = try PCMDecoder(url: url, sampleFormat: sampleFormat, isCancelled: isCancelled)
        format = decoder.format
        self.chunkFrames = chunkFrames
        self.capacity = max(2, capacity)
    }

    /// The bytes of chunk `index` (shorter at the end of the file).
    func chunk(_ index: Int64) throws -> [UInt8] {
        if let bytes = chunks[index] {
            touch(index)
            return bytes
        }
        let start = index * Int64(chunkFrames)
        let end = min(start + Int64(chunkFrames), frameCount)
        guard start < end else { return [] }
        if index != nextSequential {
            try decoder.limit(to: start..<frameCount)
            carried = []
        }
        let needed = Int(end - start) * format.bytesPerFrame
        var bytes = carried
        bytes.reserveCapacity(needed)
        while bytes.count < needed, try decoder.readChunk({ raw, _ in bytes.append(contentsOf: raw) }) {}
        // What was decoded past this chunk starts the next one.
        if bytes.count > needed {
            carried = Array(bytes[needed...])
            bytes.removeSubrange(needed...)
        } else {
            carried = []
        }
        nextSequential = index + 1
        store(index, bytes)
        return bytes
    }

    private func store(_ index: Int64, _ bytes: [UInt8]) {
        chunks[index] = bytes
        touch(index)
        while recency.count > capacity {
            chunks[recency.removeFirst()] = nil
        }
    }

    private func touch(_ index: Int64) {
        recency.removeAll { $0 == index }
        recency.append(index)
    }
}
