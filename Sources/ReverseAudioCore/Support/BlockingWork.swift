import Foundation

/// Runs blocking FFmpeg work on a dedicated thread so it never occupies Swift's cooperative
/// thread pool, and turns task cancellation into a flag the work polls.
///
/// ```swift
/// let frames = try await BlockingWork.run { flag in
///     try renderer.render(toFile: output, cancellation: flag)
/// }
/// ```
package enum BlockingWork {
    /// Runs `work` on a thread of its own and returns what it returns; cancelling the calling
    /// task sets the flag `work` is given (the library's operations stop within a packet).
    package static func run<Result: Sendable>(
        _ work: @escaping @Sendable (CancellationFlag) throws -> Result
    ) async throws -> Result {
        let flag = CancellationFlag()
        return try await withTaskCancellationHandler {
            try Task.checkCancellation()
            return try await withCheckedThrowingContinuation { continuation in
                let thread = Thread {
                    continuation.resume(with: Swift.Result { try work(flag) })
                }
                thread.name = "ReverseAudio"
                thread.stackSize = 8 << 20
                thread.start()
            }
        } onCancel: {
            flag.cancel()
        }
    }
}
