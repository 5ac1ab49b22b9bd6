import Foundation

/// Places a source's frames in a sink that takes them at any position, using several threads:
/// the frames are cut into segments, and each thread decodes whole segments on a reader of its
/// own (``SegmentReaders``: the job's own reader and more opens of the input), seeking to each segment's start, and
/// writes them to their places, forwards or mirrored (frame `s` of `N` at `N − 1 − s`). Exact
/// seeking (each codec's measured pre-roll) makes every seam bit-exact, so the output equals the
/// single-threaded one byte for byte.
///
/// There are more segments than threads (eight each, the last taken cut in four), taken in
/// order as threads come free, so a slow segment (a dense passage, a seek that decodes a long
/// pre-roll) does not hold the others up, and no thread decodes alone for long at the end.
/// Memory is one reader and one batch per thread, whatever the length.
///
/// Anything that is not what one continuous read would give gives up the parallel way, and the
/// ``Scheduler`` decodes on one thread instead: a seek that does not
/// reach its target, a segment that ends early (the length was misstated), frames past the
/// stated end, or a reader that met damage (its warnings must come from one continuous decode).
/// Errors (a write that fails) and cancellation stop every thread at its next chunk.
package enum SegmentedPlacement {
    /// Where a segment's frames go.
    package enum Direction: Sendable {
        /// Frame `s` at `s`: a conversion.
        case forwards
        /// Frame `s` at `N − 1 − s`: a reversal.
        case mirrored
    }

    /// How a parallel placement ended.
    package enum Outcome: Equatable {
        /// Every frame was placed.
        case placed
        /// It could not be done exactly in parallel, for this reason; nothing usable was written.
        case declined(OneReaderReason)
    }

    /// The shortest segment worth a seek of its own: about 1.5 s at 44.1 kHz.
    package static let minimumSegmentFrames: Int64 = 1 << 16

    /// Segment boundaries for `totalFrames` frames on `threads` threads: eight segments a thread,
    /// none shorter than ``minimumSegmentFrames`` (so short files keep one segment), and the
    /// `threads` segments taken last (the stream's last, or its first for `lastSegmentFirst`) cut
    /// in four: the threads then finish within about a quarter segment of each other, where
    /// equal segments left one thread decoding alone for up to a whole one at the end.
    package static func boundaries(totalFrames: Int64, threads: Int, lastSegmentFirst: Bool = false) -> [Int64] {
        let threads = max(threads, 1)
        let count = Int(max(1, min(Int64(threads * 8), totalFrames / minimumSegmentFrames)))
        let equal = (0...count).map { totalFrames * Int64($0) / Int64(count) }
        guard count > 1 else { return equal }
        var edges: [Int64] = []
        for index in 0..<count {
            let (lower, upper) = (equal[index], equal[index + 1])
            let takenLast = lastSegmentFirst ? index < threads : index >= count - threads
            let pieces = takenLast ? Int(max(1, min(4, (upper - lower) / minimumSegmentFrames))) : 1
            edges += (0..<pieces).map { lower + (upper - lower) * Int64($0) / Int64(pieces) }
        }
        return edges + [totalFrames]
    }

    /// Why a stream of fewer than two segments is read on one thread.
    static let tooShortReason = OneReaderReason.tooShort(minimumSegmentFrames: minimumSegmentFrames)

    /// Places the frames with `readers`, one thread each (the first on the calling thread).
    /// - Parameters:
    ///   - lastSegmentFirst: take the segments from the stream's end: a mirrored placement then
    ///     completes the output from its start, for a reader that follows it.
    ///   - stop: a second flag that stops the work as `cancellation` does, without an error
    ///     being the caller's to report (the reader that followed it went away).
    ///   - onSegmentPlaced: called with each segment's range in the output once all its frames
    ///     are written, from the thread that wrote them.
    ///   - waitForRoom: called by a thread with the segment it took, before reading it; blocks
    ///     until the sink has room for it (a reader in order keeps a small window), false to stop.
    ///   - totalFrames: the length the input states (mirrored: frame `s` goes to `totalFrames − 1 − s`).
    ///   - direction: forwards or mirrored.
    ///   - boundaries: the segments' edges, from 0 to `totalFrames`, increasing.
    ///   - sink: where the frames go; written under a lock, from every thread.
    ///   - progress: fractions of the frames read, from the threads as they read.
    ///   - cancellation: checked between chunks by every thread.
    /// - Returns: ``Outcome/placed``, or why it declined (the sink then holds partial writes the
    ///   caller discards).
    /// - Throws: the first error of any thread (the others stop), or `CancellationError`.
    package static func place(readers: [SegmentReader], totalFrames: Int64, direction: Direction, boundaries: [Int64],
                              lastSegmentFirst: Bool = false, into sink: any PositionedPCMSink, progress: ProgressHandler?,
                              cancellation: CancellationFlag?, stop: CancellationFlag? = nil,
                              onSegmentPlaced: (@Sendable (Range<Int64>) -> Void)? = nil,
                              waitForRoom: (@Sendable (Range<Int64>) -> Bool)? = nil) throws -> Outcome {
        guard !readers.isEmpty, boundaries.first == 0, boundaries.last == totalFrames, boundaries.count >= 2,
              zip(boundaries, boundaries.dropFirst()).allSatisfy({ $0 < $1 }) else {
            return .declined(.segmentsDoNotTile)
        }
        let shared = SharedPlacement(totalFrames: totalFrames, direction: direction, boundaries: boundaries,
                                     lastSegmentFirst: lastSegmentFirst, sink: sink, progress: progress,
                                     cancellation: cancellation, stop: stop, onSegmentPlaced: onSegmentPlaced,
                                     waitForRoom: waitForRoom)
        let workers = readers.map { SegmentWorker(reader: $0, shared: shared) }
        let group = DispatchGroup()
        for worker in workers.dropFirst() {
            group.enter()
            let handOff = HandOff(worker)
            let thread = Thread {
                handOff.value.run()
                group.leave()
            }
            thread.start()
        }
        workers[0].run()
        group.wait()
        return try shared.outcome()
    }
}

