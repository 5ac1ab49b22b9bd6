import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every named file this process creates for a while (an output's `.partial`, the folder of
/// aliases for names that are not UTF-8), so that a process that must end *now* (a signal's
/// watchdog, while a thread is stuck in a read the kernel will not interrupt) can remove them
/// before `_exit`. Unnamed temporary files need no entry: they vanish with the process.
///
/// Thread-safe; ``removeAll()`` may run on any thread while others register.
package enum ProcessCleanup {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var files: Set<String> = []
    nonisolated(unsafe) private static var folders: Set<String> = []
    nonisolated(unsafe) private static var createdFolders: [String] = []

    /// Remembers `path`, a file this process created and will remove or publish.
    package static func register(file path: String) {
        lock.lock()
        files.insert(path)
        lock.unlock()
    }

    /// Forgets `path` (removed, or published under its final name).
    package static func unregister(file path: String) {
        lock.lock()
        files.remove(path)
        lock.unlock()
    }

    /// Remembers `path`, a folder of this process's own whose whole contents go with it.
    package static func register(folder path: String) {
        lock.lock()
        folders.insert(path)
        lock.unlock()
    }

    /// Forgets `path`, a folder already removed.
    package static func unregister(folder path: String) {
        lock.lock()
        folders.remove(path)
        lock.unlock()
    }

    /// Creates `url` and the folders above it that are missing, and remembers those it made:
    /// ``removeAll()`` removes them again if they are still empty (a batch stopped before its
    /// first output leaves no empty output folder behind).
    /// - Throws: ``OutputError/cannotCreateOutput(path:reason:)`` naming the folder and
    ///   the reason in words ("a file has that name"), never Foundation's error.
    package static func createFolder(_ url: URL) throws {
        var missing: [String] = []
        var folder = url.standardizedFileURL
        var status = stat()
        while lstat(folder.path, &status) != 0, folder.path != "/" {
            missing.append(folder.path)
            folder.deleteLastPathComponent()
        }
        // The nearest that exists must be a folder (or a link to one).
        var followed = stat()
        if folder.path != "/", stat(folder.path, &followed) == 0, (followed.st_mode & S_IFMT) != S_IFDIR {
            let which = folder.path == url.standardizedFileURL.path ? "a file has that name" : "\(folder.displayPath) is a file"
            throw ReverseAudioError.output(.cannotCreateOutput(path: url.displayPath, reason: "\(which), not a folder"))
        }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
            let reason = underlying.map { String(cString: strerror(Int32($0.code))) } ?? (error as NSError).localizedDescription
            throw ReverseAudioError.output(.cannotCreateOutput(path: url.displayPath, reason: "cannot create the folder (\(reason))"))
        }
        lock.lock()
        createdFolders.append(contentsOf: missing)
        lock.unlock()
    }

    /// The files registered now (for tests and diagnostics).
    package static var registeredFiles: Set<String> {
        lock.lock()
        defer { lock.unlock() }
        return files
    }

    /// Removes every registered file and folder, and forgets them.
    package static func removeAll() {
        lock.lock()
        let (doomedFiles, doomedFolders, created) = (files, folders, createdFolders)
        files = []
        folders = []
        createdFolders = []
        lock.unlock()
        for path in doomedFiles { unlink(path) }
        for path in doomedFolders { removeTree(path) }
        // Deepest first; rmdir leaves a folder that holds anything.
        for path in created.sorted(by: { $0.count > $1.count }) { rmdir(path) }
    }

    /// Removes `path` and everything under it without following symbolic links (the aliases
    /// inside point at the user's files).
    package static func removeTree(_ path: String) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        if (status.st_mode & S_IFMT) == S_IFDIR {
            if let names = try? FileManager.default.contentsOfDirectory(atPath: path) {
                for name in names { removeTree(path + "/" + name) }
            }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}
