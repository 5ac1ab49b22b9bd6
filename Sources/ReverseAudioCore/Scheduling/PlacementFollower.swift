import Foundation

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
        case declined(String)
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
