import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

/// Decoded audio of one file, by fixed chunks, for reading frames in any order in flat memory,
/// from several threads (the one that plays and the one that decodes ahead).
///
/// Chunk `k` holds frames `k × chunkFrames ..< (k + 1) × chunkFrames` of the file's decode
/// (``AudioFileSource``), exactly as a continuous decode gives them: a run of chunks is decoded
/// from an exact seek to its first frame, or, when it follows the chunk just decoded, simply by
/// decoding on. Which runs, and which chunks stay, is the ``schedule``'s decision; a bounded
/// number of chunks is kept, so memory does not depend on the file's length. A decode that ends
/// before the length the file stated shortens ``frameCount`` (and the file's warnings say so).
///
/// Two locks: `decoding` serialises use of the decoder (one run at a time), `storing` guards
/// the table of chunks and is held only for lookups, so a thread reading a cached chunk never
/// waits for a decode.
final class ChunkCache: @unchecked Sendable {
    // @unchecked: `source`, `nextSequential`, `carried` and `seekCount` are touched only under
    // `decoding`; `chunks`, `recency`, `wanted`, `knownFrames` and `schedule` only under
    // `storing`; the rest is immutable.
    /// The file played; nil for a caller's source.
    let url: URL?
    /// What is played, for messages.
    let name: String
    /// The file's description, read once when opening it (a caller's source: its format).
    let info: AudioInfo
    let format: PCMFormat
    let chunkFrames: Int
    /// Set by ``cancel()``: a decode in progress stops with `CancellationError`.
    private let cancellation: CancellationFlag
    private let source: any PCMSource
    /// The file's decode, at the root of ``source``; nil for a caller's source.
    private let file: AudioFileSource?
    private let decoding = NSLock()
    private let storing = NSLock()
    private var chunks: [Int64: DecodedChunk] = [:]
    private var recency: [Int64] = []
    private var wanted: Set<Int64> = []
    private var knownFrames: Int64
    private var currentSchedule: PlaybackSchedule
    /// The chunk the decoder would give next without seeking, and its first bytes already decoded.
    private var nextSequential: Int64 = 0
    private var carried: [UInt8] = []
    private var seekCount = 0
    /// The capacity asked for at creation, if any (else each pacing's own).
    private let requestedCapacity: Int?

    /// Index memory FFmpeg may keep: reading backwards inserts every packet's entry at the
    /// front of that index, so it must stay small.
    static let indexMemory = 4096

    /// Bytes a chunk aims at: 64 KiB (16384 stereo s16 frames, 0.37 s at 44.1 kHz).
    static let chunkBytes = 64 * 1024

    /// - Parameters:
    ///   - sampleFormat: the samples' format (Int16 by default).
    ///   - chunkFrames: frames per chunk; nil for about ``chunkBytes`` (4096…16384 frames).
    ///   - capacity: chunks kept; nil for ``PlaybackSchedule/defaultCapacity``, or, rendering as
    ///     fast as possible a file whose seeks search it (FLAC without a seek table),
    ///     ``PlaybackSchedule/renderingCapacity``: fewer seeks, 6 MiB more.
    ///   - facts: what an earlier open of the file learnt (``StreamFacts``): its length and
    ///     seek index are taken from them instead of reading the file for them again.
    convenience init(url: URL, sampleFormat: SampleFormat = .s16, chunkFrames: Int? = nil, capacity: Int? = nil,
         facts: StreamFacts? = nil) throws {
        let cancellation = CancellationFlag()
        let plan = OpenPlan.playback(indexBytes: Self.indexMemory)
        let file: AudioFileSource
        if let facts {
            file = try AudioFileSource(url: url, facts: facts, cancellation: cancellation, plan: plan)
        } else {
            file = try AudioFileSource(url: url, cancellation: cancellation, plan: plan)
        }
        // The chain every front end reads a file through: here, the samples in `sampleFormat`.
        let source = try AudioChain(file: file, recipe: ChainRecipe(sampleFormat: sampleFormat)).source
        let frames = try file.resolveLength().frames
        try self.init(source: source, file: file, url: url, name: url.displayPath, info: facts?.info ?? file.info, frames: frames,
                      unknownReason: file.lengthUnknownReason, cancellation: cancellation, chunkFrames: chunkFrames,
                      capacity: capacity, seeksBySearching: file.seeksBySearching)
    }

