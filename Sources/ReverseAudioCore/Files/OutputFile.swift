import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where an output goes, and how it gets there without ever leaving a partial file or
/// replacing something that is not a regular file.
///
/// - A new name, or an existing regular file you may write (with `overwrite`; as `cp`, never
///   another user's read-only file), or a symbolic link to one: the
///   output is written under a short temporary name in the target's folder and published when
///   complete. Without `overwrite` the publication is a rename that refuses to replace (or a
///   hard link where that is missing), so of two concurrent runs exactly one wins; with it, a
///   rename replaces the old file atomically. A symbolic link is followed and its target
///   replaced, as `ffmpeg -y` does.
/// - A FIFO or a character device (`/dev/null`, a terminal), or one of this process's open
///   descriptors by name (`/dev/stdout`, `/dev/fd/N`: whatever the shell connected them to):
///   written in place, never replaced, and not seekable. A container whose header is completed
///   at the end (AIFF, CAF, M4A, MP3's gapless tag) is written to an unnamed temporary file
///   first and copied there when complete.
/// - Anything else (a folder, a socket, a block device, a link to a missing file) is refused.
package final class OutputFile {
    /// How the output reaches its destination.
    package enum Placement: Equatable {
        /// Written under ``OutputFile/temporaryURL`` and published by ``OutputFile/commit()``.
        case publishedAtomically
        /// Written directly into an existing special file (a pipe, a device, standard output).
        case writtenInPlace
        /// Written to an unnamed temporary file, then copied into an existing special file by
        /// ``OutputFile/commit()``: for containers that must seek back to finish their header.
        case spooled
    }

    /// The output as it was named.
    package let url: URL
    /// The file that is written or replaced: `url` with symbolic links resolved.
    package let target: URL
    package let placement: Placement
    /// Where the bytes are written until ``commit()``: a hidden `.reverse-audio-PID-RANDOM.partial`
    /// beside ``target``, ``target`` itself when written in place, or the descriptor of the
    /// unnamed spool file (`/dev/fd/N`) when spooled.
    package let temporaryURL: URL
    /// The unnamed file a spooled output is written to first.
    private let spool: TemporaryPCMFile?
    /// The lock held on the temporary file while it exists, so no other run sweeps it away.
    private let claim: OwnershipLock?
    private let overwrite: Bool
    package private(set) var isCommitted = false

    /// The prefix and suffix of every temporary name, short so that any valid output name can
    /// be written (the name itself is not repeated in the temporary one).
    package static let temporaryPrefix = ".reverse-audio-"
    package static let temporarySuffix = ".partial"

    /// Checks that `url` may be written and reserves the temporary name.
    /// - Parameters:
    ///   - overwrite: replace an existing regular file at `url`.
    ///   - inputs: files being read; `url` may never be one of them, even with `overwrite`.
    ///   - requiresSeekableFile: the format seeks back to complete its header, so a pipe or a
    ///     device gets a spooled copy of the finished file.
    package init(url: URL, overwrite: Bool, inputs: [URL], requiresSeekableFile: Bool = false) throws {
        self.url = url
        self.overwrite = overwrite
        let path = url.displayPath
        for input in inputs where input.isFileURL && OutputFile.isSameFile(url, input) {
            throw ReverseAudioError.output(.outputIsInput(path: path))
        }
        let resolved = try OutputFile.resolve(url)
        target = resolved.target
        switch resolved.kind {
        case .missing:
            placement = .publishedAtomically
        case .regular:
            guard overwrite else { throw ReverseAudioError.output(.outputExists(path: path)) }
            // As `cp` and `ffmpeg -y`, which open the file for writing: replacing it by a rename
            // needs only the folder's permission, and would take another user's read-only file.
            guard access(resolved.target.path, W_OK) == 0 else {
                throw ReverseAudioError.output(.cannotCreateOutput(
                    path: path, reason: "permission denied: \(OutputFile.describeOwner(resolved.target.path)); overwriting replaces only a file you may write, as cp does"))
            }
            placement = .publishedAtomically
        case .special:
            placement = requiresSeekableFile ? .spooled : .writtenInPlace
        case .refused(let reason):
            throw ReverseAudioError.output(.cannotCreateOutput(path: path, reason: reason))
        }
        switch placement {
        case .writtenInPlace:
            spool = nil
            claim = nil
            temporaryURL = target
            return
        case .spooled:
            let file = try TemporaryPCMFile(in: FileManager.default.temporaryDirectory, bytesPerFrame: 1)
            spool = file
            claim = nil
            temporaryURL = file.descriptorURL
            return
        case .publishedAtomically:
            spool = nil
        }
        let folder = target.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) else {
            throw ReverseAudioError.output(.cannotCreateOutput(path: path, reason: "folder \(folder.displayPath) does not exist"))
        }
        guard isDirectory.boolValue else {
            throw ReverseAudioError.output(.cannotCreateOutput(path: path, reason: "\(folder.displayPath) is not a folder"))
        }
        guard access(folder.path, W_OK) == 0 else {
            throw ReverseAudioError.output(.cannotCreateOutput(path: path, reason: "no permission to write in \(folder.displayPath)"))
        }
        // Known now, not after the work: the name the file would be published under must fit.
        let nameLength = target.lastPathComponent.utf8.count
        let longest = pathconf(folder.path, Int32(_PC_NAME_MAX))
        if longest > 0 && nameLength > longest {
            throw ReverseAudioError.output(.cannotCreateOutput(
                path: path, reason: "the name is \(nameLength) bytes long; \(folder.displayPath) allows at most \(longest)"))
        }
        OutputFile.removeStalePartials(in: folder)
        let reserved = try OutputFile.reserveTemporaryName(in: folder, for: path)
        claim = reserved
        temporaryURL = URL(fileURLWithPath: reserved.path)
    }

    deinit {
        if !isCommitted { discard() }
    }

    /// True when the output can be written out of order (seeked): not a pipe or a device.
    package var isSeekable: Bool { placement != .writtenInPlace }

    /// Where temporary data for this output belongs: beside a published file (same disk, so
    /// the space is known to be there), else the system's temporary folder.
    package var temporaryFolder: URL {
        placement == .publishedAtomically ? target.deletingLastPathComponent() : FileManager.default.temporaryDirectory
    }

    /// Moves the finished file into place. Without `overwrite`, fails with
    /// ``OutputError/outputExists(path:)`` if something took the name during the run.
    package func commit() throws {
        switch placement {
        case .writtenInPlace:
            isCommitted = true
            return
        case .spooled:
            isCommitted = true
            try spool?.copy(to: target, path: url.displayPath)
            return
        case .publishedAtomically:
            break
        }
        defer { if !isCommitted { discard() } }
        if overwrite {
            // Never rename over something that became a folder, a link or a device meanwhile.
            var status = stat()
            if lstat(target.path, &status) == 0, (status.st_mode & S_IFMT) != S_IFREG {
                throw ReverseAudioError.output(.cannotCreateOutput(path: url.displayPath, reason: "it is no longer a regular file"))
            }
            guard rename(temporaryURL.path, target.path) == 0 else { throw publishingError(errno) }
        } else {
            try publishWithoutReplacing()
        }
        ProcessCleanup.unregister(file: temporaryURL.path)
        claim?.release()
        isCommitted = true
    }

    /// Removes the temporary file, if any (never a file written in place).
    package func discard() {
        guard placement == .publishedAtomically else { return }
        unlink(temporaryURL.path)
        ProcessCleanup.unregister(file: temporaryURL.path)
        claim?.release()
    }

    /// The temporary file's size in bytes, or 0.
    package var temporarySize: Int64 {
        if let spool { return spool.size }
        var status = stat()
        return stat(temporaryURL.path, &status) == 0 ? Int64(status.st_size) : 0
    }

    /// Publishes under a name that must still be free, atomically: a rename that refuses to
    /// replace where the system has one, else a hard link (which fails with EEXIST when the
    /// name is taken), and only on filesystems with neither a check and a rename.
    private func publishWithoutReplacing() throws {
        switch NoReplaceRename.rename(temporaryURL.path, to: target.path) {
        case .renamed:
            return
        case .failed(let code) where code == EEXIST:
            throw ReverseAudioError.output(.outputExists(path: url.displayPath))
        case .failed(let code):
            throw publishingError(code)
        case .unsupported:
            break
        }
        if link(temporaryURL.path, target.path) == 0 {
            unlink(temporaryURL.path)
            return
        }
        let linkError = errno
        if linkError == EEXIST { throw ReverseAudioError.output(.outputExists(path: url.displayPath)) }
        // Filesystems without either (FAT, some network shares): check, then rename.
        guard [EPERM, ENOTSUP, EOPNOTSUPP, EMLINK, ENOSYS].contains(linkError) else { throw publishingError(linkError) }
        if access(target.path, F_OK) == 0 { throw ReverseAudioError.output(.outputExists(path: url.displayPath)) }
        guard rename(temporaryURL.path, target.path) == 0 else { throw publishingError(errno) }
    }

    private func publishingError(_ code: Int32) -> ReverseAudioError {
        .output(.writeFailed(path: url.displayPath, reason: "could not move the finished file into place: \(String(cString: strerror(code)))"))
    }

    /// Why `path` may not be written, for a refusal: "it is not writable by you (mode 444, owned by user 0)".
    static func describeOwner(_ path: String) -> String {
        var status = stat()
        guard stat(path, &status) == 0 else { return "it is not writable by you" }
        let mode = String(status.st_mode & 0o7777, radix: 8)
        let owner = status.st_uid == getuid() ? "yours" : "owned by user \(status.st_uid)"
        return "it is not writable by you (mode \(mode), \(owner))"
    }

    /// True when `a` and `b` name the same file: same resolved path, or the same inode (a hard
    /// link or another spelling of the path).
    package static func isSameFile(_ a: URL, _ b: URL) -> Bool {
        if a.standardizedFileURL.resolvingSymlinksInPath().path == b.standardizedFileURL.resolvingSymlinksInPath().path {
            return true
        }
        var first = stat()
        var second = stat()
        guard stat(a.path, &first) == 0, stat(b.path, &second) == 0 else { return false }
        return first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }
}

