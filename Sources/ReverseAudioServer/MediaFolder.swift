import Foundation
import Hummingbird
import ReverseAudio
import ReverseAudioBatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The folder `serve` shows: its audio files by name, and every name a request gives opened
/// inside it, or refused.
///
/// A name is a path relative to the folder (`sub/x.flac`). It is opened one component at a
/// time from the folder's own descriptor (`openat` with `O_NOFOLLOW`): a symbolic link is read
/// and followed by this code, a `..` taken back one component, never above the folder, and an
/// absolute link accepted only when it names a place inside the folder. What the last
/// component opens must be a regular file. So `..`, absolute paths, links out of the folder and
/// FIFOs or devices are refused whatever their spelling, a link that stays inside works, and
/// nothing can swap a component between the check and the read: the check is of the open
/// descriptor (``FolderFile``), which is what every later read uses. A name that reaches
/// outside the folder is answered as one that does not exist (404): the answer tells nothing
/// of what is outside. The output folder (and the uploads in it) is never a folder file.
package struct MediaFolder: Sendable {
    /// The folder, as given.
    package let root: URL
    /// Where outputs go; not listed as inputs, nor served by name, when inside the folder.
    package let output: URL
    private let rootPath: String
    private let rootIdentity: FileIdentity
    /// The folder, opened once: names are resolved from this descriptor, whatever its path becomes.
    private let rootDescriptor: FolderDescriptor

    /// A file's identity whatever its names.
    package struct FileIdentity: Hashable, Sendable {
        let device: UInt64
        let inode: UInt64

        init(_ status: stat) {
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
        }
    }

    /// The folder's descriptor, closed with the last copy of the folder.
    private final class FolderDescriptor: Sendable {
        let value: Int32
        init(_ value: Int32) { self.value = value }
        deinit { close(value) }
    }

    /// - Throws: ``ServerError/folder(_:)`` when `root` is not a folder, or is the output folder itself.
    package init(root: URL, output: URL) throws {
        var status = stat()
        let descriptor = openDescriptor(root.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ServerError.folder("\(root.displayPath): not a folder") }
        rootDescriptor = FolderDescriptor(descriptor)
        guard fstat(descriptor, &status) == 0, let real = realpath(root.path, nil) else {
            throw ServerError.folder("\(root.displayPath): not a folder")
        }
        rootPath = String(cString: real)
        free(real)
        rootIdentity = FileIdentity(status)
        var outputStatus = stat()
        if stat(output.path, &outputStatus) == 0, FileIdentity(outputStatus) == rootIdentity {
            throw ServerError.setting("-o \(output.displayPath) is the served folder itself: jobs write into a folder of their own")
        }
        self.root = root
        self.output = output
    }

    /// The audio files under the folder (the same walk `reverse` and `list` make), by name.
    package func names() -> [String] {
        guard let collection = try? SupportedAudioFiles.collect([root], recursive: true, allFormats: false, excluding: [output]) else { return [] }
        return collection.files.map(\.relativePath)
    }

    /// The regular file inside the folder that `name` (a path relative to it, already
    /// percent-decoded) reaches, opened.
    /// - Throws: `HTTPError` 400 for an empty or NUL-holding name, 404 when nothing is there
    ///   or what is there is outside the folder (or in the output folder), 403 when it is
    ///   not a regular file.
    func open(_ name: String) throws -> FolderFile {
        guard !name.isEmpty, !name.contains("\0") else { throw HTTPError(.badRequest, message: "no file name") }
        let missing = HTTPError(.notFound, message: "\(name): no such file")
        guard !name.hasPrefix("/") else { throw missing }
        var pending = Array(name.split(separator: "/", omittingEmptySubsequences: true).map(String.init).reversed())
        // The folders walked so far, each open; the last is where the next component is looked up.
        var folders: [Int32] = [rootDescriptor.value]
        defer { for folder in folders.dropFirst() { close(folder) } }
        var linksFollowed = 0
        let outputIdentity = identity(of: output.path)
        while let component = pending.popLast() {
            if component == "." { continue }
            if component == ".." {
                guard folders.count > 1 else { throw missing }
                close(folders.removeLast())
                continue
            }
            let parent = folders.last!
            var status = stat()
            guard fstatat(parent, component, &status, AT_SYMLINK_NOFOLLOW) == 0 else { throw missing }
            switch status.st_mode & S_IFMT {
            case S_IFLNK:
                linksFollowed += 1
                guard linksFollowed <= 40, let target = readLink(parent, component) else { throw missing }
                var parts = target.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
                if target.hasPrefix("/") {
                    // An absolute link is followed only into the folder: from its root.
                    guard let inside = relativeInside(target) else { throw missing }
                    for folder in folders.dropFirst() { close(folder) }
                    folders = [rootDescriptor.value]
                    parts = inside
                }
                pending.append(contentsOf: parts.reversed())
            case S_IFDIR:
                let opened = openat(parent, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard opened >= 0 else { throw missing }
                folders.append(opened)
                var folderStatus = stat()
                if fstat(opened, &folderStatus) == 0, let outputIdentity, FileIdentity(folderStatus) == outputIdentity { throw missing }
            default:
                guard pending.isEmpty else { throw missing }
                guard (status.st_mode & S_IFMT) == S_IFREG else {
                    throw HTTPError(.forbidden, message: "\(name): not a regular file")
                }
                // Non-blocking: a FIFO swapped in since the look-up must not hold the open.
                let descriptor = openat(parent, component, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
                guard descriptor >= 0 else { throw missing }
                var opened = stat()
                guard fstat(descriptor, &opened) == 0, (opened.st_mode & S_IFMT) == S_IFREG else {
                    close(descriptor)
                    throw HTTPError(.forbidden, message: "\(name): not a regular file")
                }
                _ = fcntl(descriptor, F_SETFL, 0)
                return FolderFile(name: name, descriptor: descriptor, status: opened)
            }
        }
        throw missing
    }

    /// The target of the link `name` in the folder `parent`.
    private func readLink(_ parent: Int32, _ name: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlinkat(parent, name, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The components of absolute `path` below the folder (as its real path or as given), or
    /// nil when it is not inside.
    private func relativeInside(_ path: String) -> [String]? {
        for prefix in Set([rootPath, root.standardizedFileURL.path]) where path == prefix || path.hasPrefix(prefix + "/") {
            return path.dropFirst(prefix.count).split(separator: "/").map(String.init)
        }
        return nil
    }

    private func identity(of path: String) -> FileIdentity? {
        var status = stat()
        return stat(path, &status) == 0 ? FileIdentity(status) : nil
    }

    /// `text` with the server's own paths taken out: files in the folder named relative to it,
    /// uploads by their upload names, outputs by their names in the output folder.
    package func relative(_ text: String) -> String {
        let uploads = output.appendingPathComponent(UploadStore.folderName)
        let prefixes = [uploads.path, uploads.displayPath, output.path, output.displayPath, rootPath, root.path]
        return prefixes.reduce(text) { $0.replacingOccurrences(of: $1 + "/", with: "") }
    }
}
