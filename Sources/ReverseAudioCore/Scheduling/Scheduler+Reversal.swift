import Foundation

extension Scheduler {
    /// The reversal of `input`, read in order: the one way a ``ReversedSource`` is made, so
    /// that how its input is placed (on how many threads, mirrored or stored forwards) stays
    /// this scheduler's decision. Nothing is read before its first read or seek.
    /// - Parameters:
    ///   - input: the chain to reverse and how it can be split.
    ///   - file: the temporary file to place the frames in (default: a new one in
    ///     ``temporaryFolder``).
    ///   - progress: the placing of the input, as fractions of its length (default: none).
    package func reversal(of input: Input, storingIn file: TemporaryPCMFile? = nil,
                          progress: ProgressHandler? = nil) -> ReversedSource {
        let cancellation = cancellation
        let placing = ReversedSource.Placing(
            temporaryFolder: temporaryFolder,
            mirror: { input, file, progress in try mirror(input, into: file, progress: progress) },
            storedForwardsReason: threads > 1 ? .lengthUnknown : nil,
            isCancelled: { cancellation?.isCancelled == true })
        return ReversedSource(input, placing: placing, storingIn: file, progress: progress)
    }

    /// This scheduler on one thread: the one continuous decode a placement falls back to.
    var oneReader: Scheduler {
        Scheduler(threads: 1, cancellation: cancellation, temporaryFolder: temporaryFolder)
    }
}
