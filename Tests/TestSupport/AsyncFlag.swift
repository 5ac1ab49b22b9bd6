import Foundation

/// A flag one thread raises (a reader at a pipe's end, a process's exit handler) and a test
/// awaits without holding a thread: a semaphore for tests that must not block Swift's pool.
public final class AsyncFlag: @unchecked Sendable {
    // @unchecked: `raised` is only touched under `lock`.
    private let lock = NSLock()
    private var raised = false

    public init() {}

    /// Raises the flag; it stays raised.
    public func raise() { lock.withLock { raised = true } }

    public var isRaised: Bool { lock.withLock { raised } }

    /// Waits (checking every 5 ms) until the flag is raised; false if it was not within `seconds`.
    @discardableResult
    public func wait(upTo seconds: Double = .infinity) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !isRaised {
            guard Date() < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }
}
