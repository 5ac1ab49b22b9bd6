/// Moves every frame of `source` into `sink`, then finishes the sink: the one loop that writes
/// files, renders playback and measures waveforms.
///
/// A ``ReversedSource`` going into a sink that takes frames at any position (PCM into a
/// seekable file) is written straight to its mirrored places, with no temporary file. Into such
/// a sink, a source of known length whose readers seek exactly is decoded on up to `threads`
/// threads, segment by segment (a segmented placement), with the same result. On any error or
/// cancellation the sink is cancelled (a file being written is removed) and the error is thrown.
/// - Parameters:
///   - source: the frames, read to their end.
///   - sink: where they go; finished on success, cancelled on failure.
///   - threads: threads a forward transfer into a positioned sink may decode on (a reversal
///     uses its own ``ReversedSource/threads``).
///   - progress: fractions of the source's length in 0..<1 as frames are written (not called
///     when the length is unknown); the caller says when the work is complete.
///   - cancellation: checked between chunks; when set, throws `CancellationError`.
/// - Returns: the frames written.
@discardableResult
public func transfer(_ source: any PCMSource, to sink: any PCMSink, threads: Int = 1, progress: ProgressHandler? = nil,
                     cancellation: CancellationFlag? = nil) throws -> Int64 {
    try transferReporting(source, to: sink, threads: threads, progress: progress, cancellation: cancellation).frames
}

/// What a transfer did: the frames written, the threads that decoded them, and why one thread
/// did the work though more were allowed, when it did.
package struct TransferReport {
    package var frames: Int64
    package var threadsUsed = 1
    package var singleThreadReason: String?
}

/// ``transfer(_:to:threads:progress:cancellation:)``, saying how the frames were decoded.
package func transferReporting(_ source: any PCMSource, to sink: any PCMSink, threads: Int, progress: ProgressHandler?,
                               cancellation: CancellationFlag?) throws -> TransferReport {
    do {
        var report: TransferReport
        if let reversed = source as? ReversedSource, let positioned = sink.positioned, reversed.canMirror {
            report = TransferReport(frames: try reversed.mirror(into: positioned, progress: progress, cancellation: cancellation))
            report.threadsUsed = reversed.threadsUsed
            report.singleThreadReason = reversed.singleThreadReason
        } else if threads > 1, !(source is ReversedSource) {
            report = try transferInSegments(source, to: sink, threads: threads, progress: progress, cancellation: cancellation)
        } else {
            report = TransferReport(frames: try copyFrames(from: source, to: sink, progress: progress, cancellation: cancellation))
        }
        try sink.finish()
        return report
    } catch {
        sink.cancel()
        throw error
    }
}

/// A forward transfer on several threads where it can be exact, else in order on this one.
private func transferInSegments(_ source: any PCMSource, to sink: any PCMSink, threads: Int, progress: ProgressHandler?,
                                cancellation: CancellationFlag?) throws -> TransferReport {
    let reason: String
    if let total = source.length.frames, source.position == 0 {
        if let positioned = sink.positioned {
            // Frames taken anywhere: each segment written to its place.
            let boundaries = SegmentedPlacement.boundaries(totalFrames: total, threads: threads)
            if boundaries.count <= 2 {
                reason = SegmentedPlacement.tooShortReason
            } else {
                switch try SegmentedPlacement.place(source, totalFrames: total, direction: .forwards, boundaries: boundaries,
                                                    threads: threads, into: positioned, progress: progress, cancellation: cancellation) {
                case .placed:
                    return TransferReport(frames: total, threadsUsed: min(threads, boundaries.count - 1))
                case .declined(let why):
                    reason = why
                    try positioned.discardWrites(expectingFrames: total)
                }
            }
        } else {
            // An encoder or a pipe: decoded on other threads, handed to the sink in order.
            let boundaries = OrderedPlacement.boundaries(totalFrames: total, frameBytes: source.format.bytesPerFrame)
            if boundaries.count <= 2 {
                reason = SegmentedPlacement.tooShortReason
            } else if let readers = try SegmentedPlacement.readers(of: source, count: min(threads, boundaries.count - 1)) {
                let done = try OrderedPlacement.transfer(source, readers: readers, totalFrames: total, boundaries: boundaries,
                                                         to: sink, progress: progress, cancellation: cancellation)
                guard let declined = done.declined else { return TransferReport(frames: done.frames, threadsUsed: readers.count) }
                return TransferReport(frames: done.frames, singleThreadReason: declined)
            } else {
                reason = SegmentedPlacement.noReadersReason
            }
        }
    } else {
        reason = "the length is not known before decoding"
    }
    let frames = try copyFrames(from: source, to: sink, progress: progress, cancellation: cancellation)
    return TransferReport(frames: frames, singleThreadReason: reason)
}

/// The loop of ``transfer(_:to:threads:progress:cancellation:)``: chunks in order, from where
/// the source is; progress runs from 0 to 1 over what is left of it.
func copyFrames(from source: any PCMSource, to sink: any PCMSink, progress: ProgressHandler?,
                        cancellation: CancellationFlag?) throws -> Int64 {
    let start = source.position
    var written: Int64 = 0
    while true {
        if cancellation?.isCancelled == true { throw CancellationError() }
        guard let chunk = try source.read(maximumFrames: transferChunkFrames) else { break }
        try sink.write(chunk)
        written += Int64(chunk.frameCount)
        if let progress, let total = source.length.frames, total > start {
            progress(Double(written) / Double(total - start))
        }
    }
    return written
}

/// Frames asked of a source at a time: a decoded packet is never longer, and a stored or
/// generated source hands out 256 KiB of stereo 16-bit at most.
package let transferChunkFrames = 1 << 16
