import Dispatch

/// Runs blocking work (opening and decoding files) on threads of its own, never on the
/// cooperative pool that answers requests: a decode that waits on the disk must not hold up
/// every other client.
enum OffThread {
    fileprivate static let queue = DispatchQueue(label: "reverse-audio.serve.decode", attributes: .concurrent)

    /// `work`'s result, computed on the decoding queue.
    static func run<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Swift.Result { try work() }) }
        }
    }
}

extension OffThread {
    /// `work`'s result, computed on the decoding queue (work that cannot fail).
    static func runNonThrowing<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: work()) }
        }
    }
}
