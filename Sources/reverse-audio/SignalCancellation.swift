import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `work` in a task that Ctrl-C (SIGINT) or SIGTERM cancels, so the library removes its
/// partial output before the process exits.
enum SignalCancellation {
    static func run<Result: Sendable>(_ work: @escaping @Sendable () async throws -> Result) async throws -> Result {
        // A write past `ulimit -f` must fail with EFBIG and be reported, and a closed pipe on
        // standard error must fail the write, not kill the process and strand a partial file.
        signal(SIGXFSZ, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
        let task = Task { try await work() }
        let sources = [SIGINT, SIGTERM].map { number -> DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { task.cancel() }
            source.resume()
            return source
        }
        defer { sources.forEach { $0.cancel() } }
        return try await task.value
    }
}