extension OutputFile {
    /// What is at an output path once symbolic links are followed.
    package enum Existing: Equatable {
        case missing
        case regular
        case special
        case refused(String)
    }

    /// Follows `url`'s symbolic links and says what is there.
    package static func resolve(_ url: URL) throws -> (target: URL, kind: Existing) {
        var status = stat()
        // Standard output and /dev/fd/N name descriptors this process was given: written where
        // they point, whatever the shell connected them to (a pipe, a socket, a file opened for
        // appending), never replaced. Their links lead to pipes that have no path of their own.
        if namesOpenDescriptor(url) {
            guard stat(url.path, &status) == 0 else { return (url, .refused(String(cString: strerror(errno)))) }
            switch status.st_mode & S_IFMT {
            case S_IFREG, S_IFIFO, S_IFCHR, S_IFSOCK: return (url, .special)
            default: return (url, .refused("it is not a file, a pipe or a character device"))
            }
        }
        guard lstat(url.path, &status) == 0 else {
            return (url, .missing)
        }
        var target = url
        if (status.st_mode & S_IFMT) == S_IFLNK {
            guard stat(url.path, &status) == 0 else {
                return (url, .refused("it is a symbolic link to a missing file"))
            }
            switch status.st_mode & S_IFMT {
            case S_IFIFO, S_IFCHR:
                // A link to a pipe or a device (/dev/stdout's own kind): written through the link.
                return (url, .special)
            case S_IFREG:
                guard let real = realpath(url.path, nil) else {
                    return (url, .refused("it is a symbolic link that cannot be followed"))
                }
                target = URL(fileURLWithPath: String(cString: real))
                free(real)
            default:
                break
            }
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return (target, .regular)
        case S_IFIFO, S_IFCHR: return (target, .special)
        case S_IFDIR: return (target, .refused("a folder has that name"))
        case S_IFSOCK: return (target, .refused("it is a socket; refusing to replace it"))
        case S_IFBLK: return (target, .refused("it is a block device; refusing to write to it"))
        default: return (target, .refused("it is not a regular file; refusing to replace it"))
        }
    }

