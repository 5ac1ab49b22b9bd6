import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock (`flock`) that a run holds on a file or folder it made and will
/// remove or publish (an output's `.partial`, its folder of name aliases), for as long as the
/// name exists: how another run tells a live run's file from one left by a run that was killed.
///
/// A process ID cannot tell it: runs in other PID namespaces (containers sharing a volume) or on
/// other hosts (Slurm array tasks on a shared folder) have numbers that mean nothing here, so
/// `kill(pid, 0)` calls a live run dead and the "stale" file is removed under it. A lock is held
/// by the kernel for the open file, in every namespace, and over NFS by the server (Linux emulates
/// `flock` there with a whole-file lock the server keeps); it goes when its holder dies, however
/// it died. A file is taken for abandoned only when its lock can be had.
///
/// Claiming a new name is free of races with a sweeper: the file is created, then locked, then
/// checked to still be the one at its name (a sweeper that took the lock in between removed it,
/// and the claim is tried again under another name); a sweeper removes a file only while it holds
/// its lock and has checked that the name still leads to the file it locked.
package final class OwnershipLock: @unchecked Sendable {
    // @unchecked: `descriptor` is only touched under `guardLock`.
    /// The path locked.
    package let path: String
    private let guardLock = NSLock()
    private var descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { release() }

    /// Why a name could not be claimed.
    package enum ClaimFailure: Error {
        /// Something has the name already, or a sweeper removed it before it was locked: try another.
        case taken
        /// The system refused (`errno`).
        case failed(Int32)
    }

    /// Creates the file `path` (which must not exist) and locks it.
    /// - Returns: the held lock; on a filesystem without locks the file is made and held
    ///   unlocked (nothing can sweep it there either: see ``removeIfAbandoned(_:isFolder:remove:)``).
    package static func createFile(at path: String) -> Result<OwnershipLock, ClaimFailure> {
        // Open for writing too: NFS grants an exclusive lock only on a file open for writing.
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { return .failure(errno == EEXIST ? .taken : .failed(errno)) }
        return hold(descriptor, path: path)
    }

    /// Locks the folder `path`, just made by this process (`mkdtemp`).
    package static func lockFolder(at path: String) -> Result<OwnershipLock, ClaimFailure> {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(errno == ENOENT ? .taken : .failed(errno)) }
        return hold(descriptor, path: path)
    }

    /// Locks `descriptor` and checks that `path` still leads to it.
    private static func hold(_ descriptor: Int32, path: String) -> Result<OwnershipLock, ClaimFailure> {
        if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EWOULDBLOCK || code == EINTR {
                // A sweeper holds it for the moment it takes to remove it.
                close(descriptor)
                return .failure(.taken)
            }
            // No locks on this filesystem (ENOLCK, EOPNOTSUPP, EINVAL): held by name alone.
        }
        guard sameFile(descriptor, path) else {
            close(descriptor)
            return .failure(.taken)
        }
        return .success(OwnershipLock(path: path, descriptor: descriptor))
    }

    /// Drops the lock (once the name was removed or published). Idempotent.
    package func release() {
        guardLock.lock()
        let held = descriptor
        descriptor = -1
        guardLock.unlock()
        if held >= 0 { close(held) }
    }

    /// Removes the file (or, with `isFolder`, the folder) at `path` if no process holds its lock,
    /// calling `remove` while holding it. Never follows a symbolic link, never touches anything
    /// but a regular file (or a folder), and keeps what cannot be locked (no permission, no
    /// locks on the filesystem): a leftover file costs only space, a removed live one a run.
    /// - Returns: true when it was removed.
    @discardableResult
    package static func removeIfAbandoned(_ path: String, isFolder: Bool, remove: (String) -> Void) -> Bool {
        let flags = O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
        var descriptor: Int32
        if isFolder {
            descriptor = open(path, O_RDONLY | O_DIRECTORY | flags)
        } else {
            // For writing where allowed (NFS's exclusive lock needs it), else for reading.
            descriptor = open(path, O_RDWR | flags)
            if descriptor < 0 && (errno == EACCES || errno == EPERM || errno == EROFS) {
                descriptor = open(path, O_RDONLY | flags)
            }
        }
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0,
              (status.st_mode & S_IFMT) == (isFolder ? S_IFDIR : S_IFREG),
              flock(descriptor, LOCK_EX | LOCK_NB) == 0,
              sameFile(descriptor, path) else { return false }
        remove(path)
        return true
    }

    /// True when `path` (not followed) is the file open as `descriptor`.
    private static func sameFile(_ descriptor: Int32, _ path: String) -> Bool {
        var opened = stat()
        var named = stat()
        return fstat(descriptor, &opened) == 0 && lstat(path, &named) == 0
            && opened.st_dev == named.st_dev && opened.st_ino == named.st_ino
    }
}
