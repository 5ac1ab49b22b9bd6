import Foundation
import ReverseAudio
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one cancellation rule of every command, installed before the command line is parsed:
///
/// 1. The first SIGINT (Ctrl-C), SIGTERM or SIGHUP (a closed terminal) sets ``flag`` and
///    cancels the work started through ``run(_:)``: the library stops at its next block (a
///    packet, a chunk of silence, a FIFO read, which never blocks: see `LocalPath`), removes
///    its partial output, and the command exits with 128 + the signal's number.
/// 2. A watchdog started by that signal ends the process ``watchdogDelay`` later whatever the
///    work is doing (a thread stuck in a read the kernel does not interrupt: a socket on
///    standard input, a device): it removes every registered partial and temporary file
///    (`ProcessCleanup`), restores the terminal and calls `_exit` with the same status.
/// 3. A second signal does that at once.
package enum SignalCancellation {
    /// The signals that stop the work cleanly.
    static let handledSignals = [SIGINT, SIGTERM, SIGHUP]
    /// How long the work has, after the first signal, to stop by itself.
    static let watchdogDelay: TimeInterval = 0.5

    /// Set by the first signal; work the tool runs without a task of its own polls it.
    static let flag = CancellationFlag()

    /// Installs the handlers (once, first thing in `main`).
    static func install() {
        // A write past `ulimit -f` must fail with EFBIG and be reported, and a closed pipe on
        // standard error must fail the write, not kill the process and strand a partial file.
        signal(SIGXFSZ, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
        state.install()
    }

    /// Runs `work` in a task that the signals above cancel (at once if one already came).
    package static func run<Result: Sendable>(_ work: @escaping @Sendable () async throws -> Result) async throws -> Result {
        let task = Task { try await work() }
        let token = state.register { task.cancel() }
        defer { state.unregister(token) }
        return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
    }

    /// Throws `CancellationError` once a signal came: for loops between pieces of work.
    static func check() throws {
        if flag.isCancelled { throw CancellationError() }
    }

    /// The signal that cancelled the work, if one did.
    static var receivedSignal: Int32? { state.firstSignal }

    /// The exit status for `signal`: 128 + its number (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP).
    static func status(for signal: Int32) -> Int32 { 128 + signal }

    fileprivate static let state = SignalState()

    /// Why the process is ended without the work stopping by itself.
    enum Termination {
        /// The work did not stop within ``watchdogDelay`` of the first signal. Said as that
        /// fact alone: the tool cannot tell a read the kernel does not interrupt from work
        /// that does not poll the cancellation.
        case watchdog
        /// A second signal asked for an end at once.
        case secondSignal(Int32)
    }

    /// Ends the process now: registered files removed, terminal restored, one line said.
    /// - Parameters:
    ///   - signal: the first signal, whose exit status is used.
    ///   - termination: why the work is not waited for.
    static func terminate(signal: Int32, _ termination: Termination) -> Never {
        ProcessCleanup.removeAll()
        ByteNames.removeAliases()
        RawTerminal.restore()
        let why: String
        switch termination {
        case .watchdog:
            why = "the work did not stop within \(watchdogDelay) s of it, so it was ended there"
        case .secondSignal(let second):
            why = "\(second == signal ? "a second one" : "then \(signalName(second))") ended the work at once"
        }
        let line = "reverse-audio: error: stopped by \(signalName(signal)): \(why); unfinished files were removed\n"
        _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        _exit(status(for: signal))
    }

    /// "SIGINT", "SIGTERM", "SIGHUP".
    static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        case SIGHUP: return "SIGHUP"
        default: return "signal \(signal)"
        }
    }
}

/// The write end of the pipe the signal handlers write to: set once by `install()` before any
/// handler is, read only by the handlers.
private nonisolated(unsafe) var signalPipe: Int32 = -1

/// The first signal, the cancellations to run on it, the watchdog.
private final class SignalState: @unchecked Sendable {
    // @unchecked: every mutable property is only touched under `lock`.
    private let lock = NSLock()
    private var first: Int32?
    private var cancellations: [Int: @Sendable () -> Void] = [:]
    private var nextToken = 0

    var firstSignal: Int32? {
        lock.lock()
        defer { lock.unlock() }
        return first
    }

    /// Installs a handler for each signal that writes the signal's number into a pipe, and a
    /// thread that reads the pipe and acts. The handler is in place when this returns, so no
    /// signal is lost: a libdispatch signal source registers later, on its own thread, and a
    /// signal that came before (under SIG_IGN) was dropped. The pipe is the one thing a
    /// handler may safely do; everything else runs on the reading thread.
    func install() {
        var ends: [Int32] = [-1, -1]
        // No descriptor left at start: the signals keep their default, ending the process.
        guard pipe(&ends) == 0 else { return }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        // A full pipe (thousands of signals unread) drops the rest rather than block a handler.
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        signalPipe = ends[1]
        let readEnd = ends[0]
        let reader = Thread { [self] in
            var number: UInt8 = 0
            while true {
                let count = read(readEnd, &number, 1)
                if count == 1 {
                    handle(Int32(number))
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
        reader.name = "reverse-audio signals"
        reader.start()
        for number in SignalCancellation.handledSignals {
            // BSD semantics on Linux and macOS alike: the handler stays, interrupted reads restart.
            _ = signal(number) { received in
                let interrupted = errno  // the interrupted thread's, kept as a handler must
                var byte = UInt8(truncatingIfNeeded: received)
                _ = write(signalPipe, &byte, 1)
                errno = interrupted
            }
        }
    }

    func register(_ cancel: @escaping @Sendable () -> Void) -> Int {
        lock.lock()
        let token = nextToken
        nextToken += 1
        cancellations[token] = cancel
        let signalled = first != nil
        lock.unlock()
        if signalled { cancel() }
        return token
    }

    func unregister(_ token: Int) {
        lock.lock()
        cancellations[token] = nil
        lock.unlock()
    }

    private func handle(_ number: Int32) {
        lock.lock()
        guard first == nil else {
            let signal = first!
            lock.unlock()
            SignalCancellation.terminate(signal: signal, .secondSignal(number))
        }
        first = number
        let pending = Array(cancellations.values)
        lock.unlock()
        SignalCancellation.flag.cancel()
        pending.forEach { $0() }
        let watchdog = Thread {
            Thread.sleep(forTimeInterval: SignalCancellation.watchdogDelay)
            SignalCancellation.terminate(signal: number, .watchdog)
        }
        watchdog.name = "reverse-audio signal watchdog"
        watchdog.start()
    }
}
