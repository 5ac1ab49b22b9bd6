import Foundation

/// Another source's frames in reverse order: the seed's reverser, which hands out the reversed
/// audio block by block in flat memory. Frames are reversed as units: channels never swap.
///
/// Lossy decoders carry state from frame to frame, so the reversal reads its source once,
/// forwards and continuously, and places every frame at its mirrored position: frame `s` of `N`
/// goes to `N − 1 − s`. That needs `N` first: the source's ``PCMSource/length``. If reading
/// gives another length (a container that misstated it), the frames are placed once more, now
/// knowing the true length. A source whose length nothing tells (a pipe) is stored forwards
/// and read back from its end instead.
///
/// The placed frames wait in an unnamed temporary file (as big as the raw audio, gone however
/// the process ends), from which the reversal is read. ``transfer(_:to:threads:progress:cancellation:)``
/// into a sink that takes frames at any position (PCM into a seekable file) skips it: every
/// block goes straight to its mirrored place in the output.
///
/// ```swift
/// let reversed = ReversedSource(try AudioFileSource(url: song), blockFrames: 4096)
/// while let block = try reversed.readBlock(frames: 4096) { play(block) }
/// ```
public final class ReversedSource: PCMSource {
    /// The source reversed.
    public let source: any PCMSource
    private let requestedBlockFrames: Int?
    /// Threads the source may be decoded on (see ``init(_:blockFrames:threads:temporaryDirectory:progress:cancellation:)``).
    public let threads: Int
    /// Segment edges forced instead of ``SegmentedPlacement/boundaries(totalFrames:threads:)`` (tests put seams where they choose).
    package var segmentBoundaries: ((Int64) -> [Int64])?
    private let temporaryDirectory: URL
    private let progress: ProgressHandler?
    private let cancellation: CancellationFlag?
    private var store: TemporaryPCMFile?
    private var storedFrames: Int64 = 0
    /// True when the store holds the source forwards (a source of unknown length).
    private var storedForwards = false
    private var resolvedLength: PCMLength?
    private var resolvedBlockFrames: Int?
    private var buffer: UnsafeMutableRawBufferPointer
    private var scratch: UnsafeMutableRawBufferPointer
    /// The index of the next frame read.
    public private(set) var position: Int64 = 0
    /// Times the source was read (2 only when it decoded to another length than it stated).
    public private(set) var passes = 0
    /// Threads that decoded the source: 1, or the threads of a parallel placement.
    public private(set) var threadsUsed = 1
    /// Why the source was decoded on one thread though more were allowed, when it was.
    public private(set) var singleThreadReason: String?
    /// Hand out the reversal while it is being placed (decoding on other threads, reading here:
    /// an encoder overlaps the decode). When the placement declines after frames were handed
    /// out, reading throws ``PlacementDeclined``, and the caller starts again on one thread.
    package var followsPlacement = false
    /// The placement being followed, while it runs.
    private var follower: PlacementFollower?
    /// True once a parallel placement declined: the source is placed on one thread.
    private var parallelDeclined = false

    /// The reversal of `source`; nothing is read before the first ``read(maximumFrames:)``.
    /// - Parameters:
    ///   - source: the source to reverse, read once forwards (twice if its length was wrong).
    ///   - blockFrames: frames per block placed; nil for the source's natural block.
    ///   - threads: decode the source on up to this many threads, segment by segment (each on
    ///     a reader of its own, seeking exactly), when its length is known and its readers seek
    ///     bit-exactly (``PCMSource/independentReader()``); the frames placed are the same as
    ///     with 1, which reads it once, forwards, on the calling thread.
    ///   - temporaryDirectory: where the placed frames wait (default: the system's temporary folder).
    ///   - progress: the reading of the source, as fractions of its length.
    ///   - cancellation: stops the work with `CancellationError` when set.
    public init(_ source: any PCMSource, blockFrames: Int? = nil, threads: Int = 1, temporaryDirectory: URL? = nil,
                progress: ProgressHandler? = nil, cancellation: CancellationFlag? = nil) {
        self.source = source
        requestedBlockFrames = blockFrames
        self.threads = max(1, threads)
        self.temporaryDirectory = temporaryDirectory ?? FileManager.default.temporaryDirectory
        self.progress = progress
        self.cancellation = cancellation
        buffer = .allocate(byteCount: 0, alignment: 16)
        scratch = .allocate(byteCount: 0, alignment: 16)
    }

    deinit {
        follower?.stopAndWait()
        buffer.deallocate()
        scratch.deallocate()
    }

