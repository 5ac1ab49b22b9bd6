import Foundation
import ReverseAudio
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A regular file of the served folder, opened once when a request named it and read only
/// through that descriptor: what was checked is what is read, whatever happens to its name
/// afterwards (a folder swapped for a link out of the folder, the file replaced).
///
/// The library reads files by path, so the descriptor is handed to it as a path that reaches
/// it and nothing else: a link, in a folder of the server's own, to `/proc/self/fd/N` (the
/// kernel opens that as the very file the descriptor holds, never by a name). The link keeps
/// the name's extension (FFmpeg's probe weighs it). It is removed before the descriptor is
/// closed, so it never reaches a later file given the same number.
final class FolderFile: @unchecked Sendable {
    // @unchecked: `link` is made once under `lock`; everything else is immutable.
    /// The name the request gave (relative to the folder).
    let name: String
    /// The open descriptor (read-only).
    let descriptor: Int32
    /// The file's identity as opened: device, inode, size and modification time.
    let key: OpenFiles.Key
    private let lock = NSLock()
    private var link: URL?

    /// Takes ownership of `descriptor`, a regular file's (checked by the caller).
    init(name: String, descriptor: Int32, status: stat) {
        self.name = name
        self.descriptor = descriptor
        key = OpenFiles.Key(status)
    }

    deinit {
        if let link { LinkFolder.shared.remove(link) }
        close(descriptor)
    }

    /// The path the library reads this file by (made on first use).
    /// - Throws: `ServerError.folder` when the server's link folder cannot hold it.
    func url() throws -> URL {
        try lock.withLock {
            if let link { return link }
            let made = try LinkFolder.shared.link(to: descriptor, named: (name as NSString).lastPathComponent)
            link = made
            return made
        }
    }

    /// `text` with this file's link named as the request named the file.
    func naming(_ text: String) -> String {
        guard let link = lock.withLock({ link }) else { return text }
        return text.replacingOccurrences(of: link.path, with: name)
    }
}

/// The folder, private to this process, that holds ``FolderFile``'s links: one sub-folder per
/// link, so a link keeps its file's own name. Made when a link is needed, removed when the last
/// goes (and at exit): nothing of it stays in the temporary folder while no file is read.
final class LinkFolder: @unchecked Sendable {
    // @unchecked: `root`, `next` and `live` are touched only under `lock`.
    static let shared = LinkFolder()
    private let lock = NSLock()
    private var root: String?
    private var next = 0
    private var live = 0
    private var removalRegistered = false

    /// The path of a descriptor as the kernel reopens it: the same open file, not a name.
    static func path(of descriptor: Int32) -> String {
        #if os(Linux)
        return "/proc/self/fd/\(descriptor)"
        #else
        return "/dev/fd/\(descriptor)"
        #endif
    }

    func link(to descriptor: Int32, named name: String) throws -> URL {
        try lock.withLock {
            if root == nil {
                var template = Array((NSTemporaryDirectory() as NSString).appendingPathComponent("reverse-audio-serve-XXXXXX").utf8CString)
                guard let made = mkdtemp(&template) else { throw ServerError.folder("the server's own temporary folder could not be made") }
                root = String(cString: made)
                if !removalRegistered {
                    removalRegistered = true
                    atexit { LinkFolder.shared.removeAll() }
                }
            }
            next += 1
            let folder = (root! as NSString).appendingPathComponent(String(next))
            guard mkdir(folder, 0o700) == 0 else { throw ServerError.folder("the server's own temporary folder could not hold a link") }
            let safeName = name.isEmpty || name.hasPrefix(".") ? "file" + name : name
            let path = (folder as NSString).appendingPathComponent(safeName)
            guard symlink(Self.path(of: descriptor), path) == 0 else {
                rmdir(folder)
                throw ServerError.folder("the server's own temporary folder could not hold a link")
            }
            live += 1
            return URL(fileURLWithPath: path)
        }
    }

    /// Removes `link` (made by ``link(to:named:)``), and the folder with the last one.
    func remove(_ link: URL) {
        lock.withLock {
            unlink(link.path)
            rmdir(link.deletingLastPathComponent().path)
            live -= 1
            if live == 0, let root {
                rmdir(root)
                self.root = nil
            }
        }
    }

    /// Removes the folder and what is left in it.
    func removeAll() {
        lock.withLock {
            guard let root else { return }
            try? FileManager.default.removeItem(atPath: root)
            self.root = nil
        }
    }
}

/// `open(2)`, for types with an `open` member of their own.
func openDescriptor(_ path: String, _ flags: Int32) -> Int32 {
    open(path, flags)
}
