import Foundation

/// A forward transfer into a sink that takes frames only in order (an encoder, a pipe), decoded
/// on several threads: the stream is cut into consecutive segments of a few MiB, a
/// ``SegmentedPlacement`` decodes them on threads of its own into a small window of segment
/// buffers, and the calling thread hands each segment to the sink as soon as it and every one
/// before it are complete. Decoding runs on every core while the encoder takes the frames in
/// order; memory is the window (``windowSegments(threads:)`` segments), whatever the length.
///
/// A placement that declines (a seek that misses, a stream that ends early or meets damage)
/// after frames went to the sink is continued on the calling thread by the job's own reader,
/// made fresh, from the first segment not handed out: every segment handed out was decoded and
/// checked whole.
package enum OrderedPlacement {
    /// Bytes of PCM a segment aims at: 2 MiB (about 12 s of stereo 16-bit at 44.1 kHz), so a
    /// segment's seek and pre-roll are a small share of its decode, and the window a few MiB.
    package static let segmentBytes = 2 << 20

    /// Segments held at once: one being handed out, and one being decoded per thread.
    package static func windowSegments(threads: Int) -> Int { max(threads, 1) + 1 }

    /// Segment boundaries for `totalFrames` frames of `frameBytes` bytes: equal segments of about
    /// ``segmentBytes``, none shorter than ``SegmentedPlacement/minimumSegmentFrames``.
    package static func boundaries(totalFrames: Int64, frameBytes: Int) -> [Int64] {
        let frames = max(SegmentedPlacement.minimumSegmentFrames, Int64(segmentBytes / max(frameBytes, 1)))
        let count = max(1, (totalFrames + frames - 1) / frames)
        return (0...count).map { totalFrames * $0 / count }
    }

    /// Transfers the `totalFrames` frames of an input (not yet read) into `sink` in order, with
    /// `readers` (the first is `main`'s own) decoding on their own threads.
    /// - Returns: the frames written, and the reason the rest was decoded on this thread, if it was.
    /// - Throws: the first error of a reader or of the sink (the others stop), `CancellationError`.
    package static func transfer(readers: [SegmentReader], main: any SegmentReaders, totalFrames: Int64, boundaries: [Int64],
                                 to sink: any PCMSink, progress: ProgressHandler?,
                                 cancellation: CancellationFlag?) throws -> (frames: Int64, declined: OneReaderReason?) {
        let window = ReorderWindow(boundaries: boundaries, frameBytes: sink.format.bytesPerFrame,
                                   room: windowSegments(threads: readers.count))
        let stop = CancellationFlag()
        let work = HandOff(readers)
        let thread = Thread {
            let outcome = Result {
                try SegmentedPlacement.place(readers: work.value, totalFrames: totalFrames, direction: .forwards, boundaries: boundaries,
                                             into: window, progress: progress, cancellation: cancellation, stop: stop,
                                             onSegmentPlaced: { window.completed($0) }, waitForRoom: { window.waitForRoom($0) })
            }
            window.end(outcome)
        }
        thread.start()
        defer {
            stop.cancel()
            window.stop()
            window.waitForEnd()
        }
        var written: Int64 = 0
        for index in 0..<(boundaries.count - 1) {
            if cancellation?.isCancelled == true { throw CancellationError() }
            switch try window.segment(index) {
            case .ready(let bytes):
                let frames = Int(boundaries[index + 1] - boundaries[index])
                try handOut(bytes, frames: frames, from: boundaries[index], to: sink)
                written += Int64(frames)
                window.release(index)
            case .declined(let reason):
                stop.cancel()
                window.stop()
                window.waitForEnd()
                try main.rewindMain()
                let source = main.main.source
                var from = boundaries[index]
                if from > 0, try source.seek(to: from, endingAt: nil).reached != from {
                    // The codecs whose readers run in parallel seek exactly; one that did not
                    // is decoded again from its start.
                    try sink.startOver(expectingFrames: totalFrames)
                    try main.rewindMain()
                    (from, written) = (0, 0)
                }
                written += try continueAlone(source, from: from, totalFrames: totalFrames, to: sink,
                                             progress: progress, cancellation: cancellation)
                return (written, reason)
            }
        }
        return (written, nil)
    }

    /// The segment's frames to the sink, in chunks of ``transferChunkFrames``.
    private static func handOut(_ bytes: UnsafeRawBufferPointer, frames: Int, from first: Int64, to sink: any PCMSink) throws {
        let frameBytes = sink.format.bytesPerFrame
        var offset = 0
        while offset < frames {
            let count = min(transferChunkFrames, frames - offset)
            let part = UnsafeRawBufferPointer(rebasing: bytes[(offset * frameBytes)..<((offset + count) * frameBytes)])
            try sink.write(PCMChunk(bytes: part, frameCount: count, position: first + Int64(offset)))
            offset += count
        }
    }

    /// The rest of the stream from `frame` (where `source` is), read on this thread.
    private static func continueAlone(_ source: any PCMSource, from frame: Int64, totalFrames: Int64, to sink: any PCMSink,
                                      progress: ProgressHandler?, cancellation: CancellationFlag?) throws -> Int64 {
        var written: Int64 = 0
        let rest = max(totalFrames - frame, 1)
        while true {
            if cancellation?.isCancelled == true { throw CancellationError() }
            guard let chunk = try source.read(maximumFrames: transferChunkFrames) else { return written }
            try sink.write(chunk)
            written += Int64(chunk.frameCount)
            progress?(Double(frame + min(written, rest)) / Double(max(totalFrames, 1)))
        }
    }
}

