import Foundation

/// Decoded audio of one file, by fixed chunks, for reading frames in any order in flat memory,
/// from several threads (the one that plays and the one that decodes ahead).
///
/// Chunk `k` holds output frames `k × chunkFrames ..< (k + 1) × chunkFrames` of the gapless
/// decode, exactly as a continuous decode gives them: a run of chunks is decoded from an exact
/// seek to its first frame (see ``SeekPlan``), or, when it follows the chunk just decoded,
/// simply by decoding on. A bounded number of chunks is kept: those a player said it wants
/// (``setWanted(_:)``) stay, the least recently used others go first, so memory does not depend
/// on the file's length.
///
/// Two locks: `decoding` serialises use of the decoder (one run at a time), `storing` guards
/// the table of chunks and is held only for lookups, so a thread reading a cached chunk never
/// waits for a decode.
final class ChunkCache: @unchecked Sendable {
    // @unchecked: `decoder`, `nextSequential` and `carried` are touched only under `decoding`;
    // `chunks`, `recency` and `wanted` only under `storing`; the rest is immutable.
    let url: URL
    /// The file's description, read once when opening it.
    let info: AudioInfo
    let format: PCMFormat
    /// Frames in the file (what the decode gives).
    let frameCount: Int64
    let chunkFrames: Int
    /// Chunks kept at most.
    let capacity: Int
    /// Set by ``cancel()``: a decode in progress stops with `CancellationError`.
    private let cancellation = CancellationFlag()
    /// Nil only while a fresh decoder replaces the last one (or after that failed).
    private var decoder: PCMDecoder?
    private let sampleFormat: SampleFormat
    private let isLossy: Bool
    /// True once the decoder has decoded anything (a fresh one is made to start again at 0).
    private var decoderUsed = false
    private let decoding = NSLock()
    private let storing = NSLock()
    private var chunks: [Int64: DecodedChunk] = [:]
    private var recency: [Int64] = []
    private var wanted: Set<Int64> = []
    /// The chunk the decoder would give next without seeking, and its first bytes already decoded.
    private var nextSequential: Int64 = 0
    private var carried: [UInt8] = []
    private var seekCount = 0

    /// Bytes a chunk aims at: 64 KiB (16384 stereo s16 frames, 0.37 s at 44.1 kHz).
    static let chunkBytes = 64 * 1024

    /// - Parameters:
    ///   - sampleFormat: the samples' format (Int16 by default).
    ///   - chunkFrames: frames per chunk; nil for about ``chunkBytes`` (4096…16384 frames).
    ///   - capacity: chunks kept.
    init(url: URL, sampleFormat: SampleFormat = .s16, chunkFrames: Int? = nil, capacity: Int = 24) throws {
        self.url = url
        // One open: the frames are counted on the decoder's own source, which is then rewound.
        let flag = cancellation
        let (counted, source) = try FrameCounter.count(try AudioSource(url: url, isCancelled: { flag.isCancelled }),
                                                       isCancelled: { flag.isCancelled })
        info = source.info(frames: counted.prediction?.frames, framesSource: counted.prediction?.source)
        isLossy = source.parameters.isLossy
        guard let frames = info.frames else {
            throw ReverseAudioError.decodingFailed(path: url.displayPath, reason: "its length cannot be known, so it cannot be played backwards")
        }
        guard frames > 0 else {
            throw ReverseAudioError.decodingFailed(path: url.displayPath, reason: "it holds no audio samples to play")
        }
        frameCount = frames
        self.sampleFormat = sampleFormat
        let decoder = try Self.makeDecoder(source: source, sampleFormat: sampleFormat, cancellation: cancellation)
        self.decoder = decoder
        format = decoder.format
        self.chunkFrames = max(1, chunkFrames ?? min(16384, max(4096, Self.chunkBytes / max(format.bytesPerFrame, 1))))
        self.capacity = max(4, capacity)
    }

    /// Index memory FFmpeg may keep (`Demuxer.limitIndexMemory`): reading backwards inserts
    /// every packet's entry at the front of that index, so it must stay small.
    static let indexMemory = 4096

    private static func makeDecoder(source: AudioSource, sampleFormat: SampleFormat,
                                     cancellation: CancellationFlag) throws -> PCMDecoder {
        source.demuxer.limitIndexMemory(to: indexMemory)
        return try PCMDecoder(source: source, channels: .all, sampleFormat: sampleFormat, isCancelled: { cancellation.isCancelled })
    }

    /// Chunks in the file.
    var chunkCount: Int64 { (frameCount + Int64(chunkFrames) - 1) / Int64(chunkFrames) }

    /// The chunk holding `frame`.
    func index(of frame: Int64) -> Int64 { frame / Int64(chunkFrames) }

