import Foundation

/// Values appended from any thread (a callback's, a worker's), read back in the order they came:
/// what a test keeps of a `@Sendable` closure's calls.
public final class Collected<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: [Value] = []

    public init() {}

    /// Keeps `value` after those before it.
    public func append(_ value: Value) {
        lock.withLock { stored.append(value) }
    }

    /// What was appended, in order.
    public var values: [Value] {
        lock.withLock { stored }
    }
}
