import Foundation

/// Values made once per test process by key and shared: the first caller makes a value, any
/// caller at the same time awaits that making rather than starting another (no lock held
/// across the wait). A failure is not kept: the next caller tries again.
public final class OnceCache<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `making` is only touched under `lock`.
    private let lock = NSLock()
    private var making: [String: Task<Value, any Error>] = [:]

    public init() {}

    /// The value for `key`, made by `make` if no caller has made it yet.
    public func value(for key: String, make: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let task = lock.withLock {
            if let known = making[key] { return known }
            let task = Task { try await make() }
            making[key] = task
            return task
        }
        do {
            return try await task.value
        } catch {
            lock.withLock {
                if making[key] == task { making[key] = nil }
            }
            throw error
        }
    }
}
