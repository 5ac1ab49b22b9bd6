import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The tool started in the background with a private temporary folder, to be signalled while
/// it works or waits: what it printed, when it ended, and how.
final class RunningTool: @unchecked Sendable {
    // @unchecked: `errorData` and `ended` are only touched under `lock`.
    let process = Process()
    /// The run's own TMPDIR: anything the tool leaves there is a leak.
    let temporary: TemporaryDirectory
    private let lock = NSLock()
    private var errorData = Data()
    private var ended: Date?
    /// Raised once standard error is read to its end.
    private let drained = AsyncFlag()

    /// - Parameters:
    ///   - arguments: the tool's arguments.
    ///   - directory: the current folder.
    ///   - standardInput: what the tool reads as standard input (default: nothing, at its end).
    init(_ arguments: [String], in directory: URL? = nil, standardInput: Any? = nil) throws {
        temporary = try TemporaryDirectory()
        process.executableURL = BuiltProducts.reverseAudio
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = temporary.url.path
        process.environment = environment
        let standardError = Pipe()
        process.standardError = standardError
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = standardInput ?? FileHandle.nullDevice
        process.terminationHandler = { [weak self] _ in
            guard let self else { return }
            lock.withLock { ended = Date() }
        }
        let reader = standardError.fileHandleForReading
        try process.run()
        DispatchQueue.global().async { [self] in
            while case let data = reader.availableData, !data.isEmpty {
                lock.withLock { errorData.append(data) }
            }
            drained.raise()
        }
    }

    var errorText: String {
        lock.withLock { String(decoding: errorData, as: UTF8.self) }
    }

    var hasExited: Bool {
        lock.withLock { ended != nil }
    }

    /// Waits until `condition` holds (checked every 10 ms) or the tool exits; false on timeout.
    func wait(upTo seconds: Double = 10, until condition: () -> Bool) async -> Bool {
        await poll(upTo: seconds) { condition() || hasExited } && condition()
    }

    /// Polls (every 10 ms, without holding a thread) until `condition` holds; false after `seconds`.
    private func poll(upTo seconds: Double, until condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    /// True once the tool holds `path` open (a FIFO it reads, a file it writes).
    func holdsOpen(_ path: String) -> Bool {
        let folder = "/proc/\(process.processIdentifier)/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let wanted = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        return names.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + $0)) == wanted }
    }

    /// Sends `signal` and waits for the exit: the seconds it took (nil: not within 10 s; the
    /// tool is then killed).
    func stop(with signal: Int32) async -> Double? {
        let sent = Date()
        // Never signal a PID whose process has ended: the system may have given it to another.
        if !hasExited { kill(process.processIdentifier, signal) }
        guard await poll(upTo: 10, until: { hasExited }) else {
            kill(process.processIdentifier, SIGKILL)
            await process.exited()
            return nil
        }
        await drained.wait(upTo: 5)
        return lock.withLock { ended.map { $0.timeIntervalSince(sent) } }
    }

    /// Waits for the tool to end by itself.
    func waitUntilExit(timeout: Double = 60) async -> Bool {
        guard await poll(upTo: timeout, until: { hasExited }) else {
            kill(process.processIdentifier, SIGKILL)
            await process.exited()
            return false
        }
        await drained.wait(upTo: 5)
        return true
    }

    /// What the tool left in its temporary folder.
    var temporaryLeftovers: [String] { temporary.contents }
}

/// Makes a FIFO at `url`.
func makeFIFO(_ url: URL) throws {
    try #require(mkfifo(url.path, 0o644) == 0, "mkfifo \(url.path): \(String(cString: strerror(errno)))")
}

/// Creates (or replaces) a file whose name is `bytes` (which need not be UTF-8) in `folder`,
/// holding `contents`.
func writeFile(named bytes: [UInt8], in folder: URL, contents: Data) throws {
    let path = Array(folder.path.utf8) + [UInt8(ascii: "/")] + bytes
    let descriptor = (path.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer {
        open($0.baseAddress!, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    }
    try #require(descriptor >= 0, "cannot create the file: \(String(cString: strerror(errno)))")
    defer { close(descriptor) }
    let written = contents.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    try #require(written == contents.count)
}

/// Names in `folder` as raw bytes (FileManager would mangle those that are not UTF-8).
func rawNames(in folder: URL) -> [[UInt8]] {
    guard let stream = opendir(folder.path) else { return [] }
    defer { closedir(stream) }
    var names: [[UInt8]] = []
    while let entry = readdir(stream) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
        if name != [46] && name != [46, 46] { names.append(name) }
    }
    return names.sorted { $0.lexicographicallyPrecedes($1) }
}

/// Runs `script` with /bin/sh, the built tool as `$TOOL`: for arguments that are not UTF-8
/// (Process takes Strings), written with printf's octal escapes.
func runShell(_ script: String, in directory: URL) async throws -> ProcessResult {
    try await ProcessRunner.run("/bin/sh", ["-c", script], currentDirectory: directory,
                          environment: ProcessInfo.processInfo.environment.merging(["TOOL": BuiltProducts.reverseAudio.path]) { $1 })
}
