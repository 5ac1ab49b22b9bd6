import Foundation

extension AudioFileWriter {
    /// Writes a sequence of blocks (``ReversedAudio``, ``DecodedAudio`` or your own) to a file
    /// at `url` in the format its extension names, publishing it when the sequence ends.
    ///
    /// ```swift
    /// let frames = try await AudioFileWriter.write(ReversedAudio(url: song), to: output,
    ///                                              totalFrames: info.frames, progress: { print($0) })
    /// ```
    ///
    /// - Parameters:
    ///   - blocks: the blocks, in order.
    ///   - url: the file to write.
    ///   - overwrite: replace an existing file at `url`.
    ///   - format: the blocks' format; nil takes it from the first block (an empty sequence then
    ///     has nothing to take it from, and is an error).
    ///   - outputFormat: the container and codec; nil picks them from `url`'s extension.
    ///   - totalFrames: the length, when known: progress is measured against it.
    ///   - progress: fractions in 0...1, non-decreasing, about every 1%; 1.0 exactly once, after
    ///     the file is in place.
    /// - Returns: the frames written.
    /// - Throws: the sequence's errors, `CancellationError` when the task is cancelled; the
    ///   partial file is removed in every case.
    @discardableResult
    public static func write<Blocks: AsyncSequence>(
        _ blocks: Blocks, to url: URL, format: PCMFormat? = nil, outputFormat: OutputFormat? = nil,
        totalFrames: Int64? = nil, overwrite: Bool = false, progress: ProgressHandler? = nil
    ) async throws -> Int64 where Blocks.Element == SampleBuffer {
        let reporter = ProgressReporter(progress)
        let chosen = try outputFormat ?? OutputFormat.forFile(url)
        func open(_ format: PCMFormat) throws -> AudioFileWriter {
            try AudioFileWriter(url: url, format: format, outputFormat: chosen, overwrite: overwrite, expectedFrames: totalFrames)
        }
        var writer = try format.map(open)
        do {
            for try await block in blocks {
                try Task.checkCancellation()
                if writer == nil { writer = try open(block.format) }
                try writer!.append(block)
                if let totalFrames, totalFrames > 0 { reporter.update(Double(writer!.framesWritten) / Double(totalFrames)) }
            }
            try Task.checkCancellation()
            guard let writer else {
                throw ReverseAudioError.invalidOption("no blocks to write and no format for \(url.displayPath)")
            }
            try writer.finish()
            reporter.complete()
            return writer.framesWritten
        } catch {
            writer?.cancel()
            throw error
        }
    }
}
