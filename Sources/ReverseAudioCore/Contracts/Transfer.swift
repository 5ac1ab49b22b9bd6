/// Moves every frame of `source` into `sink`, then finishes the sink: the one loop that writes
/// files, renders playback and measures waveforms.
///
/// A ``ReversedSource`` going into a sink that takes frames at any position (PCM into a
/// seekable file) is written straight to its mirrored places, with no temporary file. On any
/// error or cancellation the sink is cancelled (a file being written is removed) and the error
/// is thrown.
/// - Parameters:
///   - source: the frames, read to their end.
///   - sink: where they go; finished on success, cancelled on failure.
///   - progress: fractions of the source's length in 0..<1 as frames are written (not called
///     when the length is unknown); the caller says when the work is complete.
///   - cancellation: checked between chunks; when set, throws `CancellationError`.
/// - Returns: the frames written.
@discardableResult
public func transfer(_ source: any PCMSource, to sink: any PCMSink, progress: ProgressHandler? = nil,
                     cancellation: CancellationFlag? = nil) throws -> Int64 {
    do {
        let frames: Int64
        if let reversed = source as? ReversedSource, let positioned = sink.positioned, reversed.canMirror {
            frames = try reversed.mirror(into: positioned, progress: progress, cancellation: cancellation)
        } else {
            frames = try copyFrames(from: source, to: sink, progress: progress, cancellation: cancellation)
        }
        try sink.finish()
        return frames
    } catch {
        sink.cancel()
        throw error
    }
}

/// The loop of ``transfer(_:to:progress:cancellation:)``: chunks in order.
private func copyFrames(from source: any PCMSource, to sink: any PCMSink, progress: ProgressHandler?,
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
