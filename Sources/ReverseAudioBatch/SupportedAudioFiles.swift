import Foundation
import ReverseAudioCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The audio files ReverseAudio picks out of folders: by default the seed app's nine extensions
/// and Ogg's, Opus's and WebM's.
///
/// A walk reads names as the file system stores them (any bytes; a name that is not UTF-8 is
/// reached through an alias and shown escaped), visits each real folder and
/// each real file once whatever links lead to them (by device and inode, so a symbolic-link
/// loop ends at once), never descends into the folders it is told to exclude (a batch's own
/// output folder), and passes over FIFOs, devices and sockets, which are no audio files and
/// could block a read forever: every file passed over is listed with its reason.
package enum SupportedAudioFiles {
    /// The extensions the original app listed, in its order, then Ogg's, Opus's and WebM's.
    package static let extensions: [String] = ["aac", "m4a", "aiff", "aif", "wav", "mp3", "caf", "m4r", "flac", "ogg", "oga", "opus", "webm"]

    /// True when `url`'s extension is one of ``extensions`` (case-insensitive).
    package static func isSupported(_ url: URL) -> Bool {
        extensions.contains(url.pathExtension.lowercased())
    }

    /// The supported audio files directly inside `directory`, sorted by name.
    /// Hidden files, subfolders and special files are skipped.
    package static func files(in directory: URL) throws -> [URL] {
        let found = try collect([directory], recursive: false, allFormats: false)
        if let failure = found.failures.first { throw failure }
        return found.files.map(\.url)
    }

    /// One file a batch will process.
    package struct Found: Sendable, Equatable {
        /// The file (an alias when its path is not UTF-8).
        package let url: URL
        /// The folders between the folder argument and the file ("" for a file named directly,
        /// "live/2019" for `ARG/live/2019/x.mp3`): outputs keep this structure. A folder name
        /// that is not UTF-8 appears escaped.
        package let relativeFolder: String
        /// The NAME its outputs are named from (see ``outputStem(of:siblingStems:)``).
        package let outputStem: String

        /// A file to process, whose outputs go under `relativeFolder` named from `outputStem`.
        package init(url: URL, relativeFolder: String, outputStem: String) {
            self.url = url
            self.relativeFolder = relativeFolder
            self.outputStem = outputStem
        }

        /// Its path under the folder given ("live/2019/a.flac"; "a.flac" for a file named
        /// directly): what a batch's shares are drawn by.
        package var relativePath: String {
            relativeFolder.isEmpty ? url.lastPathComponent : relativeFolder + "/" + url.lastPathComponent
        }
    }

    /// One thing to collect: a file or a folder, and the folder its outputs go under.
    package struct Argument: Sendable {
        /// The file or folder.
        package let url: URL
        /// For a file, the folders its outputs go under ("" for directly under the output folder);
        /// for a folder, the folders its contents' outputs go under.
        package let relativeFolder: String

        /// `url`, its outputs under `relativeFolder`.
        package init(url: URL, relativeFolder: String = "") {
            self.url = url
            self.relativeFolder = relativeFolder
        }
    }

    /// The name a file's outputs are named from: its name without the extension (`song` for
    /// `song.mp3`), or, when another name in its own folder has the same stem in any case
    /// (`song.flac`, `Song.wav`), the extension kept after a dash (`song-mp3`). The rule reads
    /// only the file's own folder, never the other inputs of the call, so every run, every
    /// share and every rerun names a file alike.
    /// - Parameters:
    ///   - name: the file's name (escaped when not UTF-8).
    ///   - siblingStems: how many names of its folder (itself included, hidden ones not) have
    ///     each lower-cased stem.
    package static func outputStem(of name: String, siblingStems: [String: Int]) -> String {
        let (stem, ext) = split(name)
        guard let ext, siblingStems[stem.lowercased(), default: 0] > 1 else { return stem }
        return stem + "-" + ext
    }

    /// `name`'s stem and extension ("a.b.mp3" → "a.b", "mp3"; "notes" → "notes", nil).
    private static func split(_ name: String) -> (stem: String, ext: String?) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex, name.index(after: dot) != name.endIndex else { return (name, nil) }
        return (String(name[..<dot]), String(name[name.index(after: dot)...]))
    }

    /// How many of `names` (hidden ones left out) have each lower-cased stem.
    static func stemCounts<Names: Sequence>(_ names: Names) -> [String: Int] where Names.Element == String {
        var counts: [String: Int] = [:]
        for name in names where !name.hasPrefix(".") { counts[split(name).stem.lowercased(), default: 0] += 1 }
        return counts
    }

    /// What a collection found.
    package struct Collection: Sendable {
        /// The files to process, in argument order; inside a folder sorted by path, files
        /// before subfolders.
        package var files: [Found] = []
        /// Files and folders passed over, each with the reason (for `--verbose` and the summary).
        package var skipped: [(path: String, reason: String)] = []
        /// Arguments that could not be used at all (missing, unreadable folder).
        package var failures: [ReverseAudioError] = []
    }

    /// The files named by `paths`: files as they are, folders by their contents.
    /// - Parameters:
    ///   - paths: files and folders.
    ///   - recursive: descend into subfolders (else they are skipped and listed).
    ///   - allFormats: take every file whatever its extension (FFmpeg decides what it can read).
    ///   - excluding: folders never walked into, however reached (the batch's output folder:
    ///     its earlier outputs are no inputs).
    package static func collect(_ paths: [URL], recursive: Bool, allFormats: Bool, excluding: [URL] = []) throws -> Collection {
        try collect(arguments: paths.map { Argument(url: $0) }, recursive: recursive, allFormats: allFormats, excluding: excluding)
    }

    /// The files named by `arguments`, each file's outputs under the folders its argument says.
    package static func collect(arguments: [Argument], recursive: Bool, allFormats: Bool, excluding: [URL] = []) throws -> Collection {
        var walk = Walk(recursive: recursive, allFormats: allFormats)
        for folder in excluding {
            if let identity = FileIdentity(path: Array(folder.path.utf8)) { walk.excluded.insert(identity) }
        }
        for argument in arguments {
            let path = argument.url
            if path.isRemote {
                // A URL is one file, named by its last path segment (decoded, a `/` in it made `_`).
                let segment = path.lastPathComponent.removingPercentEncoding ?? path.lastPathComponent
                let name = segment == "/" || segment.isEmpty ? (path.host ?? "download") : segment.replacingOccurrences(of: "/", with: "_")
                let stem = outputStem(of: ByteNames.escaped(Array(name.utf8)), siblingStems: [:])
                walk.collection.files.append(Found(url: path, relativeFolder: argument.relativeFolder, outputStem: stem))
                continue
            }
            let bytes = Array(path.path.utf8)
            var status = stat()
            guard ByteNames.withCString(bytes, { stat($0, &status) }) == 0 else {
                walk.collection.failures.append(.input(.fileNotFound(path: path.displayPath)))
                continue
            }
            let identity = FileIdentity(status)
            if (status.st_mode & S_IFMT) == S_IFDIR {
                if walk.excluded.contains(identity) {
                    walk.collection.skipped.append((path.displayPath, "the output folder: its files are outputs, not inputs"))
                    continue
                }
                guard walk.visitedFolders.insert(identity).inserted else { continue }
                do {
                    try walk.walk(path, bytes: bytes, relative: argument.relativeFolder)
                } catch let error as ReverseAudioError {
                    walk.collection.failures.append(error)
                }
            } else {
                // A file named directly is taken as it is (a FIFO is then read as a pipe), once.
                if (status.st_mode & S_IFMT) == S_IFREG, !walk.visitedFiles.insert(identity).inserted {
                    walk.collection.skipped.append((path.displayPath, "named twice: the same file as an earlier input"))
                    continue
                }
                let stem = outputStem(of: escapedName(of: path), siblingStems: walk.stemCounts(ofFolderOf: bytes))
                walk.collection.files.append(Found(url: path, relativeFolder: argument.relativeFolder, outputStem: stem))
            }
        }
        return walk.collection
    }

    /// The name of the file at `url` as a walk of its folder shows it (``ByteNames/escaped(_:)``),
    /// so that a file named directly gets the outputs it gets in a walk: an alias's name is that
    /// already (escaping it again would double its backslashes), any other name is escaped here.
    private static func escapedName(of url: URL) -> String {
        if let shown = ByteNames.display(forPath: url.path) {
            return String(shown[(shown.lastIndex(of: "/").map { shown.index(after: $0) } ?? shown.startIndex)...])
        }
        return ByteNames.escaped(Array(url.lastPathComponent.utf8))
    }

    /// A file's identity whatever its names: device and inode.
    struct FileIdentity: Hashable {
        let device: UInt64
        let inode: UInt64

        init(_ status: stat) {
            device = UInt64(truncatingIfNeeded: status.st_dev)
            inode = UInt64(truncatingIfNeeded: status.st_ino)
        }

        /// The identity of what `path` leads to (links followed), nil when nothing is there.
        init?(path: [UInt8]) {
            var status = stat()
            guard ByteNames.withCString(path, { stat($0, &status) }) == 0 else { return nil }
            self.init(status)
        }
    }

    /// The state of one collection: what was seen, what was found.
    private struct Walk {
        let recursive: Bool
        let allFormats: Bool
        var excluded: Set<FileIdentity> = []
        var visitedFolders: Set<FileIdentity> = []
        var visitedFiles: Set<FileIdentity> = []
        var collection = Collection()
        /// The stem counts of the folders of files named directly, by the folder's path (a list
        /// of many files in one folder reads the folder once).
        var folderStems: [[UInt8]: [String: Int]] = [:]

        /// The stem counts of the folder holding the file at `path` (see ``outputStem(of:siblingStems:)``).
        mutating func stemCounts(ofFolderOf path: [UInt8]) -> [String: Int] {
            let folder: [UInt8]
            if let slash = path.lastIndex(of: UInt8(ascii: "/")) {
                folder = slash == path.startIndex ? [UInt8(ascii: "/")] : Array(path[..<slash])
            } else {
                folder = [UInt8(ascii: ".")]
            }
            if let known = folderStems[folder] { return known }
            var names: [String] = []
            if let stream = ByteNames.withCString(folder, { opendir($0) }) {
                while let entry = readdir(stream) {
                    names.append(ByteNames.escaped(withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }))
                }
                closedir(stream)
            }
            let counts = SupportedAudioFiles.stemCounts(names)
            folderStems[folder] = counts
            return counts
        }

        init(recursive: Bool, allFormats: Bool) {
            self.recursive = recursive
            self.allFormats = allFormats
        }

        /// One entry of a folder: its name's bytes and what they lead to.
        private struct Entry {
            let name: [UInt8]
            /// The name as text: itself when UTF-8, escaped otherwise (for sorting and relative folders).
            let shown: String
            let url: URL
        }

        /// Walks `folder` (`bytes`: its path as the file system takes it).
        mutating func walk(_ folder: URL, bytes: [UInt8], relative: String) throws {
            guard let stream = ByteNames.withCString(bytes, { opendir($0) }) else {
                throw ReverseAudioError.input(.unreadable(path: folder.displayPath, reason: "cannot list the folder (\(String(cString: strerror(errno))))"))
            }
            var names: [[UInt8]] = []
            while let entry = readdir(stream) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
                if name == [UInt8(ascii: ".")] || name == [UInt8(ascii: "."), UInt8(ascii: ".")] { continue }
                names.append(name)
            }
            closedir(stream)
            let folderDisplay = folder.displayPath
            var entries: [Entry] = []
            for name in names {
                let shown = ByteNames.escaped(name)
                let url: URL
                if let text = String(validating: name, as: UTF8.self) {
                    // Built from `folder` so a relative folder gives relative paths in reports.
                    url = folder.appendingPathComponent(text)
                } else {
                    do {
                        url = try ByteNames.url(forPath: bytes + [UInt8(ascii: "/")] + name, display: folderDisplay + "/" + shown)
                    } catch {
                        collection.skipped.append((folderDisplay + "/" + shown, "\(error)"))
                        continue
                    }
                }
                entries.append(Entry(name: name, shown: shown, url: url))
            }
            entries.sort { $0.shown.localizedStandardCompare($1.shown) == .orderedAscending }
            let stems = SupportedAudioFiles.stemCounts(entries.map(\.shown))
            var subfolders: [(URL, [UInt8], String)] = []
            for entry in entries {
                let path = bytes + [UInt8(ascii: "/")] + entry.name
                let shownPath = entry.url.displayPath
                if entry.name.first == UInt8(ascii: ".") {
                    collection.skipped.append((shownPath, "hidden"))
                    continue
                }
                var status = stat()
                guard ByteNames.withCString(path, { stat($0, &status) }) == 0 else {
                    let reason = errno == ENOENT || errno == ELOOP ? "a symbolic link that leads nowhere" : String(cString: strerror(errno))
                    collection.skipped.append((shownPath, reason))
                    continue
                }
                let identity = FileIdentity(status)
                switch status.st_mode & S_IFMT {
                case S_IFDIR:
                    if excluded.contains(identity) {
                        collection.skipped.append((shownPath, "the output folder: its files are outputs, not inputs"))
                    } else if !recursive {
                        collection.skipped.append((shownPath, "a folder, and recursion is off"))
                    } else if !visitedFolders.insert(identity).inserted {
                        collection.skipped.append((shownPath, "a folder already walked (a link back to it)"))
                    } else {
                        let inner = relative.isEmpty ? entry.shown : relative + "/" + entry.shown
                        subfolders.append((entry.url, path, inner))
                    }
                case S_IFREG:
                    if !allFormats && !isSupported(entry.url) {
                        collection.skipped.append((shownPath, "not one of \(extensions.joined(separator: " ")); --all-formats tries every file"))
                    } else if !visitedFiles.insert(identity).inserted {
                        collection.skipped.append((shownPath, "the same file as an earlier input (another link to it)"))
                    } else {
                        collection.files.append(Found(url: entry.url, relativeFolder: relative,
                                                      outputStem: outputStem(of: entry.shown, siblingStems: stems)))
                    }
                case S_IFIFO:
                    collection.skipped.append((shownPath, "a FIFO, not a file: reading it could wait forever"))
                case S_IFSOCK:
                    collection.skipped.append((shownPath, "a socket, not a file"))
                case S_IFCHR, S_IFBLK:
                    collection.skipped.append((shownPath, "a device, not a file"))
                default:
                    collection.skipped.append((shownPath, "not a regular file"))
                }
            }
            for (subfolder, path, inner) in subfolders {
                do {
                    try walk(subfolder, bytes: path, relative: inner)
                } catch let error as ReverseAudioError {
                    collection.failures.append(error)
                }
            }
        }
    }
}