/// A value moved to one other thread, which alone uses it from then on.
package final class HandOff<Value>: @unchecked Sendable {
    // @unchecked: the creating thread gives the value up before the thread that uses it starts.
    package let value: Value
    package init(_ value: Value) { self.value = value }
}

/// What the threads of one ``SegmentedPlacement`` share: the next segment, the sink, the first
/// failure, and the frames placed.
private final class SharedPlacement: @unchecked Sendable {
    // @unchecked: every mutable field is used only under `lock`, the sink only under `sinkLock`.
    let totalFrames: Int64
    let direction: SegmentedPlacement.Direction
    let boundaries: [Int64]
    private let sink: any PositionedPCMSink
    private let progress: ProgressHandler?
    private let cancellation: CancellationFlag?
    private let stop: CancellationFlag?
    private let lastSegmentFirst: Bool
    private let onSegmentPlaced: (@Sendable (Range<Int64>) -> Void)?
    let waitForRoom: (@Sendable (Range<Int64>) -> Bool)?
    private let lock = NSLock()
    private let sinkLock = NSLock()
    private var nextSegment = 0
    private var placedFrames: Int64 = 0
    /// Frames read by every thread: what progress reports (a batch is written less often).
    private var readFrames: Int64 = 0
    private var failure: (any Error)?
    private var declined: OneReaderReason?
    /// Per segment, where in the input its first frame and the frame after it come from, for
    /// readers that mark them (``SegmentMarks``).
    private var starts: [Int: Int64] = [:]
    private var ends: [Int: Int64] = [:]
    private var inputStart: Int64?

