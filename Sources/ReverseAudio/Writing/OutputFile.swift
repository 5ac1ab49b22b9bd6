import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where an output goes, and how it gets there without ever leaving a partial file or
/// replacing something that is not a regular file.
///
/// - A new name, or an existing regular file (with `overwrite`), or a symbolic link to one: the
///   output is written under a short temporary name in the target's folder and published when
///   complete. Without `overwrite` the publication is a hard link that fails if the name has
///   appeared in the meantime, so of two concurrent runs exactly one wins; with it, a rename
///   replaces the old file atomically. A symbolic link is followed and its target replaced, as
///   `ffmpeg -y` does.
/// - A FIFO, a character device (`/dev/null`, a terminal), or anything reached through `/dev`
///   or `/proc` (`/dev/stdout`): written in place, never replaced, and not seekable.
/// - Anything else (a folder, a socket, a block device, a link to a missing file) is refused.
final class OutputFile {
    /// How the output reaches its destination.
    enum Placement: Equatable {
        /// Written under ``OutputFile/temporaryURL`` and published by ``OutputFile/commit()``.
        case publishedAtomically
        /// Written directly into an existing special file (a pipe, a device, standard output).
        case writtenInPlace
    }

    /// The output as it was named.
    let url: URL
    /// The file that is written or replaced: `url` with symbolic links resolved.
    let target: URL
    let placement: Placement
    /// Where the bytes are written until ``commit()``: a hidden `.reverse-audio-PID-RANDOM.partial`
    /// beside ``target``, or ``target`` itself when written in place.
    let temporaryURL: URL
    private let overwrite: Bool
    private(set) var isCommitted = false

    /// The prefix and suffix of every temporary name, short so that any valid output name can
    /// be written (the name itself is not repeated in the temporary one).
    static let temporaryPrefix = ".reverse-audio-"
    static let temporarySuffix = ".partial"