    /// A cache of a caller's `source`, in `sampleFormat`, whose length must be known.
    convenience init(source: any PCMSource, name: String, sampleFormat: SampleFormat = .s16) throws {
        let cancellation = CancellationFlag()
        let scheduler = Scheduler(threads: 1, cancellation: cancellation)
        let chained = try AudioChain.job(over: source, name: name, recipe: ChainRecipe(sampleFormat: sampleFormat), scheduler: scheduler)
        let length = source.length
        try self.init(source: chained.input.source, file: nil, url: nil, name: name,
                      info: AudioInfo(source: name, format: source.format, frames: length.frames, framesSource: length.source),
                      frames: length.frames, unknownReason: nil, cancellation: cancellation, chunkFrames: nil, capacity: nil,
                      seeksBySearching: false)
    }

    private init(source: any PCMSource, file: AudioFileSource?, url: URL?, name: String, info: AudioInfo, frames: Int64?,
                 unknownReason: String?, cancellation: CancellationFlag, chunkFrames: Int?, capacity: Int?,
                 seeksBySearching: Bool) throws {
        guard let frames else {
            throw ReverseAudioError.input(.lengthUnknown(path: name, reason: unknownReason ?? "playing it backwards needs it"))
        }
        guard frames > 0 else {
            throw ReverseAudioError.input(.decodingFailed(path: name, reason: "it holds no audio samples to play"))
        }
        self.source = source
        self.file = file
        self.url = url
        self.name = name
        self.info = info
        self.cancellation = cancellation
        requestedCapacity = capacity
        format = source.format
        knownFrames = frames
        self.chunkFrames = max(1, chunkFrames ?? min(16384, max(4096, Self.chunkBytes / max(format.bytesPerFrame, 1))))
        currentSchedule = PlaybackSchedule(chunkFrames: self.chunkFrames, frameCount: frames, pacing: .asFastAsPossible,
                                           capacity: capacity ?? (seeksBySearching ? PlaybackSchedule.renderingCapacity
                                                                                   : PlaybackSchedule.defaultCapacity))
    }

    /// Frames in the file: what the decode gives (shortened if a decode ended early).
    var frameCount: Int64 { locked(storing) { knownFrames } }

    /// What decodes next and what is kept.
    var schedule: PlaybackSchedule { locked(storing) { currentSchedule } }

    /// Paces the schedule for a device playing in real time (set before playing starts).
    func useRealTimePacing() {
        locked(storing) {
            currentSchedule = PlaybackSchedule(chunkFrames: chunkFrames, frameCount: knownFrames, pacing: .realTime,
                                               capacity: requestedCapacity ?? PlaybackSchedule.defaultCapacity)
        }
    }

    /// Problems met decoding the file that did not stop it.
    var warnings: [ReverseAudioWarning] { locked(decoding) { file?.warnings ?? [] } }

    /// The chunk holding `frame`.
    func index(of frame: Int64) -> Int64 { frame / Int64(chunkFrames) }

    /// Chunk `index`, decoding it if it is not cached: a cached chunk is returned at once; a
    /// missing one waits for a decode in progress (which may be bringing it), then decodes the
    /// run the schedule says a miss decodes. Nil when the file ended before `index`.
    func chunk(_ index: Int64, direction: PlaybackDirection) throws -> DecodedChunk? {
        if let found = cached(index) { return found }
        decoding.lock()
        defer { decoding.unlock() }
        if let found = cached(index) { return found }
        guard index * Int64(chunkFrames) < frameCount else { return nil }
        return try decodeRun(schedule.runOnMiss(index, direction: direction, isCached: isCached))
    }

    /// Decodes chunk `index` unless it is cached (the decode-ahead thread's call).
    func prefetch(_ index: Int64) throws {
        guard index >= 0, index * Int64(chunkFrames) < frameCount, !isCached(index) else { return }
        decoding.lock()
        defer { decoding.unlock() }
        if isCached(index) { return }
        _ = try decodeRun(index...index)
    }

