import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A run sweeps away only the `.partial` files no live run holds, whatever PID namespace or host
/// the other run is in: each writer holds an exclusive `flock` on its partial, and a partial is
/// removed only when that lock can be had. It used to trust `kill(pid, 0)`, so a run in another
/// PID namespace (or on another host sharing the folder) removed a live run's partial, which
/// then failed "could not move the finished file into place" (issue 28, item 3).
@Suite(.serialized, .runsProcesses) struct PartialOwnershipTests {
    static let input = Fixtures.url("wav-pcm_s16le-1ch-8000.wav")

    /// A PID that names no process here (one that has exited).
    static func deadPID() async throws -> pid_t {
        let finished = Process()
        finished.executableURL = URL(fileURLWithPath: "/bin/true")
        try finished.run()
        await finished.exited()
        return finished.processIdentifier
    }

    /// Opens `url` and takes its exclusive lock without waiting: the descriptor, or nil when
    /// another holds the lock.
    static func lock(_ url: URL) throws -> Int32? {
        let descriptor = open(url.path, O_RDWR)
        try #require(descriptor >= 0, "open \(url.path): \(String(cString: strerror(errno)))")
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return descriptor }
        let code = errno
        close(descriptor)
        try #require(code == EWOULDBLOCK, "flock: \(String(cString: strerror(code)))")
        return nil
    }

    @Test("a partial whose writer holds its lock is kept though its PID names nobody here; once the lock goes, it is swept")
    func heldPartialIsKept() async throws {
        let directory = try TemporaryDirectory()
        let partial = directory.file(".reverse-audio-\(try await Self.deadPID())-1a2b3c.partial")
        try Data("a run in another PID namespace is writing this".utf8).write(to: partial)
        let held = try #require(try Self.lock(partial))
        let first = try await CLI.convert(Self.input, directory.file("a.wav"), reverse: false)
        #expect(first.status == 0, "\(first.errorText)")
        #expect(directory.contents == [partial.lastPathComponent, "a.wav"].sorted())
        close(held)
        let second = try await CLI.convert(Self.input, directory.file("b.wav"), reverse: false)
        #expect(second.status == 0, "\(second.errorText)")
        #expect(directory.contents == ["a.wav", "b.wav"])
    }

    @Test("a running conversion holds the lock on its partial; a SIGKILL releases it")
    func writerHoldsTheLock() async throws {
        let directory = try TemporaryDirectory()
        let long = try await LongInputs.mp3FourMinutes().path
        let tool = try RunningTool(["convert", long, directory.file("out.flac").path, "--reverse", "--threads", "1"])
        // Stopped the moment its partial shows: on a fast machine the run can finish between
        // two looks at the folder, and a stopped process still holds its locks.
        var seen: String?
        let started = await tool.wait(upTo: 30) {
            seen = directory.contents.first { $0.hasSuffix(".partial") }
            if seen != nil { kill(tool.process.processIdentifier, SIGSTOP) }
            return seen != nil
        }
        try #require(started, "convert never got going: \(tool.errorText)")
        let partial = directory.file(try #require(seen))
        try #require(FileManager.default.fileExists(atPath: partial.path), "convert finished before it could be stopped")
        let whileRunning = try Self.lock(partial)
        #expect(whileRunning == nil, "the lock on \(partial.lastPathComponent) was free while convert wrote it")
        if let whileRunning { close(whileRunning) }
        _ = await tool.stop(with: SIGKILL)
        let afterKill = try Self.lock(partial)
        #expect(afterKill != nil, "the lock outlived the run")
        if let afterKill { close(afterKill) }
    }

    /// True when this process may make a PID namespace (`unshare`, as root).
    static func canUnshare() async -> Bool {
        (try? await ProcessRunner.run("unshare", ["--pid", "--fork", "--mount-proc", "true"]).status) == 0
    }

    @Test("a run in another PID namespace leaves a live run's partial alone", .enabled { await canUnshare() })
    func otherNamespace() async throws {
        let directory = try TemporaryDirectory()
        let long = try await LongInputs.mp3FourMinutes().path
        let output = directory.file("long.flac")
        let tool = try RunningTool(["convert", long, output.path, "--reverse", "--threads", "1"])
        let started = await tool.wait(upTo: 30) { directory.contents.contains { $0.hasSuffix(".partial") } }
        try #require(started, "convert never got going: \(tool.errorText)")
        // The run in the other namespace sees no process with the first run's PID.
        let other = try await ProcessRunner.run("unshare", ["--pid", "--fork", "--mount-proc", BuiltProducts.reverseAudio.path,
                                                      "convert", Self.input.path, directory.file("short.wav").path])
        #expect(other.status == 0, "\(other.errorText)")
        #expect(directory.contents.contains { $0.hasSuffix(".partial") } || tool.hasExited, "the live run's partial was removed")
        #expect(await tool.waitUntilExit(timeout: 120))
        #expect(tool.process.terminationStatus == 0, "\(tool.errorText)")
        #expect(directory.contents == ["long.flac", "short.wav"])
    }
}
