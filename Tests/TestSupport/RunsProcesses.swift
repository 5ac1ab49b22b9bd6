import Testing

/// The trait of a suite whose tests start processes (the built tool, ffmpeg): at most
/// ``ProcessRunner/slots`` such tests run at once, each holding its slot from start to end.
///
/// Swift Testing starts every test at once; a test that awaits a process holds no thread, so
/// without this, hundreds would be in progress together, each queued for its next process
/// behind all the others: a test that times something (a server's answer, a key's effect)
/// would see the wait of the whole suite. A slot per test keeps each test's processes close
/// together, as they were when each test held a thread, and the in-process tests run beside.
public struct RunsProcessesTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        // A suite, or a parameterized function as a whole, holds nothing: each case takes a slot.
        guard testCase != nil, !ProcessRunner.holdsTestSlot else {
            try await function()
            return
        }
        await ProcessRunner.slots.acquire()
        do {
            try await ProcessRunner.$holdsTestSlot.withValue(true) { try await function() }
        } catch {
            ProcessRunner.slots.release()
            throw error
        }
        ProcessRunner.slots.release()
    }
}

extension Trait where Self == RunsProcessesTrait {
    /// See ``RunsProcessesTrait``.
    public static var runsProcesses: Self { Self() }
}