    /// True when chunk `index` is in memory.
    func isCached(_ index: Int64) -> Bool {
        locked(storing) { chunks[index] != nil }
    }

    /// Seeks the decoder made so far (each run of chunks not following the last costs one).
    var seeks: Int { locked(decoding) { seekCount } }

    /// Chunks to keep whatever their age: where playback is and where it is going.
    func setWanted(_ indices: Set<Int64>) {
        locked(storing) { wanted = indices }
    }

    /// Stops a decode in progress (and every later one) with `CancellationError`.
    func cancel() { cancellation.cancel() }

    private func cached(_ index: Int64) -> DecodedChunk? {
        locked(storing) {
            guard let found = chunks[index] else { return nil }
            if recency.last != index { touch(index) }
            return found
        }
    }

    /// Decodes chunks `run` in order (the caller holds `decoding`) and returns the last one
    /// the file holds.
    private func decodeRun(_ run: ClosedRange<Int64>) throws -> DecodedChunk? {
        let chunkFrames = Int64(self.chunkFrames)
        if run.lowerBound != nextSequential {
            try source.seek(to: run.lowerBound * chunkFrames, endingAt: frameCount)
            carried.removeAll(keepingCapacity: true)
            seekCount += 1
        }
        // Until the run is complete, nothing is sequential: an error leaves the decoder anywhere.
        nextSequential = -1
        let bytesPerFrame = format.bytesPerFrame
        func makeChunk(_ index: Int64) -> DecodedChunk {
            DecodedChunk(index: index, frameCount: Int(min(chunkFrames, frameCount - index * chunkFrames)), bytesPerFrame: bytesPerFrame)
        }
        var index = run.lowerBound
        var current = makeChunk(index)
        var last: DecodedChunk?
        carried.withUnsafeBytes { _ = current.append($0) }
        carried.removeAll(keepingCapacity: true)
        while true {
            if current.isFull {
                store(current)
                last = current
                guard index < run.upperBound, (index + 1) * chunkFrames < frameCount else { break }
                index += 1
                current = makeChunk(index)
                continue
            }
            // No more than the chunk takes: a source may lend more than one chunk at once (PCM
            // read straight from the file lends 64 Ki frames), which would not all be carried.
            guard let chunk = try source.read(maximumFrames: current.frameCount - current.filledFrames) else {
                // The file decodes shorter than it said: it ends here.
                shorten(to: index * chunkFrames + Int64(current.filledFrames))
                if current.filledFrames > 0 {
                    current.truncate()
                    store(current)
                    last = current
                }
                return last?.index == run.upperBound ? last : nil
            }
            var offset = 0
            let raw = chunk.bytes
            while offset < raw.count {
                if current.isFull {
                    guard index < run.upperBound, (index + 1) * chunkFrames < frameCount else {
                        // Decoded past the run: the start of the next chunk.
                        carried.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[offset...]))
                        break
                    }
                    store(current)
                    index += 1
                    current = makeChunk(index)
                }
                offset += current.append(UnsafeRawBufferPointer(rebasing: raw[offset...]))
            }
        }
        nextSequential = index + 1
        return last
    }

    /// Records that the file ends at `frames`, before the length it stated.
    private func shorten(to frames: Int64) {
        locked(storing) {
            guard frames < knownFrames else { return }
            knownFrames = frames
            for index in chunks.keys where index * Int64(chunkFrames) >= frames { chunks[index] = nil }
            recency.removeAll { $0 * Int64(chunkFrames) >= frames }
        }
    }

    private func store(_ chunk: DecodedChunk) {
        locked(storing) {
            chunks[chunk.index] = chunk
            touch(chunk.index)
            while chunks.count > currentSchedule.capacity {
                guard let victim = currentSchedule.victim(recency: recency, wanted: wanted, keeping: chunk.index) else { break }
                chunks[victim] = nil
                recency.removeAll { $0 == victim }
            }
        }
    }

    private func touch(_ index: Int64) {
        recency.removeAll { $0 == index }
        recency.append(index)
    }

    private func locked<Result>(_ lock: NSLock, _ body: () throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
