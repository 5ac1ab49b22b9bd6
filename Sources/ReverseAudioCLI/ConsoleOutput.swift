import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Serialised writing to standard output and standard error (progress arrives from a worker
/// thread while results are printed from the main task).
package enum Console {
    private static let lock = NSLock()
    // Set once, before a command runs (`--quiet`), read from any thread: under `lock`.
    nonisolated(unsafe) private static var quiet = false

    /// True under `--quiet`: results, warnings and progress are not printed (errors are).
    static var isQuiet: Bool {
        get { lock.lock(); defer { lock.unlock() }; return quiet }
        set { lock.lock(); quiet = newValue; lock.unlock() }
    }

    package static func out(_ line: String) {
        write(line + "\n", to: FileHandle.standardOutput)
    }

    package static func error(_ line: String) {
        write(line + "\n", to: FileHandle.standardError)
    }

    static func errorRaw(_ text: String) {
        write(text, to: FileHandle.standardError)
    }

    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// True when `path` is where standard output goes (`/dev/stdout`, or the file or pipe it
    /// is redirected to): reports must then go to standard error, not into the audio.
    static func isStandardOutput(_ path: String) -> Bool {
        var output = stat()
        var named = stat()
        guard fstat(STDOUT_FILENO, &output) == 0, stat(path, &named) == 0 else { return false }
        return output.st_dev == named.st_dev && output.st_ino == named.st_ino
    }

    private static func write(_ text: String, to handle: FileHandle) {
        lock.lock()
        defer { lock.unlock() }
        // A reader that went away (`| head -1`) must not stop the work: drop the text.
        try? handle.write(contentsOf: Data(text.utf8))
    }
}
