import Foundation

/// The audio files ReverseAudio picks out of folders: by default the seed app's nine extensions.
public enum SupportedAudioFiles {
    /// The extensions the original app listed, in its order.
    public static let extensions: [String] = ["aac", "m4a", "aiff", "aif", "wav", "mp3", "caf", "m4r", "flac"]

    /// True when `url`'s extension is one of ``extensions`` (case-insensitive).
    public static func isSupported(_ url: URL) -> Bool {
        extensions.contains(url.pathExtension.lowercased())
    }

    /// The supported audio files directly inside `directory`, sorted by name.
    /// Hidden files and subfolders are skipped.
    public static func files(in directory: URL) throws -> [URL] {
        try collect([directory], recursive: false, allFormats: false).files.map(\.url)
    }

    /// One file a batch will process.
    public struct Found: Sendable, Equatable {
        /// The file.
        public let url: URL
        /// The folders between the folder argument and the file ("" for a file named directly,
        /// "live/2019" for `ARG/live/2019/x.mp3`): outputs keep this structure.
        public let relativeFolder: String
    }

    /// What a collection found.
    public struct Collection: Sendable {
        /// The files to process, in argument order; inside a folder sorted by path, files
        /// before subfolders.
        public var files: [Found] = []
        /// Files and folders passed over, each with the reason (for `--verbose` and the summary).
        public var skipped: [(path: String, reason: String)] = []
        /// Arguments that could not be used at all (missing, unreadable folder).
        public var failures: [ReverseAudioError] = []
    }

    /// The files named by `paths`: files as they are, folders by their contents.
    /// - Parameters:
    ///   - paths: files and folders.
    ///   - recursive: descend into subfolders (else they are skipped and listed).
    ///   - allFormats: take every file whatever its extension (FFmpeg decides what it can read).
    public static func collect(_ paths: [URL], recursive: Bool, allFormats: Bool) throws -> Collection {
        var collection = Collection()
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory) else {
                collection.failures.append(.fileNotFound(path: path.displayPath))
                continue
            }
            if isDirectory.boolValue {
                do {
                    try walk(path, relative: "", recursive: recursive, allFormats: allFormats, into: &collection)
                } catch let error as ReverseAudioError {
                    collection.failures.append(error)
                }
            } else {
                collection.files.append(Found(url: path, relativeFolder: ""))
            }
        }
        return collection
    }

    private static func walk(_ folder: URL, relative: String, recursive: Bool, allFormats: Bool,
                             into collection: inout Collection) throws {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            throw ReverseAudioError.unreadable(path: folder.displayPath, reason: "cannot list the folder")
        }
        var subfolders: [(URL, String)] = []
        // Built from `folder` so a relative folder gives relative paths in reports.
        for name in names.sorted(by: { $0.localizedStandardCompare($1) == .orderedAscending }) {
            let url = folder.appendingPathComponent(name)
            if name.hasPrefix(".") {
                collection.skipped.append((url.displayPath, "hidden"))
                continue
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                if recursive {
                    subfolders.append((url, relative.isEmpty ? name : relative + "/" + name))
                } else {
                    collection.skipped.append((url.displayPath, "a folder, and recursion is off"))
                }
            } else if allFormats || isSupported(url) {
                collection.files.append(Found(url: url, relativeFolder: relative))
            } else {
                collection.skipped.append((url.displayPath, "not one of \(extensions.joined(separator: " ")); --all-formats tries every file"))
            }
        }
        for (subfolder, path) in subfolders {
            try walk(subfolder, relative: path, recursive: recursive, allFormats: allFormats, into: &collection)
        }
    }
}