/// The segment buffers of an ``OrderedPlacement``: written at any position by the placement's
/// threads, handed out in order, at most `room` segments ahead of the one handed out next.
private final class ReorderWindow: PositionedPCMSink, @unchecked Sendable {
    // @unchecked: every mutable field is used only under `condition`; a segment's buffer is
    // written by the placement (under its own lock) before it is marked complete, and read by
    // the consumer only after.
    enum Segment {
        /// The segment's frames, valid until it is released.
        case ready(UnsafeRawBufferPointer)
        /// The placement ended without this segment, for this reason.
        case declined(OneReaderReason)
    }

    private let boundaries: [Int64]
    private let frameBytes: Int
    private let room: Int
    private let condition = NSCondition()
    private var buffers: [Int: UnsafeMutableRawPointer] = [:]
    private var complete: Set<Int> = []
    /// The segment handed out next: segments before it are released.
    private var nextOut = 0
    private var isStopped = false
    private var ended: Result<SegmentedPlacement.Outcome, any Error>?

    init(boundaries: [Int64], frameBytes: Int, room: Int) {
        self.boundaries = boundaries
        self.frameBytes = frameBytes
        self.room = room
    }

    deinit { buffers.values.forEach { $0.deallocate() } }

    // MARK: The placement's side

    func write(_ source: UnsafeRawBufferPointer, frames: Int, at frame: Int64) throws {
        let index = segmentIndex(of: frame)
        condition.lock()
        let buffer: UnsafeMutableRawPointer
        if let existing = buffers[index] {
            buffer = existing
        } else {
            buffer = .allocate(byteCount: Int(boundaries[index + 1] - boundaries[index]) * frameBytes, alignment: 16)
            buffers[index] = buffer
        }
        condition.unlock()
        (buffer + Int(frame - boundaries[index]) * frameBytes).copyMemory(from: source.baseAddress!, byteCount: frames * frameBytes)
    }

    func discardWrites(expectingFrames frames: Int64) throws {}

    /// Every frame of `segment` is written.
    func completed(_ segment: Range<Int64>) {
        condition.lock()
        complete.insert(segmentIndex(of: segment.lowerBound))
        condition.broadcast()
        condition.unlock()
    }

    /// Blocks until `segment` is within `room` segments of the one handed out next; false once stopped.
    func waitForRoom(_ segment: Range<Int64>) -> Bool {
        let index = segmentIndex(of: segment.lowerBound)
        condition.lock()
        defer { condition.unlock() }
        while index >= nextOut + room && !isStopped { condition.wait() }
        return !isStopped
    }

    /// The placement ended.
    func end(_ outcome: Result<SegmentedPlacement.Outcome, any Error>) {
        condition.lock()
        ended = outcome
        condition.broadcast()
        condition.unlock()
    }

    // MARK: The consumer's side

    /// Segment `index` once complete, or why it never will be.
    /// - Throws: the placement's error.
    func segment(_ index: Int) throws -> Segment {
        condition.lock()
        defer { condition.unlock() }
        while !complete.contains(index) && ended == nil { condition.wait() }
        if complete.contains(index), let buffer = buffers[index] {
            let count = Int(boundaries[index + 1] - boundaries[index]) * frameBytes
            return .ready(UnsafeRawBufferPointer(start: buffer, count: count))
        }
        switch ended {
        case .failure(let error)?: throw error
        case .success(.declined(let reason))?: return .declined(reason)
        default: return .declined(.segmentNotPlaced(index: index))
        }
    }

    /// Segment `index` was handed out: its buffer is freed and the next one may be decoded.
    func release(_ index: Int) {
        condition.lock()
        buffers.removeValue(forKey: index)?.deallocate()
        complete.remove(index)
        nextOut = index + 1
        condition.broadcast()
        condition.unlock()
    }

    /// Lets every waiting thread of the placement go (it then stops).
    func stop() {
        condition.lock()
        isStopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits for the placement's threads to end.
    func waitForEnd() {
        condition.lock()
        while ended == nil { condition.wait() }
        condition.unlock()
    }

    private func segmentIndex(of frame: Int64) -> Int {
        // The last boundary at or before `frame` (boundaries increase).
        var low = 0
        var high = boundaries.count - 2
        while low < high {
            let middle = (low + high + 1) / 2
            if boundaries[middle] <= frame { low = middle } else { high = middle - 1 }
        }
        return low
    }
}
