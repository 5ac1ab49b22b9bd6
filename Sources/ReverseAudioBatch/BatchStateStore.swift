import Foundation
import ReverseAudioCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The records a batch keeps inside its output folder, one small JSON file per output under
/// ``folderName`` (`live/a-REVERSED.wav` → `.reverse-audio-state/live/a-REVERSED.wav.json`), so
/// that a rerun, another shard or a retried worker finds them wherever the manifest went.
///
/// One file per output (not one shared file) keeps shards from ever writing the same file, and
/// a skip costs one small read. Each record is written under a temporary name and renamed over
/// the old one, so a kill leaves the old record or the new, never half of one.
package struct BatchStateStore: Sendable {
    /// The hidden folder inside the output folder (hidden, so a walk of the output folder
    /// never takes it as input).
    package static let folderName = ".reverse-audio-state"

    /// The batch's output folder.
    package let outputFolder: URL

    /// The records of the batch writing into `outputFolder`.
    package init(outputFolder: URL) {
        self.outputFolder = outputFolder
    }

    /// Where the record of the output at `relativeOutput` lives.
    package func recordPath(for relativeOutput: String) -> String {
        outputFolder.path + "/" + Self.folderName + "/" + relativeOutput + ".json"
    }

    /// The most a record may hold: one is a few hundred bytes, so anything near this is not one,
    /// and is never read whole (a sparse file can say it holds gigabytes).
    package static let maximumRecordBytes = 64 * 1024

    /// The record of the output at `relativeOutput`, or nil when there is none, or it is damaged
    /// (not JSON, too big to be one, or the record of another output): then the output is
    /// treated as not the batch's own.
    /// - Throws: `InputError.unreadable(path:reason:)` when the state folder or the
    ///   record cannot be read (no permission, an I/O error) or leads out of the output folder
    ///   (a symbolic link): the output side's failure, which every input would meet.
    package func record(for relativeOutput: String) throws -> BatchRecord? {
        let path = recordPath(for: relativeOutput)
        guard try checkFolders(of: path, creating: false) else { return nil }
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            // Missing: no record. A link in its place (ELOOP) or anything else odd: damaged.
            if code == ENOENT || code == ELOOP || code == ENOTDIR || code == ENXIO { return nil }
            throw ReverseAudioError.input(.unreadable(path: path, reason: "cannot read the batch's state record (\(String(cString: strerror(code))))"))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG,
              status.st_size <= Self.maximumRecordBytes else { return nil }
        var bytes = [UInt8](repeating: 0, count: Self.maximumRecordBytes + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + count, $0.count - count) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else {
                throw ReverseAudioError.input(.unreadable(path: path, reason: "cannot read the batch's state record (\(String(cString: strerror(errno))))"))
            }
            if got == 0 { break }
            count += got
        }
        // Grown past the limit since it was measured: not a record either.
        guard count <= Self.maximumRecordBytes,
              let record = try? JSONDecoder().decode(BatchRecord.self, from: Data(bytes[0..<count])),
              // A record names its own output: one naming another (`../../tmp/x.wav`) is not this
              // output's, and its text is never repeated.
              record.output == relativeOutput else { return nil }
        return record
    }

    /// Claims the output at `relativeOutput` for this run until the claim is released (see
    /// ``OutputClaim``): nil while another live run holds it.
    /// - Throws: as ``save(_:)`` for a state folder that cannot be used.
    package func claim(_ relativeOutput: String) throws -> OutputClaim? {
        let path = recordPath(for: relativeOutput) + ".claim"
        _ = try checkFolders(of: path, creating: true)
        return try OutputClaim.claim(at: path)
    }

    /// Checks the folders from the output folder down to `path`'s: each must be a real folder
    /// (never a symbolic link, which would lead the records out of the output folder).
    /// - Parameter creating: make the missing ones (registered, so that a run stopped by a
    ///   signal removes the folders it made, when empty).
    /// - Returns: false when one is missing (and not made).
    private func checkFolders(of path: String, creating: Bool) throws -> Bool {
        let base = outputFolder.path
        let relative = (path as NSString).deletingLastPathComponent.dropFirst(base.count + 1)
        var folder = base
        for component in relative.split(separator: "/") {
            folder += "/" + component
            var status = stat()
            if lstat(folder, &status) != 0 {
                let code = errno
                guard code == ENOENT else {
                    throw ReverseAudioError.input(.unreadable(path: folder, reason: "cannot read the batch's state folder (\(String(cString: strerror(code))))"))
                }
                guard creating else { return false }
                do {
                    try ProcessCleanup.createFolder(URL(fileURLWithPath: folder, isDirectory: true))
                } catch let error as ReverseAudioError {
                    throw error
                } catch {
                    throw ReverseAudioError.output(.cannotCreateOutput(path: folder, reason: "cannot create the batch's state folder (\(Self.reason(error)))"))
                }
                continue
            }
            switch status.st_mode & S_IFMT {
            case S_IFDIR:
                continue
            case S_IFLNK:
                throw ReverseAudioError.input(.unreadable(path: folder, reason: "the batch's state folder is a symbolic link; its records are never read or written through one (remove it, or choose another output folder)"))
            default:
                throw ReverseAudioError.input(.unreadable(path: folder, reason: "the batch's state folder is not a folder (remove it, or choose another output folder)"))
            }
        }
        return true
    }

    /// Keeps `record` as the record of its output, atomically.
    package func save(_ record: BatchRecord) throws {
        let path = recordPath(for: record.output)
        let folder = (path as NSString).deletingLastPathComponent
        _ = try checkFolders(of: path, creating: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(record)
        // Our own temporary name, not Foundation's atomic write (whose `.dat.nosync…` file a
        // SIGKILL would leave for good): a killed run's `.reverse-audio-PID-….partial` is swept
        // by the next run that writes here.
        let folderURL = URL(fileURLWithPath: folder, isDirectory: true)
        OutputFile.removeStalePartials(in: folderURL)
        let claim = try OutputFile.reserveTemporaryName(in: folderURL, for: path)
        let temporary = claim.path
        defer {
            ProcessCleanup.unregister(file: temporary)
            claim.release()
        }
        do {
            try Self.write(data, to: temporary)
        } catch {
            unlink(temporary)
            throw ReverseAudioError.output(.writeFailed(path: path, reason: "cannot write the batch's state record (\(Self.reason(error)))"))
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw ReverseAudioError.output(.writeFailed(path: path, reason: "cannot write the batch's state record (\(reason))"))
        }
    }

    /// Writes all of `data` into the (empty, reserved) file at `path`.
    private static func write(_ data: Data, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_TRUNC)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        try handle.write(contentsOf: data)
    }

    /// The system's reason inside a Foundation error, when it has one.
    private static func reason(_ error: any Error) -> String {
        if let posix = error as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        if let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError,
           let code = POSIXErrorCode(rawValue: Int32(underlying.code)) {
            return String(cString: strerror(code.rawValue))
        }
        return (error as NSError).localizedDescription
    }
}