    /// Checks that `url` may be written and reserves the temporary name.
    /// - Parameters:
    ///   - overwrite: replace an existing regular file at `url`.
    ///   - inputs: files being read; `url` may never be one of them, even with `overwrite`.
    init(url: URL, overwrite: Bool, inputs: [URL]) throws {
        self.url = url
        self.overwrite = overwrite
        let path = url.displayPath
        for input in inputs where OutputFile.isSameFile(url, input) {
            throw ReverseAudioError.outputIsInput(path: path)
        }
        let resolved = try OutputFile.resolve(url)
        target = resolved.target
        switch resolved.kind {
        case .missing:
            placement = .publishedAtomically
        case .regular:
            guard overwrite else { throw ReverseAudioError.outputExists(path: path) }
            placement = .publishedAtomically
        case .special:
            placement = .writtenInPlace
        case .refused(let reason):
            throw ReverseAudioError.cannotCreateOutput(path: path, reason: reason)
        }
        if placement == .writtenInPlace {
            temporaryURL = target
            return
        }
        let folder = target.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) else {
            throw ReverseAudioError.cannotCreateOutput(path: path, reason: "folder \(folder.displayPath) does not exist")
        }
        guard isDirectory.boolValue else {
            throw ReverseAudioError.cannotCreateOutput(path: path, reason: "\(folder.displayPath) is not a folder")
        }
        guard access(folder.path, W_OK) == 0 else {
            throw ReverseAudioError.cannotCreateOutput(path: path, reason: "no permission to write in \(folder.displayPath)")
        }
        OutputFile.removeStalePartials(in: folder)
        temporaryURL = try OutputFile.reserveTemporaryName(in: folder, for: path)
    }

    deinit {
        if !isCommitted { discard() }
    }

    /// True when the output can be written out of order (seeked): not a pipe or a device.
    var isSeekable: Bool { placement == .publishedAtomically }

    /// Moves the finished file into place. Without `overwrite`, fails with
    /// ``ReverseAudioError/outputExists(path:)`` if something took the name during the run.
    func commit() throws {
        guard placement == .publishedAtomically else {
            isCommitted = true
            return
        }
        defer { if !isCommitted { discard() } }
        if overwrite {
            // Never rename over something that became a folder, a link or a device meanwhile.
            var status = stat()
            if lstat(target.path, &status) == 0, (status.st_mode & S_IFMT) != S_IFREG {
                throw ReverseAudioError.cannotCreateOutput(path: url.displayPath, reason: "it is no longer a regular file")
            }
            guard rename(temporaryURL.path, target.path) == 0 else { throw publishingError(errno) }
        } else {
            try publishWithoutReplacing()
        }
        isCommitted = true
    }

    /// Removes the temporary file, if any (never a file written in place).
    func discard() {
        if placement == .publishedAtomically { unlink(temporaryURL.path) }
    }

    /// The temporary file's size in bytes, or 0.
    var temporarySize: Int64 {
        var status = stat()
        return stat(temporaryURL.path, &status) == 0 ? Int64(status.st_size) : 0
    }

    /// A hard link fails with EEXIST when the name is taken, atomically; a rename would not.
    private func publishWithoutReplacing() throws {
        if link(temporaryURL.path, target.path) == 0 {
            unlink(temporaryURL.path)
            return
        }
        let linkError = errno
        if linkError == EEXIST { throw ReverseAudioError.outputExists(path: url.displayPath) }
        // Filesystems without hard links (FAT, some network shares): check, then rename.
        guard [EPERM, ENOTSUP, EOPNOTSUPP, EMLINK, ENOSYS].contains(linkError) else { throw publishingError(linkError) }
        if access(target.path, F_OK) == 0 { throw ReverseAudioError.outputExists(path: url.displayPath) }
        guard rename(temporaryURL.path, target.path) == 0 else { throw publishingError(errno) }
    }

    private func publishingError(_ code: Int32) -> ReverseAudioError {
        .writeFailed(path: url.displayPath, reason: "could not move the finished file into place: \(String(cString: strerror(code)))")
    }

    /// True when `a` and `b` name the same file: same resolved path, or the same inode (a hard
    /// link or another spelling of the path).
    static func isSameFile(_ a: URL, _ b: URL) -> Bool {
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
    enum Existing: Equatable {
        case missing
        case regular
        case special
        case refused(String)
    }

    /// Follows `url`'s symbolic links and says what is there.
    static func resolve(_ url: URL) throws -> (target: URL, kind: Existing) {
        var status = stat()
        // Standard output, /dev/fd/N and the like are written where they point, never replaced;
        // their links lead to pipes and sockets that have no path of their own.
        if ["/dev/", "/proc/"].contains(where: { url.standardizedFileURL.path.hasPrefix($0) }) {
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
            guard let real = realpath(url.path, nil) else {
                return (url, .refused("it is a symbolic link to a missing file"))
            }
            target = URL(fileURLWithPath: String(cString: real))
            free(real)
            guard stat(target.path, &status) == 0 else {
                return (url, .refused("it is a symbolic link that cannot be followed"))
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

    /// True when `url` is written in place: a pipe, a device, or a path through /dev or /proc.
    static func isSpecialFile(_ url: URL) -> Bool {
        (try? resolve(url).kind) == .special
    }

    /// Creates an empty file with a fresh temporary name in `folder`, so no other run takes it.
    static func reserveTemporaryName(in folder: URL, for path: String) throws -> URL {
        for _ in 0..<16 {
            let name = "\(temporaryPrefix)\(getpid())-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))\(temporarySuffix)"
            let candidate = folder.appendingPathComponent(name)
            let descriptor = open(candidate.path, O_WRONLY | O_CREAT | O_EXCL, 0o666)
            if descriptor >= 0 {
                close(descriptor)
                return candidate
            }
            if errno != EEXIST {
                throw ReverseAudioError.cannotCreateOutput(path: path, reason: String(cString: strerror(errno)))
            }
        }
        throw ReverseAudioError.cannotCreateOutput(path: path, reason: "no free temporary name in \(folder.displayPath)")
    }

    /// Removes temporary files that earlier runs of this tool left in `folder` when they were
    /// killed (SIGKILL, a power cut): only names of our own pattern, only regular files, and
    /// only when the process that made them no longer exists.
    static func removeStalePartials(in folder: URL) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(temporaryPrefix) && name.hasSuffix(temporarySuffix) {
            let middle = name.dropFirst(temporaryPrefix.count).dropLast(temporarySuffix.count)
            let parts = middle.split(separator: "-")
            guard parts.count == 2, let pid = pid_t(parts[0]), pid > 0, pid != getpid(),
                  UInt32(parts[1], radix: 16) != nil else { continue }
            guard kill(pid, 0) != 0, errno == ESRCH else { continue }
            let path = folder.appendingPathComponent(name).path
            var status = stat()
            guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { continue }
            unlink(path)
        }
    }
}