    /// Chunk `index`, decoding it if it is not cached. A cached chunk is returned at once; a
    /// missing one waits for a decode in progress (which may be bringing it), then decodes.
    /// - Parameter span: when the chunk is missing, also decode the missing chunks before it
    ///   back to the last multiple of `span` (one seek for all: playing backwards needs them
    ///   next). Aligned runs put the file's first chunks in one run from frame 0, decoded by a
    ///   fresh decoder exactly as the continuous decode gives them.
    func chunk(_ index: Int64, span: Int = 1) throws -> DecodedChunk {
        if let found = cached(index) { return found }
        decoding.lock()
        defer { decoding.unlock() }
        if let found = cached(index) { return found }
        let span = Int64(min(max(span, 1), capacity - 2))
        var first = index / span * span
        while first < index && isCached(first) { first += 1 }
        return try decodeRun(first...index)
    }

    /// Decodes chunk `index` unless it is cached (the decode-ahead thread's call).
    func prefetch(_ index: Int64) throws {
        guard index >= 0, index < chunkCount, !isCached(index) else { return }
        decoding.lock()
        defer { decoding.unlock() }
        if isCached(index) { return }
        _ = try decodeRun(index...index)
    }

    /// True when chunk `index` is in memory.
    func isCached(_ index: Int64) -> Bool {
        storing.lock()
        defer { storing.unlock() }
        return chunks[index] != nil
    }

    /// Seeks the decoder made so far (each run of chunks not following the last costs one).
    var seeks: Int {
        decoding.lock()
        defer { decoding.unlock() }
        return seekCount
    }

    /// Chunks to keep whatever their age: where playback is and where it is going.
    func setWanted(_ indices: [Int64]) {
        storing.lock()
        wanted = Set(indices.prefix(capacity - 2))
        storing.unlock()
    }

    /// Stops a decode in progress (and every later one) with `CancellationError`.
    func cancel() { cancellation.cancel() }

    private func cached(_ index: Int64) -> DecodedChunk? {
        storing.lock()
        defer { storing.unlock() }
        guard let found = chunks[index] else { return nil }
        if recency.last != index { touch(index) }
        return found
    }

    /// Decodes chunks `run` in order (the caller holds `decoding`) and returns the last.
    private func decodeRun(_ run: ClosedRange<Int64>) throws -> DecodedChunk {
        let chunkFrames = Int64(self.chunkFrames)
        if run.lowerBound == 0 && decoderUsed && isLossy {
            // A fresh decoder from the start decodes exactly as the continuous decode does, even
            // where a seek cannot (AAC's noise substitution draws from the decoder's history).
            // The old one goes first: two open at once would hold two indexes.
            decoder = nil
            let flag = cancellation
            decoder = try Self.makeDecoder(source: try AudioSource(url: url, isCancelled: { flag.isCancelled }),
                                           sampleFormat: sampleFormat, cancellation: cancellation)
            carried.removeAll(keepingCapacity: true)
            nextSequential = 0
        }
        guard let decoder else {
            throw ReverseAudioError.decodingFailed(path: url.displayPath, reason: "it could not be opened again")
        }
        if run.lowerBound != nextSequential {
            try decoder.limit(to: (run.lowerBound * chunkFrames)..<frameCount)
            carried.removeAll(keepingCapacity: true)
            seekCount += 1
        }
        decoderUsed = true
        // Until the run is complete, nothing is sequential: an error leaves the decoder anywhere.
        nextSequential = -1
        let bytesPerFrame = format.bytesPerFrame
        let silence: UInt8 = format.sampleFormat == .u8 ? 0x80 : 0
        func makeChunk(_ index: Int64) -> DecodedChunk {
            let frames = Int(min(chunkFrames, frameCount - index * chunkFrames))
            return DecodedChunk(index: index, frameCount: frames, bytesPerFrame: bytesPerFrame)
        }
        var index = run.lowerBound
        var current = makeChunk(index)
        var finished: DecodedChunk?
        carried.withUnsafeBytes { _ = current.append($0) }
        carried.removeAll(keepingCapacity: true)
        while finished == nil {
            if current.isFull {
                store(current)
                if index == run.upperBound || (index + 1) * chunkFrames >= frameCount {
                    finished = current
                } else {
                    index += 1
                    current = makeChunk(index)
                }
                continue
            }
            let more = try decoder.readChunk { raw, _ in
                var offset = 0
                while offset < raw.count {
                    if current.isFull {
                        guard index < run.upperBound, (index + 1) * chunkFrames < frameCount else {
                            // Decoded past the run: the start of the next chunk.
                            carried.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[offset...]))
                            return
                        }
                        store(current)
                        index += 1
                        current = makeChunk(index)
                    }
                    offset += current.append(UnsafeRawBufferPointer(rebasing: raw[offset...]))
                }
            }
            if !more {
                // The file decodes shorter than it said: what is missing plays as silence.
                current.padWithSilence(silence)
            }
        }
        nextSequential = index + 1
        return finished!
    }

    private func store(_ chunk: DecodedChunk) {
        storing.lock()
        defer { storing.unlock() }
        chunks[chunk.index] = chunk
        touch(chunk.index)
        while chunks.count > capacity {
            let victim = recency.first { !wanted.contains($0) && $0 != chunk.index } ?? recency.first { $0 != chunk.index }
            guard let victim else { break }
            chunks[victim] = nil
            recency.removeAll { $0 == victim }
        }
    }

    private func touch(_ index: Int64) {
        recency.removeAll { $0 == index }
        recency.append(index)
    }
}
