import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libFuzzer's entry point: each input is written to a file and run through
/// ``FuzzedOperations/run(input:output:variant:)``.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    Workspace.shared.run(UnsafeBufferPointer(start: data, count: size))
    return 0
}

/// A folder of this process's own, `$TMPDIR/reverse-audio-fuzz-PID`, holding only the input
/// between runs. It is also made this process's `TMPDIR`, so that any temporary file the
/// library creates lands where the check after each run sees it.
final class Workspace: Sendable {
    /// Made on the first input, not in LLVMFuzzerInitialize: with -fork the parent process
    /// runs no inputs and must keep its own TMPDIR.
    static let shared = Workspace()

    let folder: URL
    let input: URL
    let output: URL
    static let inputName = "input"

    private init() {
        let base = FileManager.default.temporaryDirectory
        Workspace.removeStaleFolders(in: base)
        folder = base.appendingPathComponent("reverse-audio-fuzz-\(getpid())", isDirectory: true)
        try? FileManager.default.removeItem(at: folder)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            fatalError("cannot create \(folder.path): \(error)")
        }
        input = folder.appendingPathComponent(Workspace.inputName)
        output = folder.appendingPathComponent("reversed.wav")
        setenv("TMPDIR", folder.path, 1)
        atexit { try? FileManager.default.removeItem(at: Workspace.shared.folder) }
        FuzzedOperations.setUp()
    }

    func run(_ bytes: UnsafeBufferPointer<UInt8>) {
        let created = FileManager.default.createFile(atPath: input.path, contents: Data(buffer: bytes))
        precondition(created, "cannot write \(input.path)")
        let variant = FuzzedOperations.Variant(inputSize: bytes.count)

        let descriptors = Workspace.openDescriptorCount()
        FuzzedOperations.run(input: input, output: output, variant: variant)
        checkNothingLeftBehind()
        // A descriptor opened once and kept (a lazily opened device, a log) is not a leak; one
        // more per run is. Run once more to tell them apart.
        if Workspace.openDescriptorCount() > descriptors {
            let again = Workspace.openDescriptorCount()
            FuzzedOperations.run(input: input, output: output, variant: variant)
            checkNothingLeftBehind()
            let after = Workspace.openDescriptorCount()
            FuzzedOperations.check(after <= again, "file descriptors leaked: \(again) open before a run, \(after) after")
        }
        unlink(input.path)
    }

    /// Only the input may remain: a `.partial` output or a temporary PCM file is a cleanup bug.
    private func checkNothingLeftBehind() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let leftovers = names.filter { $0 != Workspace.inputName }
        FuzzedOperations.check(leftovers.isEmpty, "files left behind in \(folder.path): \(leftovers.sorted())")
    }

    private static func openDescriptorCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    /// Folders of earlier fuzzing processes that crashed (their PID no longer exists).
    private static func removeStaleFolders(in base: URL) {
        let prefix = "reverse-audio-fuzz-"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? []
        for name in names where name.hasPrefix(prefix) {
            guard let pid = pid_t(name.dropFirst(prefix.count)), pid != getpid(),
                  kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: base.appendingPathComponent(name))
        }
    }
}