    /// True for the names of this process's open descriptors: `/dev/stdout`, `/dev/stderr`,
    /// `/dev/fd/N`, `/proc/self/fd/N`. Decided by name because what they lead to (a pipe with no
    /// path, a file the shell opened) is not a place a file could be published to.
    package static func namesOpenDescriptor(_ url: URL) -> Bool {
        let path = url.standardizedFileURL.path
        return path == "/dev/stdout" || path == "/dev/stderr" || path.hasPrefix("/dev/fd/")
            || path.hasPrefix("/proc/self/fd/") || path.hasPrefix("/proc/\(getpid())/fd/")
    }

    /// The descriptor `url` names (`/dev/stdout` is 1, `/dev/fd/5` is 5), if it names one.
    package static func descriptorNumber(_ url: URL) -> Int32? {
        let path = url.standardizedFileURL.path
        switch path {
        case "/dev/stdout": return STDOUT_FILENO
        case "/dev/stderr": return STDERR_FILENO
        default:
            guard namesOpenDescriptor(url) else { return nil }
            return Int32(url.lastPathComponent)
        }
    }

    /// True when `url` is written in place: a pipe, a device, or one of our open descriptors.
    package static func isSpecialFile(_ url: URL) -> Bool {
        (try? resolve(url).kind) == .special
    }