    init(totalFrames: Int64, direction: SegmentedPlacement.Direction, boundaries: [Int64], lastSegmentFirst: Bool,
         sink: any PositionedPCMSink, progress: ProgressHandler?, cancellation: CancellationFlag?, stop: CancellationFlag?,
         onSegmentPlaced: (@Sendable (Range<Int64>) -> Void)?, waitForRoom: (@Sendable (Range<Int64>) -> Bool)?) {
        self.totalFrames = totalFrames
        self.waitForRoom = waitForRoom
        self.direction = direction
        self.lastSegmentFirst = lastSegmentFirst
        self.stop = stop
        self.onSegmentPlaced = onSegmentPlaced
        self.boundaries = boundaries
        self.sink = sink
        self.progress = progress
        self.cancellation = cancellation
    }

    /// The next segment to place, or nil when all are taken or the work has stopped.
    func takeSegment() -> Range<Int64>? {
        lock.lock()
        defer { lock.unlock() }
        let count = boundaries.count - 1
        guard failure == nil, declined == nil, nextSegment < count else { return nil }
        defer { nextSegment += 1 }
        let index = lastSegmentFirst ? count - 1 - nextSegment : nextSegment
        return boundaries[index]..<boundaries[index + 1]
    }

    /// True once the work must stop: cancelled by the caller or stopped by the one that follows it.
    var isCancelled: Bool { cancellation?.isCancelled == true || stop?.isCancelled == true }

    /// Notes that every frame of source segment `segment` is written.
    func segmentPlaced(_ segment: Range<Int64>) {
        guard let onSegmentPlaced else { return }
        switch direction {
        case .forwards: onSegmentPlaced(segment)
        case .mirrored: onSegmentPlaced((totalFrames - segment.upperBound)..<(totalFrames - segment.lowerBound))
        }
    }

    /// True once any thread failed or declined: the others stop at their next chunk.
    var hasStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return failure != nil || declined != nil
    }

    /// Notes where segment `segment`'s first frame, and the frame after it, come from.
    func mark(_ segment: Range<Int64>, start: Int64?, end: Int64?, inputStart: Int64?) {
        guard let index = boundaries.firstIndex(of: segment.lowerBound) else { return }
        lock.lock()
        defer { lock.unlock() }
        starts[index] = start
        ends[index] = end
        if let inputStart { self.inputStart = inputStart }
    }

    /// Why the marked segments do not meet in the input, if they do not: the first must start
    /// at the input's start, and each next where the one before left off.
    private var seamFailure: OneReaderReason? {
        guard !starts.isEmpty || !ends.isEmpty else { return nil }
        let count = boundaries.count - 1
        guard let first = starts[0], first == inputStart else {
            return .firstSegmentOffStart
        }
        for index in 0..<(count - 1) {
            guard let end = ends[index], let start = starts[index + 1], end == start else {
                return .segmentsDoNotMeet(segment: index + 1)
            }
        }
        return nil
    }

    /// Writes `frames` frames at output frame `frame`.
    func write(_ bytes: UnsafeRawBufferPointer, frames: Int, at frame: Int64) throws {
        // A lock of its own: a write (a megabyte into the page cache) must not hold up the other
        // threads' checks between chunks, which take `lock` for an instant.
        sinkLock.lock()
        defer { sinkLock.unlock() }
        try sink.write(bytes, frames: frames, at: frame)
        lock.lock()
        placedFrames += Int64(frames)
        lock.unlock()
    }

    /// Notes `frames` more frames read, and reports the progress of the whole.
    func advance(by frames: Int) {
        guard let progress else { return }
        // Reported under the lock: threads reporting in turn cannot overtake each other.
        lock.lock()
        defer { lock.unlock() }
        readFrames += Int64(frames)
        progress(Double(readFrames) / Double(max(totalFrames, 1)))
    }

    func fail(_ error: any Error) {
        lock.lock()
        if failure == nil { failure = error }
        lock.unlock()
    }

    func decline(_ reason: OneReaderReason) {
        lock.lock()
        if declined == nil { declined = reason }
        lock.unlock()
    }

    /// The outcome once every thread is done: an error first (cancellation among them), then a
    /// reason to decline, else placed.
    func outcome() throws -> SegmentedPlacement.Outcome {
        // Cancelled, a reader interrupted inside FFmpeg may have failed otherwise: the
        // cancellation is what happened.
        if isCancelled { throw CancellationError() }
        lock.lock()
        defer { lock.unlock() }
        if let failure { throw failure }
        if let declined { return .declined(declined) }
        if let seamFailure { return .declined(seamFailure) }
        return placedFrames == totalFrames ? .placed : .declined(.framesUnplaced(placed: placedFrames, total: totalFrames))
    }
}

