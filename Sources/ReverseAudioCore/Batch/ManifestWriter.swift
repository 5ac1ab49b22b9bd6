import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Appends one JSON line per input to a manifest that several processes (the shards of one
/// batch) may append to at once.
///
/// The file is opened with `O_APPEND`, so every write lands at the end as it is then, and each
/// line goes out in a single `write(2)` under an exclusive `flock`: two processes' lines never
/// interleave, however long they are and whatever file system rules say about `PIPE_BUF`.
public final class ManifestWriter: @unchecked Sendable {
    // @unchecked: `descriptor` is only written to under `lock` (the tasks of one process share it;
    // flock does not exclude threads of the same process from each other).
    private let descriptor: Int32
    private let lock = NSLock()
    /// The manifest's path, as given.
    public let path: String

    /// Opens (creating it if missing) the manifest at `path` for appending.
    public init(path: String) throws {
        self.path = path
        descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw ReverseAudioError.cannotCreateOutput(path: path, reason: "cannot open the manifest (\(String(cString: strerror(errno))))")
        }
    }

    deinit {
        close(descriptor)
    }

    /// The first byte of the regular file at `path` (a manifest's is `{`); nil when it is
    /// missing, empty, unreadable or not a regular file (a FIFO is never opened here: that would
    /// wait for a writer).
    public static func firstByte(of path: String) -> UInt8? {
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, status.st_size > 0 else { return nil }
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var byte: UInt8 = 0
        return read(descriptor, &byte, 1) == 1 ? byte : nil
    }

    /// Appends `record` as one line.
    public func append(_ record: BatchRecord) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var line = try encoder.encode(record)
        line.append(UInt8(ascii: "\n"))
        lock.lock()
        defer { lock.unlock() }
        flock(descriptor, LOCK_EX)
        defer { flock(descriptor, LOCK_UN) }
        let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == line.count else {
            let reason = written < 0 ? String(cString: strerror(errno)) : "only \(written) of \(line.count) bytes written"
            throw ReverseAudioError.writeFailed(path: path, reason: "cannot append to the manifest (\(reason))")
        }
    }
}