    /// Creates an empty file with a fresh temporary name in `folder`, so no other run takes it,
    /// and holds its ``OwnershipLock`` until it is released (after the file is published or
    /// removed), so no other run sweeps it away as stale.
    package static func reserveTemporaryName(in folder: URL, for path: String) throws -> OwnershipLock {
        for _ in 0..<16 {
            let name = "\(temporaryPrefix)\(getpid())-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))\(temporarySuffix)"
            let candidate = folder.appendingPathComponent(name).path
            switch OwnershipLock.createFile(at: candidate) {
            case .success(let claim):
                // A watchdog that ends the process from here on removes it (see ProcessCleanup).
                // Registered only once it is ours: never another run's file of the same name.
                ProcessCleanup.register(file: candidate)
                return claim
            case .failure(.taken):
                continue
            case .failure(.failed(let code)):
                throw ReverseAudioError.output(.cannotCreateOutput(path: path, reason: String(cString: strerror(code))))
            }
        }
        throw ReverseAudioError.output(.cannotCreateOutput(path: path, reason: "no free temporary name in \(folder.displayPath)"))
    }

    /// Removes temporary files that earlier runs of this tool left in `folder` when they were
    /// killed (SIGKILL, a power cut): only names of our own pattern, only regular files, only
    /// when no process holds the file's ``OwnershipLock`` (a run in another PID namespace or on
    /// another host sharing the folder holds it as any other), and not while the process its
    /// name records is alive here (a run of an earlier version, which took no lock).
    package static func removeStalePartials(in folder: URL) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(temporaryPrefix) && name.hasSuffix(temporarySuffix) {
            let middle = name.dropFirst(temporaryPrefix.count).dropLast(temporarySuffix.count)
            let parts = middle.split(separator: "-")
            guard parts.count == 2, let pid = pid_t(parts[0]), pid > 0, pid != getpid(),
                  UInt32(parts[1], radix: 16) != nil else { continue }
            guard kill(pid, 0) != 0, errno == ESRCH else { continue }
            OwnershipLock.removeIfAbandoned(folder.appendingPathComponent(name).path, isFolder: false) { unlink($0) }
        }
    }
}
