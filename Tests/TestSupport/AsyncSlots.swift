import Foundation

/// A counting semaphore for tasks: ``acquire()`` suspends the task (it holds no thread) until
/// one of the slots is free. What bounds how many processes the suite runs at once.
public final class AsyncSlots: @unchecked Sendable {
    // @unchecked: `free` and `waiting` are only touched under `lock`.
    private let lock = NSLock()
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init(_ count: Int) {
        free = max(1, count)
    }

    /// Takes a slot, waiting for one when none is free.
    public func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = lock.withLock {
                if free > 0 {
                    free -= 1
                    return true
                }
                waiting.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    /// Gives a slot back: to the longest waiting task, or to the free ones.
    public func release() {
        let next = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            if waiting.isEmpty {
                free += 1
                return nil
            }
            return waiting.removeFirst()
        }
        next?.resume()
    }
}