/// One thread's part: segments taken in turn, each sought, read and written to its place.
private final class SegmentWorker {
    private let reader: any PCMSource
    private let problems: () -> Int
    private let marks: () -> SegmentMarks?
    private let shared: SharedPlacement
    private let frameBytes: Int
    /// Frames waiting to be written: filled from its start (forwards) or its end (mirrored).
    private let batch: UnsafeMutableRawPointer
    private let batchFrames: Int
    init(reader: SegmentReader, shared: SharedPlacement) {
        self.reader = reader.source
        problems = reader.problems
        marks = reader.marks
        self.shared = shared
        frameBytes = reader.source.format.bytesPerFrame
        batchFrames = max(1, (1 << 20) / max(frameBytes, 1))
        batch = .allocate(byteCount: batchFrames * max(frameBytes, 1), alignment: 16)
    }

    deinit { batch.deallocate() }

    func run() {
        do {
            while let segment = shared.takeSegment() {
                if let waitForRoom = shared.waitForRoom, !waitForRoom(segment) { return }
                if let reason = try place(segment) {
                    shared.decline(reason)
                    return
                }
            }
        } catch {
            shared.fail(error)
        }
    }

    /// Places one segment; a reason when it cannot be placed exactly.
    private func place(_ segment: Range<Int64>) throws -> OneReaderReason? {
        let total = shared.totalFrames
        // Problems before the segment: one met inside it means damage.
        let problemsBefore = problems()
        let reached = try reader.seek(to: segment.lowerBound, endingAt: segment.upperBound)
        guard reached.reached == segment.lowerBound else {
            return .seekMissed(frame: segment.lowerBound, reached: reached.reached)
        }
        var next = segment.lowerBound        // the source frame read next
        var batchStart = segment.lowerBound  // the source frame the batch starts with
        var filled = 0
        while next < segment.upperBound {
            if shared.isCancelled { throw CancellationError() }
            if shared.hasStopped { return nil }
            guard let chunk = try reader.read(maximumFrames: Int(min(Int64(transferChunkFrames), segment.upperBound - next))) else {
                return .streamEndedEarly(atFrame: next, statedFrames: total)
            }
            var offset = 0
            while offset < chunk.frameCount {
                let count = min(chunk.frameCount - offset, batchFrames - filled)
                let from = chunk.bytes.baseAddress! + offset * frameBytes
                switch shared.direction {
                case .forwards: (batch + filled * frameBytes).copyMemory(from: from, byteCount: count * frameBytes)
                case .mirrored:
                    FrameReversal.copyReversed(from, to: batch + (batchFrames - filled - count) * frameBytes, frames: count,
                                               frameBytes: frameBytes)
                }
                filled += count
                offset += count
                if filled == batchFrames {
                    try flush(filled, from: batchStart)
                    batchStart += Int64(filled)
                    filled = 0
                }
            }
            next += Int64(chunk.frameCount)
            shared.advance(by: chunk.frameCount)
        }
        if filled > 0 { try flush(filled, from: batchStart) }
        let landing = marks()?.landing
        if segment.upperBound == total {
            if try reader.read(maximumFrames: 1) != nil { return .streamGoesOn(statedFrames: total) }
            if let marked = marks() { shared.mark(segment, start: landing, end: nil, inputStart: marked.inputStart) }
        } else if let marked = marks() {
            // The frame after the segment: where it comes from is where the next must start,
            // and reading it checks that it continues this one.
            _ = try reader.read(maximumFrames: 1)
            shared.mark(segment, start: landing, end: marks()?.current, inputStart: marked.inputStart)
        }
        guard problems() == problemsBefore else { return .damageMet }
        shared.segmentPlaced(segment)
        return nil
    }

