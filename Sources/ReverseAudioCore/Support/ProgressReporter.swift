import Foundation

/// A progress callback: a fraction of the work in 0...1.
public typealias ProgressHandler = @Sendable (Double) -> Void

/// Forwards progress so that it never decreases, moves in steps of about 1% (never thousands
/// of calls per second), and reaches exactly 1.0 only when the caller says the work is done.
package final class ProgressReporter: @unchecked Sendable {
    // @unchecked: mutable state is only touched under `lock`.
    private let handler: ProgressHandler?
    private let step: Double
    private let lock = NSLock()
    private var lastReported = -1.0
    private var reachedEnd = false

    package init(_ handler: ProgressHandler?, step: Double = 0.01) {
        self.handler = handler
        self.step = step
    }

    /// Reports `fraction` of the work done, capped below 1 (only ``complete()`` reports 1).
    package func update(_ fraction: Double) {
        // NaN (a share of nothing) says nothing; passed on, it would stop every later report.
        guard let handler, !fraction.isNaN else { return }
        let capped = min(max(fraction, 0), 0.999)
        lock.lock()
        guard !reachedEnd, lastReported < 0 || capped >= lastReported + step else {
            lock.unlock()
            return
        }
        lastReported = capped
        lock.unlock()
        handler(capped)
    }

    /// Reports exactly 1.0, once.
    package func complete() {
        guard let handler else { return }
        lock.lock()
        let first = !reachedEnd
        reachedEnd = true
        lock.unlock()
        if first { handler(1.0) }
    }

    /// Maps the progress of one stage of the work into its share of the whole.
    package func stage(from start: Double, to end: Double) -> ProgressHandler {
        { [self] fraction in update(start + (end - start) * min(max(fraction, 0), 1)) }
    }
}
