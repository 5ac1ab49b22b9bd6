import Foundation

/// A thread-safe "stop now" flag shared between a Swift task and the thread doing blocking work.
public final class CancellationFlag: @unchecked Sendable {
    // @unchecked: the only state is `cancelled`, guarded by `lock`.
    private let lock = NSLock()
    private var cancelled = false

    /// A flag that is not set.
    public init() {}

    /// Asks the work to stop.
    public func cancel() {
        lock.lock()
        cancelled = true
        lock.unlock()
    }

    /// True once ``cancel()`` was called.
    public var isCancelled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return cancelled
    }

    /// A check that can be handed to FFmpeg-facing code.
    package var check: @Sendable () -> Bool { { [self] in isCancelled } }
}