    /// The frames' sample format, rate and channels.
    public var format: PCMFormat { source.format }
    /// Problems met so far that did not stop reading.
    public var warnings: [ReverseAudioWarning] { source.warnings }
    /// The file the frames come from, for messages.
    public var name: String { source.name }

    /// The source's length, and once it has been read, the length reading gave.
    public var length: PCMLength { resolvedLength ?? source.length }

    /// Frames per block placed: asked for, or the source's natural block, at most the length;
    /// known once the source has been read (or asked for).
    public var blockFrames: Int? { resolvedBlockFrames ?? requestedBlockFrames ?? source.blockFrames }

    /// Bytes the temporary file holds (the reversed audio), while it exists.
    public var temporaryBytes: Int64 { store?.size ?? 0 }

    /// True until the source is read, when its length is known: the frames can be placed
    /// straight into a sink that takes them at any position.
    var canMirror: Bool { store == nil && passes == 0 && source.length.frames != nil }

    /// Lends the next frames, at most `maximumFrames` (see ``PCMSource/read(maximumFrames:)``).
    public func read(maximumFrames: Int) throws -> PCMChunk? {
        if store == nil && passes == 0 { try prepare() }
        var count = Int(min(Int64(maximumFrames), storedFrames - position))
        if count > 0, let follower {
            switch try follower.wait(until: position + Int64(count)) {
            case .available(let complete):
                count = Int(min(Int64(count), complete - position))
                if complete == storedFrames { self.follower = nil }
            case .declined(let reason):
                try placeAfterDecline(reason)
                count = Int(min(Int64(maximumFrames), storedFrames - position))
            }
        }
        guard count > 0, let store else { return nil }
        let frameBytes = format.bytesPerFrame
        reserve(&buffer, bytes: count * frameBytes)
        let out = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<(count * frameBytes)])
        if storedForwards {
            // Output frames [p, p + n) are stored frames [N − p − n, N − p), reversed.
            reserve(&scratch, bytes: count * frameBytes)
            let stored = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<(count * frameBytes)])
            try store.read(into: stored, at: storedFrames - position - Int64(count))
            FrameReversal.copyReversed(stored.baseAddress!, to: out.baseAddress!, frames: count, frameBytes: frameBytes)
        } else {
            try store.read(into: out, at: position)
        }
        defer { position += Int64(count) }
        return PCMChunk(bytes: UnsafeRawBufferPointer(out), frameCount: count, position: position)
    }

    /// Moves anywhere in the reversal (the source is read first if it was not yet).
    @discardableResult
    public func seek(to frame: Int64, endingAt end: Int64?) throws -> SeekedTo {
        if store == nil && passes == 0 { try prepare() }
        if let follower {
            if case .declined(let reason) = try follower.wait(until: storedFrames) { try placeAfterDecline(reason) }
            self.follower = nil
        }
        position = min(max(frame, 0), storedFrames)
        return SeekedTo(required: frame, reached: position)
    }

    /// Deletes the temporary file now instead of when the source is released.
    public func close() {
        follower?.stopAndWait()
        follower = nil
        store = nil
        storedFrames = 0
    }

    /// Reads the source into the temporary file: placed mirrored when its length is known,
    /// stored forwards otherwise.
    private func prepare() throws {
        let file = try TemporaryPCMFile(in: temporaryDirectory, bytesPerFrame: format.bytesPerFrame)
        if followsPlacement, try startFollowing(into: file) {
            store = file
            return
        }
        if source.length.frames != nil {
            storedFrames = try mirror(into: file, progress: progress, cancellation: cancellation)
        } else {
            storedFrames = try storeForwards(into: file)
            storedForwards = true
        }
        store = file
    }

    /// The segments of a stream of `frames` frames: forced by a test, else four a thread.
    private func boundaries(for frames: Int64) -> [Int64] {
        segmentBoundaries?(frames) ?? SegmentedPlacement.boundaries(totalFrames: frames, threads: threads)
    }

    /// Starts a placement on other threads, from the stream's end, for ``read(maximumFrames:)``
    /// to follow; false when it cannot be done in parallel (then ``singleThreadReason`` says why).
    private func startFollowing(into file: TemporaryPCMFile) throws -> Bool {
        guard threads > 1, let expected = source.length.frames else { return false }
        let blockFrames = try ReversePlacement.checkedBlockFrames(requestedBlockFrames ?? source.blockFrames ?? 1,
                                                                  totalFrames: expected, frameBytes: format.bytesPerFrame)
        let boundaries = boundaries(for: expected)
        guard boundaries.count > 2 else {
            singleThreadReason = SegmentedPlacement.tooShortReason
            return false
        }
        guard let readers = try SegmentedPlacement.readers(of: source, count: min(threads, boundaries.count - 1)) else {
            singleThreadReason = SegmentedPlacement.noReadersReason
            return false
        }
        passes = 1
        threadsUsed = readers.count
        storedFrames = expected
        resolvedBlockFrames = blockFrames
        resolvedLength = PCMLength(frames: expected, source: source.length.source)
        follower = PlacementFollower(readers: readers, totalFrames: expected, boundaries: boundaries, into: file,
                                     cancellation: cancellation)
        return true
    }

    /// The followed placement declined: placed again on one thread when nothing was handed
    /// out yet; otherwise ``PlacementDeclined``.
    private func placeAfterDecline(_ reason: String) throws {
        follower = nil
        singleThreadReason = reason
        threadsUsed = 1
        parallelDeclined = true
        guard position == 0, let store else { throw PlacementDeclined(reason: reason) }
        try store.discardWrites(expectingFrames: storedFrames)
        resolvedLength = nil
        storedFrames = try mirror(into: store, progress: nil, cancellation: cancellation)
    }

    /// Places every frame of the source at its mirrored position in `sink`, reading the source
    /// again when it gave another length than it stated.
    /// - Returns: the frames placed.
    package func mirror(into sink: any PositionedPCMSink, progress: ProgressHandler?,
                        cancellation: CancellationFlag?) throws -> Int64 {
        guard var expected = source.length.frames else {
            throw ReverseAudioError.lengthUnknown(path: source.name, reason: "placing frames at mirrored positions needs it")
        }
        var lengthSource = source.length.source
        let frameBytes = format.bytesPerFrame
        let blockFrames = try ReversePlacement.checkedBlockFrames(requestedBlockFrames ?? source.blockFrames ?? 1,
                                                                  totalFrames: expected, frameBytes: frameBytes)
        let boundaries = boundaries(for: expected)
        if parallelDeclined {
            // Placed on one thread after a parallel placement declined.
        } else if threads > 1 && boundaries.count <= 2 {
            singleThreadReason = SegmentedPlacement.tooShortReason
        } else if threads > 1 {
            passes = 1
            switch try SegmentedPlacement.place(source, totalFrames: expected, direction: .mirrored, boundaries: boundaries,
                                                threads: threads, into: sink, progress: progress, cancellation: cancellation) {
            case .placed:
                threadsUsed = min(threads, boundaries.count - 1)
                resolvedBlockFrames = blockFrames
                resolvedLength = PCMLength(frames: expected, source: lengthSource)
                return expected
            case .declined(let reason):
                singleThreadReason = reason
                try sink.discardWrites(expectingFrames: expected)
            }
        }
        for pass in 1...2 {
            passes = pass
            if source.position != 0 { try source.seek(to: 0) }
            let placement = try ReversePlacement(totalFrames: expected,
                                                 blockFrames: requestedBlockFrames ?? source.blockFrames ?? 1,
                                                 frameBytes: frameBytes, sink: sink)
            resolvedBlockFrames = placement.blockFrames
            while let chunk = try source.read(maximumFrames: transferChunkFrames) {
                if cancellation?.isCancelled == true { throw CancellationError() }
                try placement.consume(chunk.bytes, frames: chunk.frameCount)
                if expected > 0 { progress?(Double(placement.sourceFrames) / Double(expected)) }
            }
            if placement.isComplete {
                resolvedLength = PCMLength(frames: expected, source: lengthSource)
                return expected
            }
            if pass == 2 {
                throw ReverseAudioError.decodingFailed(
                    path: source.name, reason: "two decodes gave different lengths (\(expected) and \(placement.sourceFrames) frames)")
            }
            expected = placement.sourceFrames
            lengthSource = .decode
            try sink.discardWrites(expectingFrames: expected)
        }
        return expected
    }

    /// Stores the source forwards (its length unknown): read back from the end.
    private func storeForwards(into file: TemporaryPCMFile) throws -> Int64 {
        passes = 1
        var frames: Int64 = 0
        while let chunk = try source.read(maximumFrames: transferChunkFrames) {
            if cancellation?.isCancelled == true { throw CancellationError() }
            try file.write(chunk.bytes, frames: chunk.frameCount, at: frames)
            frames += Int64(chunk.frameCount)
        }
        resolvedLength = PCMLength(frames: frames, source: .decode)
        resolvedBlockFrames = requestedBlockFrames ?? source.blockFrames
        return frames
    }

    private func reserve(_ storage: inout UnsafeMutableRawBufferPointer, bytes: Int) {
        guard storage.count < bytes else { return }
        storage.deallocate()
        storage = .allocate(byteCount: max(bytes, storage.count * 2), alignment: 16)
    }
}
