import Foundation
import ReverseAudioCore
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
///
/// A line is written whole or not at all: a write cut short (a full disk, a file size limit)
/// is taken back to where the line began. A manifest that already ends in a torn line (a run
/// killed mid-write, or one of an earlier version on a full disk) has that fragment removed
/// before the next line, so every line stays a JSON object (`jq` reads them all).
///
/// A FIFO is opened when the first line is written, not before the work: opening one for
/// writing waits for its reader, which may come only once there is something to read.
package final class ManifestWriter: @unchecked Sendable {
    // @unchecked: `descriptor` is only touched under `lock` (the tasks of one process share it;
    // flock does not exclude threads of the same process from each other).
    /// -1 until a FIFO is opened.
    private var descriptor: Int32
    private let lock = NSLock()
    /// Polled while waiting for a FIFO's reader: a signal stops the wait.
    private let isCancelled: @Sendable () -> Bool
    /// False for a FIFO or a device: appended to as it is, never read back or cut.
    private let isRegularFile: Bool
    /// Told (once per fragment) when a torn last line was removed, with what to say.
    private let onRepair: (@Sendable (String) -> Void)?
    /// The manifest's path, as given.
    package let path: String

    /// Opens (creating it if missing) the manifest at `path` for appending; a FIFO is opened
    /// at the first line.
    /// - Parameters:
    ///   - onRepair: told when a torn last line is removed (to warn about it).
    ///   - isCancelled: polled while a FIFO waits for its reader; once true, the wait throws
    ///     `CancellationError`.
    package init(path: String, onRepair: (@Sendable (String) -> Void)? = nil,
                isCancelled: @escaping @Sendable () -> Bool = { false }) throws {
        self.path = path
        self.onRepair = onRepair
        self.isCancelled = isCancelled
        var status = stat()
        let isSpecial = stat(path, &status) == 0 && (status.st_mode & S_IFMT) != S_IFREG
        if isSpecial && (status.st_mode & S_IFMT) == S_IFIFO {
            descriptor = -1
            isRegularFile = false
            return
        }
        // A regular file is opened for reading too, to find and cut a torn last line; a FIFO or
        // a device only for writing (reading a FIFO would take the lines meant for its reader).
        var opened = open(path, (isSpecial ? O_WRONLY : O_RDWR) | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        if opened < 0 && !isSpecial && errno == EACCES {
            // A file we may append to but not read: appended to as it is.
            opened = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        }
        guard opened >= 0 else {
            throw ReverseAudioError.output(.cannotCreateOutput(path: path, reason: "cannot open the manifest (\(String(cString: strerror(errno))))"))
        }
        descriptor = opened
        isRegularFile = fstat(opened, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Opens the FIFO at ``path`` for writing (the caller holds `lock`), waiting for a reader
    /// without blocking, so that a signal still stops the wait.
    private func openFIFO() throws {
        while true {
            let opened = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if opened >= 0 {
                // Written as any pipe from now on: a full pipe waits for its reader.
                _ = fcntl(opened, F_SETFL, fcntl(opened, F_GETFL) & ~O_NONBLOCK)
                descriptor = opened
                return
            }
            guard errno == ENXIO || errno == EINTR else {
                throw ReverseAudioError.output(.cannotCreateOutput(path: path, reason: "cannot open the manifest (\(String(cString: strerror(errno))))"))
            }
            if isCancelled() { throw CancellationError() }
            usleep(20_000)
        }
    }

    /// The first byte of the regular file at `path` (a manifest's is `{`); nil when it is
    /// missing, empty, unreadable or not a regular file (a FIFO is never opened here: that would
    /// wait for a writer).
    package static func firstByte(of path: String) -> UInt8? {
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, status.st_size > 0 else { return nil }
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var byte: UInt8 = 0
        return read(descriptor, &byte, 1) == 1 ? byte : nil
    }

    /// Appends `record` as one line.
    package func append(_ record: BatchRecord) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var line = try encoder.encode(record)
        line.append(UInt8(ascii: "\n"))
        lock.lock()
        defer { lock.unlock() }
        if descriptor < 0 { try openFIFO() }
        flock(descriptor, LOCK_EX)
        defer { flock(descriptor, LOCK_UN) }
        // Under the lock, the end cannot move but by this write.
        let start = isRegularFile ? removeTornLastLine() : nil
        let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == line.count else {
            let reason = written < 0 ? String(cString: strerror(errno)) : "only \(written) of \(line.count) bytes written"
            // Whole or not at all: a shorter file never needs space, so this takes the fragment back.
            if written > 0, let start { ftruncate(descriptor, start) }
            throw ReverseAudioError.output(.writeFailed(path: path, reason: "cannot append to the manifest (\(reason); no part of the line was kept)"))
        }
    }

    /// Cuts the file after its last newline when it does not end with one, and returns its end.
    private func removeTornLastLine() -> off_t? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        let size = status.st_size
        guard size > 0 else { return 0 }
        var end: UInt8 = 0
        guard pread(descriptor, &end, 1, size - 1) == 1 else { return nil }
        if end == UInt8(ascii: "\n") { return size }
        // Back to the newline before the fragment (or the start of the file), a block at a time.
        var cut: off_t = 0
        var blockEnd = size
        var block = [UInt8](repeating: 0, count: 4096)
        search: while blockEnd > 0 {
            let blockStart = max(0, blockEnd - off_t(block.count))
            let count = Int(blockEnd - blockStart)
            guard pread(descriptor, &block, count, blockStart) == count else { return nil }
            for index in stride(from: count - 1, through: 0, by: -1) where block[index] == UInt8(ascii: "\n") {
                cut = blockStart + off_t(index) + 1
                break search
            }
            blockEnd = blockStart
        }
        guard ftruncate(descriptor, cut) == 0 else { return nil }
        onRepair?("it ended in a torn line (\(size - cut) bytes, left by a run that stopped mid-write); removed, so that every line is whole")
        return cut
    }
}