    /// Writes the batch's `frames` frames, source frames `[first, first + frames)`, to their place.
    private func flush(_ frames: Int, from first: Int64) throws {
        switch shared.direction {
        case .forwards:
            try shared.write(UnsafeRawBufferPointer(start: batch, count: frames * frameBytes), frames: frames, at: first)
        case .mirrored:
            let bytes = UnsafeRawBufferPointer(start: batch + (batchFrames - frames) * frameBytes, count: frames * frameBytes)
            try shared.write(bytes, frames: frames, at: shared.totalFrames - first - Int64(frames))
        }
    }
}

/// A mirrored placement running on threads of its own, from the stream's last segment to its
/// first, and how much of its output is complete from the start: what a reader that follows it
/// (an encoder) may take while the rest is still being decoded. Decoding and encoding overlap.
final class PlacementFollower: @unchecked Sendable {
    // @unchecked: `placed`, `prefix` and `result` are only touched under `condition`; the
    // readers and the file are handed to the placement thread, which alone uses the readers.
    private let condition = NSCondition()
    /// Output ranges written, past the complete prefix.
    private var placed: [Range<Int64>] = []
    /// Output frames complete from frame 0.
    private var prefix: Int64 = 0
    private var result: Result<SegmentedPlacement.Outcome, any Error>?
    private let stop = CancellationFlag()

    /// What the follower may do next.
    enum State {
        /// Output frames `[0, frames)` are complete.
        case available(Int64)
        /// The placement declined (see ``SegmentedPlacement/Outcome/declined(_:)``).
        case declined(OneReaderReason)
    }

    /// Starts placing `totalFrames` frames with `readers` (one thread each) into `file`.
    init(readers: [SegmentReader], totalFrames: Int64, boundaries: [Int64], into file: TemporaryPCMFile,
         cancellation: CancellationFlag?) {
        let work = HandOff((readers, file))
        let thread = Thread { [self] in
            let outcome = Result {
                try SegmentedPlacement.place(readers: work.value.0, totalFrames: totalFrames, direction: .mirrored, boundaries: boundaries,
                                             lastSegmentFirst: true, into: work.value.1, progress: nil, cancellation: cancellation,
                                             stop: stop) { [self] range in self.placed(range) }
            }
            finish(outcome)
        }
        thread.start()
    }

    /// Waits until output frames `[0, end)` are complete, or the placement ended.
    /// - Throws: the placement's error.
    func wait(until end: Int64) throws -> State {
        condition.lock()
        defer { condition.unlock() }
        while prefix < end && result == nil { condition.wait() }
        switch result {
        case .failure(let error)?: throw error
        case .success(.declined(let reason))?: return .declined(reason)
        default: return .available(prefix)
        }
    }

    /// Stops the placement and waits for its threads (the file is then no one else's).
    func stopAndWait() {
        stop.cancel()
        condition.lock()
        while result == nil { condition.wait() }
        condition.unlock()
    }

    private func placed(_ range: Range<Int64>) {
        condition.lock()
        placed.append(range)
        while let next = placed.firstIndex(where: { $0.lowerBound == prefix }) {
            prefix = placed.remove(at: next).upperBound
        }
        condition.broadcast()
        condition.unlock()
    }

    private func finish(_ outcome: Result<SegmentedPlacement.Outcome, any Error>) {
        condition.lock()
        result = outcome
        condition.broadcast()
        condition.unlock()
    }
}
