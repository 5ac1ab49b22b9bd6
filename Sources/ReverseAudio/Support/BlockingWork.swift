import Foundation

/// Runs blocking FFmpeg work on a dedicated thread so it never occupies Swift's cooperative
/// thread pool, and turns task cancellation into a flag the work polls.
enum BlockingWork {
    static func run<Result: Sendable>(
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
