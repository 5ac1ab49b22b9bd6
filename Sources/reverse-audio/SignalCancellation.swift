import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `work` in a task that Ctrl-C (SIGINT), SIGTERM or a closed terminal (SIGHUP) cancels,
/// so the library removes its partial output before the process exits.
enum SignalCancellation {
    /// The signals that stop the work cleanly.
    static let handledSignals = [SIGINT, SIGTERM, SIGHUP]

    static func run<Result: Sendable>(_ work: @escaping @Sendable () async throws -> Result) async throws -> Result {
        // A write past `ulimit -f` must fail with EFBIG and be reported, and a closed pipe on
        // standard error must fail the write, not kill the process and strand a partial file.
        signal(SIGXFSZ, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
        let task = Task { try await work() }
        let sources = handledSignals.map { number -> DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                received.set(number)
                task.cancel()
            }
            source.resume()
            return source
        }
        defer { sources.forEach { $0.cancel() } }
        return try await task.value
    }

    /// The signal that cancelled the work, if one did.
    static var receivedSignal: Int32? { received.value }

    private static let received = SignalBox()
}

/// The number of the first signal received, shared between the signal queue and the main task.
private final class SignalBox: @unchecked Sendable {
    // @unchecked: `number` is only touched under `lock`.
    private let lock = NSLock()
    private var number: Int32?

    func set(_ value: Int32) {
        lock.lock()
        if number == nil { number = value }
        lock.unlock()
    }

    var value: Int32? {
        lock.lock()
        defer { lock.unlock() }
        return number
    }
}
