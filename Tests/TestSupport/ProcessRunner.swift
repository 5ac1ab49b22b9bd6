import Foundation

/// Runs a program to completion and captures what it printed.
public struct ProcessResult: Sendable {
    public let status: Int32
    public let standardOutput: Data
    public let standardError: Data

    public var outputText: String { String(decoding: standardOutput, as: UTF8.self) }
    public var errorText: String { String(decoding: standardError, as: UTF8.self) }
}

public enum ProcessRunner {
    /// Runs `executable` (a path, or a name looked up on PATH) with `arguments`.
    ///
    /// The wait happens on a thread of its own, never on one of Swift's cooperative threads: a
    /// test awaiting a process leaves the pool to the tests that compute, so a continuation is
    /// not starved while the machine is busy. Outside a `.runsProcesses` test at most ``slots``
    /// processes run at once; the rest wait their turn without holding a thread.
    public static func run(_ executable: String, _ arguments: [String], currentDirectory: URL? = nil,
                           environment: [String: String]? = nil) async throws -> ProcessResult {
        let work: @Sendable () throws -> ProcessResult = {
            try runToEnd(executable, arguments, currentDirectory: currentDirectory, environment: environment)
        }
        // A test of a `.runsProcesses` suite holds a slot already, for all its processes.
        guard !holdsTestSlot else { return try await onThreadOfItsOwn(work) }
        await slots.acquire()
        do {
            let result = try await onThreadOfItsOwn(work)
            slots.release()
            return result
        } catch {
            slots.release()
            throw error
        }
    }

    /// How many tests of `.runsProcesses` suites (or processes, outside them) run at once: as
    /// many as the machine has cores, as many as ran when each such test held a pool thread.
    /// The signal tests time a tool's stop in tenths of a second; more beside them made that flaky.
    public static let slots = AsyncSlots(ProcessInfo.processInfo.activeProcessorCount)

    /// True inside a test of a `.runsProcesses` suite, which holds one of ``slots``.
    @TaskLocal public static var holdsTestSlot = false

    /// `work`, which blocks (a process's exit, a pipe read to its end), done on a new thread
    /// while the caller's task is suspended.
    public static func onThreadOfItsOwn<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try work() })
            }
        }
    }

    private static func runToEnd(_ executable: String, _ arguments: [String], currentDirectory: URL?,
                                 environment: [String: String]?) throws -> ProcessResult {
        let process = Process()
        if executable.contains("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        if let environment { process.environment = environment }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Both pipes read at once, so neither fills up and blocks the child.
        let errorData = Collected<Data>()
        let errorRead = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            errorData.append(error.fileHandleForReading.readDataToEndOfFile())
            errorRead.signal()
        }
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        errorRead.wait()
        process.waitUntilExit()
        return ProcessResult(status: process.terminationStatus, standardOutput: outputData,
                             standardError: errorData.values.first ?? Data())
    }
}

extension Process {
    /// Waits for the process to end on a thread of its own (see
    /// ``ProcessRunner/run(_:_:currentDirectory:environment:)``); its exit status.
    @discardableResult
    public func exited() async -> Int32 {
        let process = UncheckedProcess(self)
        return (try? await ProcessRunner.onThreadOfItsOwn {
            process.value.waitUntilExit()
            return process.value.terminationStatus
        }) ?? -1
    }
}

extension FileHandle {
    /// Everything until the other end closes, read on a thread of its own.
    public func dataUntilClosed() async -> Data {
        let handle = UncheckedHandle(self)
        return (try? await ProcessRunner.onThreadOfItsOwn { handle.value.readDataToEndOfFile() }) ?? Data()
    }
}

/// A process handed to the thread that waits for it. @unchecked: that thread only waits for it
/// and reads its status, which Foundation guards.
private struct UncheckedProcess: @unchecked Sendable {
    let value: Process
    init(_ value: Process) { self.value = value }
}

/// A file handle handed to the thread that reads it to its end, the only one to read it.
private struct UncheckedHandle: @unchecked Sendable {
    let value: FileHandle
    init(_ value: FileHandle) { self.value = value }
}
