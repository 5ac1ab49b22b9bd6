import Foundation
import Hummingbird
import ReverseAudio
import ReverseAudioBatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The folder `serve` shows: its audio files by name, and every name a request gives resolved
/// inside it, or refused.
///
/// A name is a path relative to the folder (`sub/x.flac`). It is resolved as the system would
/// open it (every `..` and symbolic link followed), then accepted only when what it reaches is a
/// regular file with the folder among its ancestors, compared by device and inode: so `..`,
/// absolute paths, links out of the folder and FIFOs or devices are refused whatever their
/// spelling, while a link that stays inside works.
package struct MediaFolder: Sendable {
    /// The folder, as given.
    package let root: URL
    /// Where outputs go; not listed as inputs when inside the folder.
    package let output: URL
    private let rootPath: String
    private let rootIdentity: FileIdentity

    /// A file's identity whatever its names.
    package struct FileIdentity: Hashable, Sendable {
        let device: UInt64
        let inode: UInt64

        init(_ status: stat) {
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
        }
    }

    /// - Throws: ``ServerError/folder(_:)`` when `root` is not a folder.
    package init(root: URL, output: URL) throws {
        var status = stat()
        guard stat(root.path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR, let real = realpath(root.path, nil) else {
            throw ServerError.folder("\(root.displayPath): not a folder")
        }
        rootPath = String(cString: real)
        free(real)
        rootIdentity = FileIdentity(status)
        self.root = root
        self.output = output
    }

    /// The audio files under the folder (the same walk `reverse` and `list` make), by name, and
    /// what each resolves to.
    package func files() -> [(name: String, url: URL)] {
        guard let collection = try? SupportedAudioFiles.collect([root], recursive: true, allFormats: false, excluding: [output]) else { return [] }
        // The walk follows links; only what a request for the name would reach is listed.
        return collection.files.compactMap { found in
            guard let url = try? resolve(found.relativePath) else { return nil }
            return (found.relativePath, url)
        }
    }

    /// The regular file inside the folder that `name` (a path relative to it, already
    /// percent-decoded) reaches.
    /// - Throws: `HTTPError` 400 for an empty or NUL-holding name, 404 when nothing is there,
    ///   403 when what it reaches is outside the folder or not a regular file.
    package func resolve(_ name: String) throws -> URL {
        guard !name.isEmpty, !name.contains("\0") else { throw HTTPError(.badRequest, message: "no file name") }
        guard !name.hasPrefix("/") else { throw HTTPError(.forbidden, message: "\(name): names are relative to the served folder") }
        let candidate = rootPath + "/" + name
        guard let real = realpath(candidate, nil) else { throw HTTPError(.notFound, message: "\(name): no such file") }
        let resolved = String(cString: real)
        free(real)
        var status = stat()
        guard stat(resolved, &status) == 0 else { throw HTTPError(.notFound, message: "\(name): no such file") }
        guard isInside(resolved) else { throw HTTPError(.forbidden, message: "\(name): outside the served folder") }
        guard (status.st_mode & S_IFMT) == S_IFREG else { throw HTTPError(.forbidden, message: "\(name): not a regular file") }
        return URL(fileURLWithPath: resolved)
    }

    /// True when the folder is among the ancestors of `path` (a resolved path, no links left).
    private func isInside(_ path: String) -> Bool {
        var folder = (path as NSString).deletingLastPathComponent
        while true {
            var status = stat()
            if stat(folder, &status) == 0, FileIdentity(status) == rootIdentity { return true }
            let parent = (folder as NSString).deletingLastPathComponent
            if parent == folder || folder.isEmpty { return false }
            folder = parent
        }
    }

    /// `text` with the server's own paths taken out: files in the folder named relative to it,
    /// uploads by their upload names, outputs by their names in the output folder.
    package func relative(_ text: String) -> String {
        let uploads = output.appendingPathComponent(UploadStore.folderName)
        let prefixes = [uploads.path, uploads.displayPath, output.path, output.displayPath, rootPath, root.path]
        return prefixes.reduce(text) { $0.replacingOccurrences(of: $1 + "/", with: "") }
    }
}
